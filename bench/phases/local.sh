#!/usr/bin/env bash
# Phase `local` (HERE): the parts of the GPU benchmarks that can be checked without a GPU (ctest
# runs them, label bench; see tests/bench.cmake):   bench/run.sh local MODE WORK ...
#   emulate WORK             jacobi2d_fast.cu's kernel run as C++ thread by thread on many grid
#                            shapes (8, 16 and 32 rows per thread), equal to the serial sweep
#   acoustic-omp WORK REF    bench/cpu/acoustic_omp at the example's size equals the serial
#                            reference REF (build/examples/reference_acoustic) bit for bit
#   nvcc WORK [NVCC]         every hand-written CUDA baseline compiles for sm_90 with warnings
#                            as errors (bench/cuda/build.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:?usage: bench/run.sh local emulate|acoustic-omp|nvcc WORK ...}
work=${2:?WORK folder}
mkdir -p "$work"
case $mode in
  emulate)
    for rows in 16 8 32; do
      g++ -std=c++17 -O1 -ffp-contract=off -Wall -Wextra -Werror -Wno-unknown-pragmas \
        -DJACOBI_FAST_ROWS=$rows -I "$root/runtime/include" "$root/bench/cuda/emulate_jacobi2d_fast.cpp" \
        -o "$work/emulate_rows$rows"
      "$work/emulate_rows$rows"
    done
    ;;
  acoustic-omp)
    ref=${3:?reference_acoustic binary}
    g++ -std=c++17 -O3 -march=native -fopenmp -ffp-contract=off -Wall -Wextra -Werror \
      -I "$root/runtime/include" "$root/bench/cpu/acoustic_omp.cpp" -o "$work/acoustic_omp"
    rm -rf "$work/omp" "$work/ref"
    mkdir -p "$work/omp" "$work/ref"
    "$work/acoustic_omp" 64 56 48 10 2 --out "$work/omp"
    "$ref" --out "$work/ref" >/dev/null
    for a in p0 p1 p2; do
      cmp "$work/omp/$a.raw" "$work/ref/$a.raw" || { echo "FAIL: acoustic_omp's $a differs from the reference"; exit 1; }
    done
    echo "ok: acoustic_omp (2 threads) equals reference_acoustic (p0 p1 p2, 10 steps)"
    # Bad arguments: usage and status 2.
    if "$work/acoustic_omp" 64 56 >/dev/null 2>&1; then echo "FAIL: missing arguments accepted"; exit 1; fi
    if "$work/acoustic_omp" 64 56 48 x 2 >/dev/null 2>&1; then echo "FAIL: bad STEPS accepted"; exit 1; fi
    echo "ok: acoustic_omp refuses bad arguments"
    ;;
  nvcc)
    NVCC=${3:-${NVCC:-}} JOBS=2 "$root/bench/cuda/build.sh" "$work/bin" sm_90
    ;;
  *)
    echo "unknown mode '$mode'" >&2
    exit 2
    ;;
esac
