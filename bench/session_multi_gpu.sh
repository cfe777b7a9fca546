#!/usr/bin/env bash
# One batched session on a multi-GPU machine (4 x H200, nvidia-h200-x4), in three calls of the
# device tool (each under its 10-minute limit), after, here:
#   scripts/gen-gpu-trees.sh && bench/prepare_mpi_gpu.sh build     (carry bench/generated, .gpu)
# Usage, from the repository root there:
#   bash bench/session_multi_gpu.sh check   # issue 5: every example on 1 and 2 GPUs (peer, host
#                                           # staging, compute-sanitizer: bench/gpu_cuda_check.sh
#                                           # with GPUs 0,1), then every example on 4 GPUs --verify
#   bash bench/session_multi_gpu.sh bench   # bench/cuda_gpu.sh: copy bandwidth, 1-GPU ratios,
#                                           # 2-GPU efficiency, 4-GPU strong and weak scaling
#   bash bench/session_multi_gpu.sh more    # issue 9: the partitioner's grid and its effect, out of
#                                           # core on 4 GPUs at once; issue 8: bench/mpi_gpu.sh
# Logs go to $OUT (default /tmp/out); each phase prints a short table last.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/out}
work=/tmp/stepgen-cuda-check  # the builds of gpu_cuda_check.sh and cuda_gpu.sh
mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
cd "$root" || exit 1

# The time loop per step (kernels + exchange, GPU time of the busiest GPU) from a report.
loop_ms() {
  awk '/ for [0-9]+ steps/ {steps = $5} /^  kernels:/ {k = $2} /^  exchange:/ {x = $2}
       END {if (steps > 0) printf "%.4f", 1000 * (k + x) / steps; else print "?"}' "$1"
}

case ${1:-} in
check)
  CUDA_VISIBLE_DEVICES=0,1 bash bench/gpu_cuda_check.sh >"$out/check-2gpu.txt" 2>&1
  rows=()
  for bin in "$work"/build-*/; do
    ex=$(basename "$bin"); ex=${ex#build-}
    [ -f "examples/$ex/$ex.xml" ] && [ -x "$bin/$ex" ] || continue
    for path in peer host; do
      env_peer=()
      [ $path = host ] && env_peer=(STEPGEN_CUDA_PEER=off)
      log="$out/verify4-$ex-$path.log"
      env "${env_peer[@]}" "$bin/$ex" --devices 4 --verify >"$log" 2>&1
      rows+=("$(printf '%-15s %-5s %-40s %s' "$ex" "$path" "$(grep -m1 -o 'verify: [A-Z]*.*bit for bit\|verify: FAILED.*' "$log" || echo "RUN FAILED: $(tail -1 "$log")")" "$(grep -m1 -o 'overlap: [a-z]*' "$log"), $(grep -m1 -o 'grid [0-9x]*' "$log")")")
    done
  done
  tail -16 "$out/check-2gpu.txt"
  echo "== every example on 4 GPUs, --verify (4 GPUs equal 1 GPU bit for bit), peer and host staging"
  printf '%s\n' "${rows[@]}"
  ;;
bench)
  REPS=${REPS:-2} HREPS=${HREPS:-3} bash bench/cuda_gpu.sh >"$out/cuda_gpu.txt" 2>&1
  tail -45 "$out/cuda_gpu.txt"
  ;;
more)
  rows=()
  # The partitioner's grid on 4 GPUs and its effect: slabs (the default, exchange overlapped)
  # against the min-exchange grid (fewest bytes, compute then exchange) and STEPOCL's rule.
  for name in heat3d_1024 jacobi2d_20480; do
    bin=$work/build-$name/$name
    [ -x "$bin" ] || { rows+=("$name: not built"); continue; }
    for strategy in slabs min-exchange stepocl; do
      log="$out/strategy-$name-$strategy.log"
      "$bin" --devices 4 --strategy "$strategy" >"$log" 2>&1
      rows+=("$(printf '%-15s 4 GPUs %-13s %-12s %9s ms/step  %s' "$name" "$strategy" \
        "$(grep -m1 -o 'grid [0-9x]*' "$log")" "$(loop_ms "$log")" \
        "$(grep -m1 -o 'exchanges [0-9]* bytes per step' "$log"); $(grep -m1 -o 'overlap: [a-z]*' "$log")")")
    done
  done
  # Out of core on 4 GPUs at once, each streaming its own part, against one GPU.
  tree=bench/generated/cuda-acoustic_1160
  if [ -d "$tree" ]; then
    cmake -S "$tree" -B "$work/build-acoustic_1160" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native \
      >"$out/build-acoustic_1160.log" 2>&1 && cmake --build "$work/build-acoustic_1160" -j 8 >>"$out/build-acoustic_1160.log" 2>&1
    for n in 1 4; do
      log="$out/ooc4-$n.log"
      timeout 240 "$work/build-acoustic_1160/acoustic_1160" --devices "$n" --steps 12 --device-memory 8GiB >"$log" 2>&1
      rows+=("$(printf 'acoustic 1160^3 out of core (8 GiB budget per GPU), %d GPU(s): %s; %s' "$n" \
        "$(grep -m1 -o '([0-9.]* ms/step)' "$log")" "$(grep -m1 -o '[0-9]* chunk(s)[^,]*, [0-9]* step(s) per pass' "$log")")")
    done
  fi
  bash bench/mpi_gpu.sh >"$out/mpi_gpu.txt" 2>&1
  tail -25 "$out/mpi_gpu.txt"
  echo "== partition strategies on 4 GPUs (1000 steps), out of core on 4 GPUs"
  printf '%s\n' "${rows[@]}"
  ;;
*)
  echo "usage: bash bench/session_multi_gpu.sh check|bench|more" >&2
  exit 2
  ;;
esac
