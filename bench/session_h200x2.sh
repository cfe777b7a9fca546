#!/usr/bin/env bash
# One batched session on the two-H200 machine (nvidia-h200-x2), in three calls of the device tool
# (each under its 10-minute limit), after, here:
#   scripts/gen-gpu-trees.sh && bench/prepare_mpi_gpu.sh build     (carry bench/generated, .gpu)
# Usage, from the repository root there:
#   bash bench/session_h200x2.sh cuda   # issue 5: bench/cuda_gpu.sh (2-GPU efficiency, 1-GPU
#                                       # ratios), then bench/gpu_cuda_check.sh (every example on
#                                       # 1 and 2 GPUs, peer and host staging, compute-sanitizer)
#   bash bench/session_h200x2.sh mpi    # issue 8: bench/mpi_gpu.sh (MPI OpenCL); issue 9's 2-GPU
#                                       # part: out of core on 2 GPUs at once against 1 GPU
#   bash bench/session_h200x2.sh mpicuda  # issue 8: bench/mpi_cuda_gpu.sh (MPI CUDA)
# Everything goes to $OUT (default /tmp/out) as at most 8 files (the device tool's limit): the
# phase's text outputs and one logs-PHASE.tgz; each phase prints a short table last.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/out}
logs=/tmp/session-logs
work=/tmp/stepgen-cuda-check  # the builds of gpu_cuda_check.sh and cuda_gpu.sh
mkdir -p "$out" "$logs"
export PATH=$PATH:/usr/local/cuda/bin
cd "$root" || exit 1

case ${1:-} in
cuda)
  OUT=$logs/cuda MAX_GPUS=2 REPS=${REPS:-3} HREPS=${HREPS:-3} timeout 420 bash bench/cuda_gpu.sh >"$out/cuda_gpu.txt" 2>&1
  OUT=$logs/check timeout 150 bash bench/gpu_cuda_check.sh >"$out/check.txt" 2>&1
  cp "$logs/cuda/machine.txt" "$out/" 2>/dev/null
  tar czf "$out/logs-cuda.tgz" -C "$logs" . 2>/dev/null
  tail -20 "$out/check.txt"
  tail -30 "$out/cuda_gpu.txt"
  ;;
mpi)
  OUT=$logs/mpi timeout 170 bash bench/mpi_gpu.sh >"$out/mpi_gpu.txt" 2>&1
  # Out of core on 2 GPUs at once, each streaming its own part, against one GPU (issue 9's
  # 4-GPU row, on the GPUs lent).
  rows=()
  tree=bench/generated/cuda-acoustic_1160
  if [ -d "$tree" ]; then
    cmake -S "$tree" -B "$work/build-acoustic_1160" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native \
      >"$logs/build-acoustic_1160.log" 2>&1 && cmake --build "$work/build-acoustic_1160" -j 16 >>"$logs/build-acoustic_1160.log" 2>&1
    for n in 1 2; do
      log="$logs/ooc-$n.log"
      timeout 90 "$work/build-acoustic_1160/acoustic_1160" --devices "$n" --steps 24 --device-memory 8GiB >"$log" 2>&1
      rows+=("$(printf 'acoustic 1160^3 out of core (8 GiB budget per GPU), %d GPU(s): %s; %s; %s' "$n" \
        "$(grep -m1 -o 'time: [0-9.]* s for [0-9]* steps ([0-9.]* ms/step)' "$log" || echo "FAILED: $(tail -1 "$log")")" \
        "$(grep -m1 -o '[0-9]* chunk(s)[^,]*, [0-9]* step(s) per pass' "$log")" "$(grep -m1 -o 'predicted.*' "$log")")")
    done
  fi
  tar czf "$out/logs-mpi.tgz" -C "$logs" . 2>/dev/null
  tail -16 "$out/mpi_gpu.txt"
  echo "== out of core on 1 and 2 GPUs at once"
  printf '%s\n' "${rows[@]}"
  ;;
mpicuda)
  OUT=$logs/mpi-cuda timeout 540 bash bench/mpi_cuda_gpu.sh >"$out/mpi_cuda_gpu.txt" 2>&1
  tar czf "$out/logs-mpicuda.tgz" -C "$logs" . 2>/dev/null
  tail -30 "$out/mpi_cuda_gpu.txt"
  ;;
*)
  echo "usage: bash bench/session_h200x2.sh cuda|mpi|mpicuda" >&2
  exit 2
  ;;
esac
