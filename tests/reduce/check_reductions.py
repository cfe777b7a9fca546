#!/usr/bin/env python3
"""Checks the reductions a run of tests/reduce/reduce.xml printed against Python's math.fsum and
exact min/max over the arrays it saved (A.raw, B.raw: floats, the state after the last step).

At the last step the body computed B from A (res: l2 of B - A, diff: linf of B - A, in float),
swapped them (total: sum of A, lo: min of A, hi: max of B), so over the saved arrays:
res = sqrt(fsum((A - B)^2)), diff = max |A - B|, total = fsum(A), lo = min(A), hi = max(B).
Usage: check_reductions.py RUN_DIR (holding A.raw, B.raw and log.txt)."""
import math
import re
import struct
import sys
from array import array

run = sys.argv[1]


def floats(name):
    a = array("f")
    with open(f"{run}/{name}.raw", "rb") as f:
        a.frombytes(f.read())
    return a


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


A, B = floats("A"), floats("B")
assert len(A) == len(B) == 67 * 53, len(A)
# Real data: a test over zeros proves nothing.
assert any(x != 0 for x in A) and any(x != 0 for x in B)
d = [f32(a - b) for a, b in zip(A, B)]  # the difference in float, as the program takes it
want = {
    "res": math.sqrt(math.fsum(x * x for x in d)),
    "diff": max(abs(x) for x in d),
    "total": math.fsum(A),
    "lo": min(A),
    "hi": max(B),
}
got = {}
with open(f"{run}/log.txt") as f:
    for line in f:
        m = re.match(r"reduce (\w+) = (\S+) \(step (\d+)\)", line)
        if m:
            got[m.group(1)] = (float(m.group(2)), int(m.group(3)))
bad = False
for name, value in want.items():
    if name not in got:
        print(f"FAIL: no 'reduce {name}' line in {run}/log.txt")
        bad = True
        continue
    v, step = got[name]
    if v.hex() != value.hex():
        print(f"FAIL: {name} = {v!r} ({v.hex()}), Python says {value!r} ({value.hex()})")
        bad = True
sys.exit(1 if bad else 0)
