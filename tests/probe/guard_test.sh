#!/usr/bin/env bash
# A probe result never changes the device count silently (tests/probe/guard: a guard of 10 cells,
# halo 1, on 24x24): the rims widen the ghost zones to 10, which leaves 3 devices 2 parts; the
# OpenCL program on 3 PoCL devices stops before the time loop saying so and naming --devices 2;
# with --devices 2 it runs and saves the bits of the run on 1 device.
# Usage: guard_test.sh STEPGEN WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 work=$2/guard
here=$(cd "$(dirname "$0")/guard" && pwd)
rm -rf "$work"
mkdir -p "$work"
"$stepgen" generate "$here/guard.xml" --target opencl -o "$work/gen" >/dev/null
build_program "$work/gen"
run() {  # run NAME DEVICES
  POCL_DEVICES="$(printf 'pthread %.0s' $(seq "$2"))" "$work/gen/build/guard" --device-type cpu \
    --devices "$2" --save "A=$work/$1.raw" >"$work/$1.txt" 2>&1
}
status=0
run three 3 || status=$?
[ $status -eq 1 ] && grep -q "error: with the ghost widths the kernels' rims need (10/10 10/10), the grid can be split into only 2 parts .*not the 3 the declared halos give: run with --devices 2" "$work/three.txt" ||
  { cat "$work/three.txt"; echo "FAIL: 3 devices: exit $status, expected 1 and the reason"; exit 1; }
echo "ok: 3 devices: the run stops, saying why"
run two 2 || { cat "$work/two.txt"; echo "FAIL: --devices 2 does not run"; exit 1; }
run one 1 || { cat "$work/one.txt"; echo "FAIL: --devices 1 does not run"; exit 1; }
cmp -s "$work/two.raw" "$work/one.raw" || { echo "FAIL: 2 devices differ from 1"; exit 1; }
echo "ok: --devices 2 runs and equals 1 device"
