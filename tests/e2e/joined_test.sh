#!/usr/bin/env bash
# Two OpenCL kernel files that each define the same helper (joined/j.xml): the generated program
# builds its kernel files as one program, so the second definition is an error. `stepgen
# check --probe` must build them as the program does (built alone, each file passes, and the
# error would come at the program's start-up naming PoCL's temporary file) and name b.cl and
# its line; the program's own build error names kernels/b.cl (a #line per file).
# Usage: joined_test.sh STEPGEN WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 work=$2/joined
here=$(cd "$(dirname "$0")/joined" && pwd)
rm -rf "$work"
mkdir -p "$work"
cp "$here/a.cl" "$here/b.cl" "$here/j.xml" "$work/"
status=0
POCL_DEVICES=pthread "$stepgen" check --probe "$work/j.xml" >"$work/check.txt" 2>&1 || status=$?
[ "$status" = 1 ] && grep -q "the OpenCL kernel files do not build as the program builds them" "$work/check.txt" &&
  grep -q "b.cl:2:[0-9]*: .*redefinition of 'at'" "$work/check.txt" ||
  { cat "$work/check.txt"; echo "FAIL: check --probe (exit $status) did not name b.cl's redefinition"; exit 1; }
echo "ok: check --probe names b.cl:2's redefinition"
"$stepgen" generate "$work/j.xml" --target opencl -o "$work/out" >/dev/null
build_program "$work/out"
status=0
POCL_DEVICES=pthread "$work/out/build/j" --device-type cpu --devices 1 >"$work/run.txt" 2>&1 || status=$?
[ "$status" != 0 ] && grep -q "kernels/b.cl:2:[0-9]*: .*redefinition of 'at'" "$work/run.txt" ||
  { cat "$work/run.txt"; echo "FAIL: the program (exit $status) did not name kernels/b.cl's line"; exit 1; }
echo "ok: the program's build error names kernels/b.cl:2"
