#!/usr/bin/env bash
# Generates, here, the CUDA programs that bench/gpu_cuda_check.sh builds and runs on a GPU
# machine (whose image has nvcc and cmake but not the generator's libraries): every example and
# the 16384^2 Jacobi benchmark and the out-of-core acoustic benchmarks of bench/ooc_gpu.sh, into
# bench/generated/cuda-<name>/, and the other benchmark specs
# of bench/specs/ (those bench/cuda_gpu.sh runs) into bench/generated/bench/cuda-<name>/ (a
# sub-folder, so that gpu_cuda_check.sh does not build them), and the MPI + CUDA programs of
# bench/mpi_cuda_gpu.sh (every example and the 16384^2 Jacobi) into bench/generated/mpi-cuda/<name>/. The trees are plain files that
# travel to the GPU machine through the run tool's carry (bench/generated/ is ignored by git).
# Usage: scripts/gen-gpu-trees.sh [STEPGEN]   (default: build/stepgen, else build-*/stepgen)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
stepgen=${1:-}
if [ -z "$stepgen" ]; then
  for s in "$root"/build/stepgen "$root"/build-*/stepgen; do
    [ -x "$s" ] && { stepgen=$s; break; }
  done
fi
[ -n "$stepgen" ] && [ -x "$stepgen" ] || { echo "gen-gpu-trees: no stepgen binary (build first, or pass its path)" >&2; exit 2; }
out=$root/bench/generated
mkdir -p "$out"
specs=()
for dir in "$root"/examples/*/; do
  ex=$(basename "$dir")
  [ -f "$dir/$ex.xml" ] && specs+=("$dir/$ex.xml")
done
specs+=("$root/bench/specs/jacobi2d_16384.xml")
# The out-of-core benchmarks of bench/ooc_gpu.sh.
specs+=("$root/bench/specs/acoustic_1750.xml" "$root/bench/specs/acoustic_1160.xml")
for spec in "${specs[@]}"; do
  name=$(basename "$spec" .xml)
  rm -rf "$out/cuda-$name"
  "$stepgen" generate "$spec" --target cuda -o "$out/cuda-$name" >/dev/null
  echo "generated bench/generated/cuda-$name"
done
mkdir -p "$out/bench"
for spec in "$root"/bench/specs/*.xml; do
  name=$(basename "$spec" .xml)
  case $name in jacobi2d_16384 | acoustic_1750 | acoustic_1160) continue ;; esac
  rm -rf "$out/bench/cuda-$name"
  "$stepgen" generate "$spec" --target cuda -o "$out/bench/cuda-$name" >/dev/null
  echo "generated bench/generated/bench/cuda-$name"
done
# The MPI + CUDA programs of bench/mpi_cuda_gpu.sh: every example and the 16384^2 Jacobi, into
# bench/generated/mpi-cuda/<name>/ (a sub-folder: gpu_cuda_check.sh does not build them).
mkdir -p "$out/mpi-cuda"
for spec in "${specs[@]:0:$((${#specs[@]} - 2))}"; do  # the examples and jacobi2d_16384
  name=$(basename "$spec" .xml)
  rm -rf "$out/mpi-cuda/$name"
  "$stepgen" generate "$spec" --target cuda --distribution mpi -o "$out/mpi-cuda/$name" >/dev/null
  echo "generated bench/generated/mpi-cuda/$name"
done
du -sh "$out"
