#!/usr/bin/env bash
# Generates, here, the CUDA programs that bench/gpu_cuda_check.sh builds and runs on a GPU
# machine (whose image has nvcc and cmake but not the generator's libraries): every example and
# the 16384^2 Jacobi benchmark and the out-of-core acoustic benchmarks, into bench/generated/cuda-<name>/. The trees are plain files that
# travel with the working tree (bench/generated/ is deliberately not ignored by git).
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
du -sh "$out"
