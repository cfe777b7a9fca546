#!/usr/bin/env bash
# Phase `generate` (HERE): the CUDA programs the GPU phases build and run, into bench/generated/
# (ignored by git; carried to the GPU machine, whose image has nvcc and cmake but not the
# generator's libraries):
#   cuda-NAME/         every example, jacobi2d_16384 and the out-of-core acoustic benchmarks
#                      acoustic_1750 and acoustic_1160 (check builds every cuda-*: the examples
#                      against their references, jacobi2d_16384 as a benchmark);
#   bench/cuda-NAME/   the other specs of bench/specs/ (the `incore` phase's grids);
#   mpi-cuda/NAME/     the MPI + CUDA programs of every example and jacobi2d_16384 (`mpi`).
# Usage: bench/run.sh generate
set -euo pipefail
. "$(dirname "$0")/lib.sh"
stepgen=$(find_stepgen)
mkdir -p "$gen"
specs=()
for dir in "$root"/examples/*/; do
  ex=$(basename "$dir")
  [ -f "$dir/$ex.xml" ] && specs+=("$dir/$ex.xml")
done
specs+=("$root/bench/specs/jacobi2d_16384.xml")
# The out-of-core benchmarks of the ooc phases.
specs+=("$root/bench/specs/acoustic_1750.xml" "$root/bench/specs/acoustic_1160.xml")
for spec in "${specs[@]}"; do
  name=$(basename "$spec" .xml)
  rm -rf "$gen/cuda-$name"
  "$stepgen" generate "$spec" --target cuda -o "$gen/cuda-$name" >/dev/null
  echo "generated bench/generated/cuda-$name"
done
mkdir -p "$gen/bench"
for spec in "$root"/bench/specs/*.xml; do
  name=$(basename "$spec" .xml)
  case $name in jacobi2d_16384 | acoustic_1750 | acoustic_1160) continue ;; esac
  rm -rf "$gen/bench/cuda-$name"
  "$stepgen" generate "$spec" --target cuda -o "$gen/bench/cuda-$name" >/dev/null
  echo "generated bench/generated/bench/cuda-$name"
done
# The MPI + CUDA programs: every example and the 16384^2 Jacobi (a sub-folder: `check` does not
# build them).
mkdir -p "$gen/mpi-cuda"
for spec in "${specs[@]:0:$((${#specs[@]} - 2))}"; do  # the examples and jacobi2d_16384
  name=$(basename "$spec" .xml)
  rm -rf "$gen/mpi-cuda/$name"
  "$stepgen" generate "$spec" --target cuda --distribution mpi -o "$gen/mpi-cuda/$name" >/dev/null
  echo "generated bench/generated/mpi-cuda/$name"
done
du -sh "$gen"
