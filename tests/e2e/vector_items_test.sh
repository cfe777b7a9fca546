#!/usr/bin/env bash
# Kernels whose work-items compute several cells (a global size of extent(X, d) / 4: a float
# grid read through float4 pointers, as kernels for one device are written). The kernel
# computes 4-cell groups of a row it takes to be a multiple of 4 long, so a cut of x at 18
# cells (--strategy min-exchange on 4 devices) computes wrong cells, exit 0. The plan must
# cut x at multiples of 4 (vector_items/rows.xml), not cut it when the ghost widths
# there are no multiples of 4 (halo.xml), and refuses out of core where the slowest dimension
# is the one (line.xml: chunks cut it at any plane). Every run that goes must save the bits of
# the run on 1 device.
# Usage: vector_items_test.sh STEPGEN WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 work=$2/vector-items
here=$(cd "$(dirname "$0")/vector_items" && pwd)
rm -rf "$work"
mkdir -p "$work"
cp "$here"/*.cl "$here"/*.cu "$here"/*.xml "$work/"
expect() {  # expect FILE TEXT WHAT
  grep -qF "$2" "$1" || { cat "$1"; echo "FAIL: $3"; exit 1; }
}
"$stepgen" plan "$work/rows.xml" --devices 4 --strategy min-exchange >"$work/rows-plan.txt"
expect "$work/rows-plan.txt" "kernel 'ysmooth' computes 4 cells per work-item along x (its global size divides extent(X, 0) by 4): x is split at multiples of 4 cells" \
  "the plan does not say how x is cut"
"$stepgen" plan "$work/halo.xml" --devices 4 --strategy min-exchange >"$work/halo-plan.txt"
expect "$work/halo-plan.txt" "are not multiples of it: x is not split" "the plan splits x"
expect "$work/halo-plan.txt" "device grid 1x4" "the plan splits x"
if "$stepgen" plan "$work/line.xml" --devices 2 --out-of-core on --device-memory 2KiB \
  >"$work/line-plan.txt" 2>&1; then
  cat "$work/line-plan.txt"; echo "FAIL: stepgen plan streams line.xml out of core"; exit 1
fi
expect "$work/line-plan.txt" "this program cannot run out of core: kernel 'scale' computes 4 cells per work-item along the slowest dimension" \
  "the plan's refusal does not say why"

run() {  # run PROGRAM NAME DEVICES ARGS...
  local prog=$1 name=$2 n=$3; shift 3
  mkdir -p "$work/$prog-$name"
  POCL_DEVICES="$(printf 'pthread %.0s' $(seq "$n"))" "$work/$prog/build/$prog" --device-type cpu \
    --devices "$n" --save "A=$work/$prog-$name/A.raw" --save "B=$work/$prog-$name/B.raw" "$@" \
    >"$work/$prog-$name/log.txt" 2>&1
}
same() {  # same PROGRAM NAME
  for a in A B; do
    cmp -s "$work/$1-$2/$a.raw" "$work/$1-one/$a.raw" ||
      { cat "$work/$1-$2/log.txt"; echo "FAIL: $1 $2: $a differs from the run on 1 device"; exit 1; }
  done
  echo "ok: $1 $2: A and B equal the run on 1 device"
}
for prog in rows line; do
  "$stepgen" generate "$work/$prog.xml" --target opencl -o "$work/$prog" >/dev/null
  build_program "$work/$prog"
  run "$prog" one 1 || { cat "$work/$prog-one/log.txt"; echo "FAIL: $prog on 1 device"; exit 1; }
done
run rows four 4 --strategy min-exchange || { cat "$work/rows-four/log.txt"; exit 1; }
same rows four
run rows weights 3 --weights 1,3,2 --strategy min-exchange || { cat "$work/rows-weights/log.txt"; exit 1; }
same rows weights
run rows ooc 2 --out-of-core on --ooc-chunks 3 --steps-per-pass 3 || { cat "$work/rows-ooc/log.txt"; exit 1; }
same rows ooc
run line three 3 || { cat "$work/line-three/log.txt"; exit 1; }
same line three
if run line ooc 2 --out-of-core on --device-memory 2KiB; then
  cat "$work/line-ooc/log.txt"; echo "FAIL: line ran out of core"; exit 1
fi
expect "$work/line-ooc/log.txt" "error: this program cannot run out of core: kernel 'scale' computes 4 cells per work-item along the slowest dimension" \
  "the program's refusal does not say why"
echo "ok: line out of core refused"
