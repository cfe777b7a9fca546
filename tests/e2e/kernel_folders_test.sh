#!/usr/bin/env bash
# Two kernel sources of one file name in different folders (a/k.cl, b/k.cl), each holding its
# own kernel: generate -> build -> run on 2 PoCL CPU devices; both kernels must run (before,
# only one file was copied and the program failed with CL_INVALID_KERNEL_NAME).
# A starts at 1; each step runs ka (B = A + 1) then kb (A = 2 * B): after 3 steps A is 22.
# The second folder's name holds a space: the generated CMakeLists.txt must quote the kernel
# files it lists, or the program does not build.
# Usage: kernel_folders_test.sh STEPGEN WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 work=$2/kernel-folders
rm -rf "$work"
mkdir -p "$work/a" "$work/b dir"
cat >"$work/a/k.cl" <<'CL'
__kernel void ka(__global const float* a, __global float* b, int n) {
  int x = get_global_id(0);
  if (x < n) b[x] = a[x] + 1.0f;
}
CL
cat >"$work/b dir/k.cl" <<'CL'
__kernel void kb(__global const float* b, __global float* a, int n) {
  int x = get_global_id(0);
  if (x < n) a[x] = 2.0f * b[x];
}
CL
cat >"$work/two.xml" <<'XML'
<stencil name="two">
  <array name="A" type="float" size="64" init="value(1)"/>
  <array name="B" type="float" size="64" init="zero"/>
  <kernel name="ka" source="a/k.cl">
    <arg array="A" access="read"/>
    <arg array="B" access="write"/>
    <arg scalar="int" value="extent(A, 0)"/>
  </kernel>
  <kernel name="kb" source="b dir/k.cl">
    <arg array="B" access="read"/>
    <arg array="A" access="write"/>
    <arg scalar="int" value="extent(A, 0)"/>
  </kernel>
  <iterate steps="3">
    <launch kernel="ka"/>
    <launch kernel="kb"/>
  </iterate>
</stencil>
XML
out="$work/out"
"$stepgen" generate "$work/two.xml" --target opencl -o "$out" >/dev/null
for f in kernels/a/k.cl "kernels/b dir/k.cl"; do
  cmp "$work/${f#kernels/}" "$out/$f" || { echo "FAIL: $f is not a copy of ${f#kernels/}"; exit 1; }
done
build_program "$out"
POCL_DEVICES="pthread pthread" "$out/build/two" --device-type cpu --devices 2 --save "A=$work/A.raw" \
  >"$work/log.txt" 2>&1 || { cat "$work/log.txt"; echo "FAIL: the program did not run"; exit 1; }
# 64 floats of 22.0 (0x41b00000, little-endian).
expected=$(for i in $(seq 64); do printf '\x00\x00\xb0\x41'; done | od -An -tx1 | tr -d ' \n')
actual=$(od -An -tx1 "$work/A.raw" | tr -d ' \n')
if [ "$actual" != "$expected" ]; then
  cat "$work/log.txt"
  echo "FAIL: A is not 22 everywhere after 3 steps of ka (a/k.cl) and kb (b dir/k.cl)"
  exit 1
fi
echo "ok: kernels from a/k.cl and 'b dir/k.cl' both ran on 2 devices"
