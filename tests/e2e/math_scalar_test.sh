#!/usr/bin/env bash
# A scalar argument with the expression language's math (issue 24: exp, cos, pi, abs, '^' and
# step), evaluated per step on the host in double and passed as a float: generate -> build ->
# run 3 steps on 2 PoCL CPU devices; A must equal Python's computation of the same float sums.
# Usage: math_scalar_test.sh STEPGEN WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 work=$2/math-scalar
rm -rf "$work"
mkdir -p "$work"
cat >"$work/k.cl" <<'CL'
__kernel void add(__global const float* a, __global float* b, int n, float s) {
  int x = get_global_id(0);
  if (x < n) b[x] = a[x] + s;
}
CL
cat >"$work/m.xml" <<'XML'
<stencil name="m">
  <array name="A" type="float" size="64" init="value(1)"/>
  <array name="B" type="float" size="64" init="zero"/>
  <kernel name="add" source="k.cl">
    <arg array="A" access="read"/>
    <arg array="B" access="write"/>
    <arg scalar="int" value="extent(A, 0)"/>
    <arg scalar="float" value="exp(-step * 0.25) * cos(pi / 3)^2 + abs(step - 2) + 2^step + sqrt(floor(2.5))"/>
  </kernel>
  <iterate steps="3">
    <launch kernel="add"/>
    <swap a="A" b="B"/>
  </iterate>
</stencil>
XML
out="$work/out"
"$stepgen" generate "$work/m.xml" --target opencl -o "$out" >/dev/null
build_program "$out"
POCL_DEVICES="pthread pthread" "$out/build/m" --device-type cpu --devices 2 --save "A=$work/A.raw" \
  >"$work/log.txt" 2>&1 || { cat "$work/log.txt"; echo "FAIL: the program did not run"; exit 1; }
python3 - "$work/A.raw" <<'PY'
import math, struct, sys
f32 = lambda x: struct.unpack('<f', struct.pack('<f', x))[0]
a = 1.0
for step in range(3):
    s = math.exp(-step * 0.25) * math.cos(math.pi / 3) ** 2 + abs(step - 2) + 2 ** step + math.sqrt(math.floor(2.5))
    a = f32(a + f32(s))
got = struct.unpack('<64f', open(sys.argv[1], 'rb').read())
if any(g != a for g in got):
    sys.exit("FAIL: A = %r, expected %r everywhere" % (got[:4], a))
print("ok: A = %r on 2 devices, as Python computes it" % a)
PY
