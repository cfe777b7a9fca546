"""B = A * C + D rounded twice (the product, then the sum), as a serial reference built with
-ffp-contract=off computes it. Usage: check.py DIR LABEL: DIR holds A.raw, C.raw, D.raw, B.raw
(4096 floats each, the program's --save). The data must tell a fused result from a twice-rounded
one in some element, or the check could not fail."""
import struct
import sys

w, label = sys.argv[1], sys.argv[2]
read = lambda n: struct.unpack('<4096f', open(w + '/' + n + '.raw', 'rb').read())
f32 = lambda x: struct.unpack('<f', struct.pack('<f', x))[0]
a, c, d, b = read('A'), read('C'), read('D'), read('B')
separate = [f32(f32(x * y) + z) for x, y, z in zip(a, c, d)]  # product rounded, then the sum
fused = [f32(x * y + z) for x, y, z in zip(a, c, d)]  # the product exact (24 + 24 bits)
apart = sum(s != f for s, f in zip(separate, fused))
if apart == 0:
    sys.exit("FAIL %s: the data cannot tell fused from twice rounded (the check could not fail)"
             % label)
bad = [i for i in range(4096) if b[i] != separate[i]]
if bad:
    i = bad[0]
    sys.exit("FAIL %s: %d of 4096 elements are not a * c + d rounded twice (contraction on?); "
             "first %d: %r, expected %r (fused: %r)" % (label, len(bad), i, b[i], separate[i], fused[i]))
print("ok %s: B = A * C + D rounded twice (%d of 4096 elements would differ fused)" % (label, apart))
