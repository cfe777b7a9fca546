#!/usr/bin/env bash
# Builds the hand-written CUDA baselines of bench/cuda/ (and the bandwidth probe) into OUTDIR,
# with the generated CMakeLists.txt's flags: -O3, --fmad=false (bit-exact arithmetic, as the
# generated programs are built), host and device warnings as errors. ARCH is an nvcc
# architecture: native (the GPUs of this machine; the default) or sm_90 where no GPU is present.
# Builds run 4 at a time. Also builds the jacobi2d_fast variants with 8 and 32 rows per thread
# (tuning aids; the example and its spec use 16).
# Usage: bench/cuda/build.sh OUTDIR [ARCH]   (NVCC=path to choose the compiler)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: build.sh OUTDIR [ARCH]}
arch=${2:-native}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$out"
flags=(-O3 -std=c++17 -arch="$arch" --fmad=false -I "$root/runtime/include" -Xcompiler=-Wall,-Wextra,-Werror
       -Werror all-warnings)
build() {  # build NAME SOURCE [EXTRA FLAGS...]
  local name=$1 src=$2; shift 2
  if "$nvcc" "${flags[@]}" "$@" "$src" -o "$out/$name" >"$out/$name.build.log" 2>&1; then
    echo "built $name"
  else
    echo "FAILED $name:"; cat "$out/$name.build.log"; touch "$out/$name.failed"
  fi
}
targets=(
  "handwritten_jacobi2d $here/handwritten_jacobi2d.cu"
  "handwritten_jacobi2d_fast $here/handwritten_jacobi2d_fast.cu"
  "handwritten_jacobi2d_fast_rows8 $here/handwritten_jacobi2d_fast.cu -DJACOBI_FAST_ROWS=8"
  "handwritten_jacobi2d_fast_rows32 $here/handwritten_jacobi2d_fast.cu -DJACOBI_FAST_ROWS=32"
  "handwritten_heat3d $here/handwritten_heat3d.cu"
  "handwritten_acoustic $here/handwritten_acoustic.cu"
  "acoustic_blocks $here/acoustic_blocks.cu"
  "handwritten_jacobi2d_2gpu $here/handwritten_jacobi2d_2gpu.cu"
  "bandwidth $here/bandwidth.cu"
  "setup_parts $here/setup_parts.cu"
)
jobs=${JOBS:-4}
rm -f "$out"/*.failed
for t in "${targets[@]}"; do
  # shellcheck disable=SC2086
  set -- $t
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  build "$@" &
done
wait
! ls "$out"/*.failed >/dev/null 2>&1
