#!/usr/bin/env bash
# Kernels ported from the docs alone, whose too-small halos the probe used to miss (wrong
# results, exit 0): a D2Q9 lattice-Boltzmann step whose solid mask (from a file) is != 0 where
# solid (tests/probe/lbm), PolyBench seidel-2d as a wavefront writing one hyperplane a step
# (tests/probe/seidel, 40 and 20 cells a side), PolyBench adi's line recurrences
# (tests/probe/adi), a kernel whose far reads only the program's initial data take
# (tests/probe/data: a mask at 9, a value above the probe's). For CASE:
#   - the spec with the right halo: `stepgen check --probe` passes; the OpenCL program on PoCL,
#     on 1 device, on 3 devices and out of core (adi: 1, 2 and 3 devices), saves the bits of the
#     serial reference (ref.c, written from the model or PolyBench's loop nest, not from the
#     kernel);
#   - the spec with the halo too small (CASE_small.xml, where there is one): `stepgen check
#     --probe` exits 1 with a located error naming the kernel and the cause (EXPECT), and the
#     program stops before the time loop with that error; with --probe off it runs (the risk
#     accepted).
# With cuda-emu, the same with the kernels' CUDA twins (NAME.cu), the program generated for CUDA
# and run on the CPU emulation (tests/cuda_emu), whose start-up probe runs on the "GPU"; the
# check-time probe (OpenCL only) is left out there.
# Usage: real_kernels_test.sh STEPGEN WORK_DIR CASE [cuda-emu]
set -euo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 case=$3 backend=${4:-opencl}
work=$2/real-$3-$backend
here=$(cd "$(dirname "$0")" && pwd)
export POCL_MAX_PTHREAD_COUNT=${POCL_MAX_PTHREAD_COUNT:-2}
runs=("one 1" "three 3" "ooc 1 --out-of-core on --ooc-chunks 3")
case $case in
  lbm) dir=lbm spec=lbm small=lbm_small arrays="f0 f1 f2 f3 f4 f5 f6 f7 f8"
    expect="lbm_small.xml:[0-9]+:[0-9]+: error: kernel 'lbm' reads array 'f5' at offset \(-1,-1\), outside its declared halo"
    reference() { "$work/ref" "$here/lbm/obst.raw" "$1"; } ;;
  seidel40) dir=seidel spec=seidel40 small=seidel40_small arrays="A"
    expect="seidel40_small.xml:[0-9]+:[0-9]+: error: kernel 'seidel' reads array 'A' at offsets .*outside its declared halo"
    reference() { "$work/ref" 40 2 "$here/seidel/a40.raw" "$1/A.raw"; } ;;
  seidel20) dir=seidel spec=seidel20 small="" arrays="A"
    reference() { "$work/ref" 20 3 "$here/seidel/a20.raw" "$1/A.raw"; } ;;
  # adi: a halo of 30 gives each buffer the whole line on 2 devices (3 give parts of 20 rows,
  # thinner than the ghost zones: 2 are used); out of core, chunks cannot hold the lines.
  adi) dir=adi spec=adi small=adi_small arrays="u v" runs=("one 1" "two 2" "three 3")
    expect="adi_small.xml:[0-9]+:[0-9]+: error: kernel 'colsweep' reads array 'u' along y as far as its buffer goes"
    reference() { "$work/ref" 60 4 "$here/adi/u60.raw" "$1/u.raw" "$1/v.raw"; } ;;
  # data: reads taken only where the program's initial data say so (a mask at 9, h > 2.5):
  # seen by the probe on those data at the run's start; `check --probe` runs on the probe's own
  # values and passes the small halo (check_small=no).
  data) dir=data spec=data small=data_small arrays="u v" check_small=no
    expect="data_small.xml:[0-9]+:[0-9]+: error: the kernel probe found a declared halo too small on the program's initial data:.*kernel 'blend' reads array 'u' at offsets \(0,-1\) and \(0,2\), outside its declared halo"
    reference() { "$work/ref" "$here/data/u.raw" "$here/data/m.raw" "$1"; } ;;
  *) echo "unknown case $case"; exit 2 ;;
esac
rm -rf "$work"
mkdir -p "$work/refout"
cc -O1 -ffp-contract=off -o "$work/ref" "$here/$dir/ref.c"
reference "$work/refout"

# program SPEC OUT: generated and built (OUT/build/NAME)
program() {
  if [ "$backend" = cuda-emu ]; then
    "$stepgen" generate "$here/$dir/$1.xml" --target cuda -o "$2" >/dev/null
    mkdir -p "$2/build"
    "$here/../cuda_emu/build.sh" "$2" "$2/build/$dir" >"$2/build.txt" 2>&1 ||
      { tail -30 "$2/build.txt"; echo "FAIL: $case: the CUDA program does not build"; exit 1; }
  else
    "$stepgen" generate "$here/$dir/$1.xml" --target opencl -o "$2" >/dev/null
    build_program "$2"
  fi
}
# run PROGRAM NAME DEVICES ARGS...: the run's saves in $work/NAME
run() {
  local prog=$1 name=$2 n=$3 saves=()
  shift 3
  mkdir -p "$work/$name"
  for a in $arrays; do saves+=(--save "$a=$work/$name/$a.raw"); done
  if [ "$backend" = cuda-emu ]; then
    STEPGEN_CUDA_EMULATE=$n "$prog" --devices "$n" "${saves[@]}" "$@" >"$work/$name/log.txt" 2>&1
  else
    POCL_DEVICES="$(printf 'pthread %.0s' $(seq "$n"))" "$prog" --device-type cpu --devices "$n" \
      "${saves[@]}" "$@" >"$work/$name/log.txt" 2>&1
  fi
}

if [ "$backend" = opencl ]; then
  "$stepgen" check --probe "$here/$dir/$spec.xml" >"$work/check.log" 2>&1 ||
    { cat "$work/check.log"; echo "FAIL: $case: check --probe refuses the right halo"; exit 1; }
fi
program "$spec" "$work/gen"
for r in "${runs[@]}"; do
  read -r name n extra <<<"$r"
  # shellcheck disable=SC2086
  run "$work/gen/build/$dir" "$name" "$n" $extra ||
    { cat "$work/$name/log.txt"; echo "FAIL: $case: $name did not run"; exit 1; }
  for a in $arrays; do
    cmp -s "$work/$name/$a.raw" "$work/refout/$a.raw" ||
      { cat "$work/$name/log.txt"; echo "FAIL: $case: $name: $a differs from the serial reference"; exit 1; }
  done
  echo "ok: $case ($backend) $name ($n device(s) $extra): $arrays equal the serial reference"
done
[ -n "$small" ] || exit 0

if [ "$backend" = opencl ] && [ "${check_small:-yes}" = yes ]; then
  status=0
  "$stepgen" check --probe "$here/$dir/$small.xml" >"$work/check-small.log" 2>&1 || status=$?
  if [ $status -ne 1 ] || ! grep -qE "$expect" "$work/check-small.log"; then
    cat "$work/check-small.log"
    echo "FAIL: $case: check --probe on $small.xml: exit $status, expected 1 and: $expect"; exit 1
  fi
  echo "ok: $case: check --probe refuses $small.xml"
fi
program "$small" "$work/gen-small"
status=0
run "$work/gen-small/build/$dir" small 3 || status=$?
if [ $status -eq 0 ] || ! tr '\n' ' ' <"$work/small/log.txt" | grep -qE "${expect#*error: }"; then
  cat "$work/small/log.txt"
  for a in $arrays; do
    cmp -s "$work/small/$a.raw" "$work/refout/$a.raw" || echo "($a differs from the serial reference)"
  done
  echo "FAIL: $case: the program of $small.xml: exit $status, expected an error: $expect"; exit 1
fi
echo "ok: $case: the program of $small.xml stops at start-up"
run "$work/gen-small/build/$dir" off 1 --probe off ||
  { cat "$work/off/log.txt"; echo "FAIL: $case: --probe off does not run"; exit 1; }
echo "ok: $case: --probe off runs $small.xml"
