#!/usr/bin/env bash
# OpenCL kernels that index with get_group_id(), take their extents from get_global_size() or
# subtract get_global_offset() from their index
# (offset_blind/o.xml) run whole: a launch over part of the work-items (a slab through a global
# offset, the overlap of exchanges in core and on MPI ranks, the trapezoid out of core) changes
# what those return, so such a kernel run in slabs computes most cells wrong on 2 devices, exit
# 0. The plan says why there is no overlap; runs on 2 and 3 devices and out of core with 3 steps
# per pass must save the bits of the run on 1 device.
# Usage: offset_blind_test.sh STEPGEN WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 work=$2/offset-blind
here=$(cd "$(dirname "$0")/offset_blind" && pwd)
rm -rf "$work"
mkdir -p "$work"
cp "$here/group.cl" "$here/size.cl" "$here/offset.cl" "$here/o.xml" "$work/"
"$stepgen" plan "$work/o.xml" --devices 2 >"$work/plan.txt"
grep -q "kernel 'jacobi_group': group.cl:5 uses 'get_group_id', which a launch over part of its work-items (a slab) changes" "$work/plan.txt" ||
  { cat "$work/plan.txt"; echo "FAIL: the plan does not say why jacobi_group runs whole"; exit 1; }
grep -q "kernel 'jacobi_size': size.cl:7 uses 'get_global_size', which a launch over part of its work-items (a slab) changes" "$work/plan.txt" ||
  { cat "$work/plan.txt"; echo "FAIL: the plan does not say why jacobi_size runs whole"; exit 1; }
grep -q "kernel 'jacobi_offset': offset.cl:6 uses 'get_global_offset', which a launch over part of its work-items (a slab) changes" "$work/plan.txt" ||
  { cat "$work/plan.txt"; echo "FAIL: the plan does not say why jacobi_offset runs whole"; exit 1; }
out="$work/out"
"$stepgen" generate "$work/o.xml" --target opencl -o "$out" >/dev/null
build_program "$out"
run() {  # run NAME DEVICES ARGS...
  local name=$1 n=$2; shift 2
  mkdir -p "$work/$name"
  POCL_DEVICES="$(printf 'pthread %.0s' $(seq "$n"))" "$out/build/o" --device-type cpu --devices "$n" \
    --save "A=$work/$name/A.raw" --save "B=$work/$name/B.raw" "$@" >"$work/$name/log.txt" 2>&1 ||
    { cat "$work/$name/log.txt"; echo "FAIL: $name did not run"; exit 1; }
}
run one 1
for r in "two 2" "three 3 --strategy slabs" "ooc 1 --out-of-core on --ooc-chunks 3 --steps-per-pass 3"; do
  read -r name n extra <<<"$r"
  # shellcheck disable=SC2086
  run "$name" "$n" $extra
  for a in A B; do
    cmp -s "$work/$name/$a.raw" "$work/one/$a.raw" ||
      { cat "$work/$name/log.txt"; echo "FAIL: $name: $a differs from the run on 1 device"; exit 1; }
  done
  echo "ok: $name ($n device(s) $extra): A and B equal the run on 1 device"
done
