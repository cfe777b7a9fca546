#!/usr/bin/env bash
# Floating-point contraction is off in the generated OpenCL program although the kernel file
# does not say so (no `#pragma OPENCL FP_CONTRACT OFF`): B = A * C + D on 2 PoCL CPU devices must
# round the product and then the sum, as a serial reference built with -ffp-contract=off does.
# PoCL fused it into one FMA where the file had no pragma (a user's kernel: every device agreed,
# the reference did not). The data are checked to tell the two apart (on a CPU with FMA), so the
# test can fail.
# Usage: fp_contract_test.sh STEPGEN WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 work=$2/fp-contract
rm -rf "$work"
mkdir -p "$work"
cat >"$work/k.cl" <<'CL'
__kernel void fma_like(__global const float* a, __global const float* c, __global const float* d,
                       __global float* b, int n) {
  int x = get_global_id(0);
  if (x < n) b[x] = a[x] * c[x] + d[x];
}
CL
cat >"$work/f.xml" <<'XML'
<stencil name="f">
  <array name="A" type="float" size="4096" init="random(3)"/>
  <array name="C" type="float" size="4096" init="random(4)"/>
  <array name="D" type="float" size="4096" init="random(5)"/>
  <array name="B" type="float" size="4096" init="zero"/>
  <kernel name="fma_like" source="k.cl">
    <arg array="A" access="read"/>
    <arg array="C" access="read"/>
    <arg array="D" access="read"/>
    <arg array="B" access="write"/>
    <arg scalar="int" value="extent(A, 0)"/>
  </kernel>
  <iterate steps="1">
    <launch kernel="fma_like"/>
  </iterate>
</stencil>
XML
out="$work/out"
"$stepgen" generate "$work/f.xml" --target opencl -o "$out" >/dev/null
build_program "$out"
POCL_DEVICES="pthread pthread" "$out/build/f" --device-type cpu --devices 2 \
  --save "A=$work/A.raw" --save "C=$work/C.raw" --save "D=$work/D.raw" --save "B=$work/B.raw" \
  >"$work/log.txt" 2>&1 || { cat "$work/log.txt"; echo "FAIL: the program did not run"; exit 1; }
python3 - "$work" <<'PY'
import struct, sys
w = sys.argv[1]
read = lambda n: struct.unpack('<4096f', open(w + '/' + n + '.raw', 'rb').read())
f32 = lambda x: struct.unpack('<f', struct.pack('<f', x))[0]
a, c, d, b = read('A'), read('C'), read('D'), read('B')
separate = [f32(f32(x * y) + z) for x, y, z in zip(a, c, d)]  # product rounded, then the sum
fused = [f32(x * y + z) for x, y, z in zip(a, c, d)]  # the product exact (24 + 24 bits)
apart = sum(s != f for s, f in zip(separate, fused))
if apart == 0:
    sys.exit("FAIL: the data cannot tell fused from separate rounding (the test could not fail)")
bad = [i for i in range(4096) if b[i] != separate[i]]
if bad:
    i = bad[0]
    sys.exit("FAIL: %d of 4096 elements are not a * c + d rounded twice (contraction on?); "
             "first %d: %r, expected %r (fused: %r)" % (len(bad), i, b[i], separate[i], fused[i]))
print("ok: B = A * C + D rounded twice on 2 devices (%d of 4096 elements would differ fused)" % apart)
PY
