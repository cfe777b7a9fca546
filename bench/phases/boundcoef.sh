#!/usr/bin/env bash
# Phases `boundcoef-generate` and `boundcoef`: periodic boundaries with a coefficient array that
# no launch writes, read without a halo (tests/boundary/periodic_coef.xml), on the GPU (CUDA).
# The kernels compute the periodic frame's cells as images between exchanges (deep halos, out-of-
# core passes of several steps), reading the coefficient's frame, which was zero: a user's Yee
# run was 85% wrong out of core, exit 0. It now gets an implied periodic frame (program_plan.cpp).
# CI runs the same on PoCL and the CPU emulation (tests/boundary/kinds_test.sh); here the CUDA
# programs run on the GPU, every run against the PoCL run in core with an exchange every step.
#
#   bench/run.sh boundcoef-generate   HERE: the CUDA trees (exchange every step; every 2 steps),
#                                     the MPI tree, and the PoCL run's A and B
#   bench/run.sh boundcoef            ON THE GPU MACHINE: builds them; in core, deep halos, out of
#                                     core with 2 and 3 steps per pass, 2 MPI ranks in core and out
#                                     of core must save PoCL's bits
set -u
. "$(dirname "$0")/lib.sh"
gen=$gen/boundcoef
src=$root/tests/boundary

if [ "${1:-}" = generate ]; then
  set -e
  stepgen=$(find_stepgen)
  rm -rf "$gen"
  mkdir -p "$gen/spec" "$gen/deep" "$gen/pocl"
  cp "$src/periodic_coef.xml" "$src/coef.cl" "$src/coef.cu" "$gen/spec/"
  cp "$src/coef.cl" "$src/coef.cu" "$gen/deep/"
  sed 's|</stencil>|  <exchange every="2"/>\n</stencil>|' "$src/periodic_coef.xml" >"$gen/deep/periodic_coef.xml"
  grep -q '<exchange every="2"/>' "$gen/deep/periodic_coef.xml"
  "$stepgen" generate "$gen/spec/periodic_coef.xml" --target cuda -o "$gen/cuda" >/dev/null
  "$stepgen" generate "$gen/deep/periodic_coef.xml" --target cuda -o "$gen/cuda-deep" >/dev/null
  "$stepgen" generate "$gen/spec/periodic_coef.xml" --target cuda --distribution mpi -o "$gen/cuda-mpi" >/dev/null
  "$stepgen" generate "$gen/spec/periodic_coef.xml" --target opencl -o "$gen/ocl" >/dev/null
  cmake -S "$gen/ocl" -B "$gen/ocl/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$gen/ocl/build" -j 2 >/dev/null
  (cd "$gen/pocl" && POCL_DEVICES=pthread "$gen/ocl/build/periodic_coef" --device-type cpu \
     --save A=A.raw --save B=B.raw >log.txt 2>&1)
  rm -rf "$gen/ocl"
  echo "generated $gen"
  exit 0
fi

mkdir -p "$out"
w=$work/boundcoef
rm -rf "$w"
mkdir -p "$w"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
status=0
rows=()
build_cuda_tree "$gen/cuda" "$w/cuda" &
build_cuda_tree "$gen/cuda-deep" "$w/cuda-deep" &
build_cuda_tree "$gen/cuda-mpi" "$w/cuda-mpi" &
wait
run() {  # run LABEL PROGRAM-DIR RANKS ARGS...
  local label=$1 program=$2 ranks=$3; shift 3
  local d=$w/run-$label
  mkdir -p "$d"
  if [ "$ranks" = 0 ]; then
    (cd "$d" && "$w/$program/periodic_coef" "$@" --save A=A.raw --save B=B.raw >log.txt 2>&1)
  else
    (cd "$d" && mpirun --allow-run-as-root --oversubscribe -x STEPGEN_MPI_SHARE_DEVICES=1 -np "$ranks" \
       "$w/$program/periodic_coef" \
       "$@" --save A=A.raw --save B=B.raw >log.txt 2>&1)
  fi
  local rc=$?
  cp "$d/log.txt" "$out/$label.log" 2>/dev/null
  local same=yes
  for a in A B; do cmp -s "$d/$a.raw" "$gen/pocl/$a.raw" || same=no; done
  if [ $rc -eq 0 ] && [ $same = yes ]; then
    rows+=("| $label | exit 0, A and B: PoCL's bits |")
  else
    rows+=("| $label | FAIL: exit $rc, bits as PoCL's: $same |"); status=1
  fi
}
run incore cuda 0
run deep cuda-deep 0
run ooc-k3 cuda 0 --out-of-core on --ooc-chunks 3 --steps-per-pass 3
run ooc-k2-trapezoid-off cuda 0 --out-of-core on --ooc-chunks 2 --steps-per-pass 2 --trapezoid off
run deep-ooc-k2 cuda-deep 0 --out-of-core on --ooc-chunks 2 --steps-per-pass 2
run mpi2 cuda-mpi 2
run mpi2-ooc-k3 cuda-mpi 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 3
echo
echo "| run (CUDA, periodic x y, coefficient C read without a halo) | result |"
echo "| --- | --- |"
printf '%s\n' "${rows[@]}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
exit $status
