#!/usr/bin/env bash
# Phase `multi-gpu` (a machine with several GPUs, 4 x H200 for the rows of bench/README.md;
# after the `generate` phase here, carry bench/generated):
#   1. every example on all GPUs with --verify (all GPUs equal 1 GPU bit for bit), peer copies and
#      host staging (STEPGEN_CUDA_PEER=off);
#   2. issue 9: the partitioner's grid and its effect on all GPUs: heat3d 1024^3 and jacobi2d
#      20480^2 (1000 steps), slabs (the default, exchange overlapped) against the min-exchange grid
#      (fewest bytes, compute then exchange) and STEPOCL's rule;
#   3. out of core on all GPUs at once, each streaming its own part, against one GPU: acoustic
#      1160^3, 12 steps, 8 GiB budget per GPU, --out-of-core on (its 24.9 GB fit 4 GPUs' budgets:
#      without it the 4-GPU run was in core, 2026-11-28).
# PARTS (default "verify strategies ooc") picks the parts.
# The rest of a multi-GPU session are phases of their own: `check` (1 and 2 GPUs: run it with
# CUDA_VISIBLE_DEVICES=0,1), `incore` (strong and weak scaling), `mpi-opencl`, `mpi`.
# Logs go to $OUT (default /tmp/out); a short table last.   Usage: bench/run.sh multi-gpu
set -u
. "$(dirname "$0")/lib.sh"
mkdir -p "$out" "$work"
gpus=$(gpu_count)
[ "$gpus" -ge 2 ] || { echo "multi-gpu: needs 2+ GPUs ($gpus here)"; exit 1; }

# The time loop per step (kernels + exchange, GPU time of the busiest GPU) from a report.
loop_ms() {
  awk '/ for [0-9]+ steps/ {steps = $5} /^  kernels:/ {k = $2} /^  exchange:/ {x = $2}
       END {if (steps > 0) printf "%.4f", 1000 * (k + x) / steps; else print "?"}' "$1"
}
start=$SECONDS
parts=" ${PARTS:-verify strategies ooc} "
want() { [[ "$parts" == *" $1 "* ]]; }
for dir in "$root"/examples/*/; do
  ex=$(basename "$dir")
  [ -f "$dir/$ex.xml" ] || continue
  want verify || continue
  while [ "$(jobs -rp | wc -l)" -ge 4 ]; do wait -n; done
  build_cuda "$ex" 4 &
done
for name in heat3d_1024 jacobi2d_20480 acoustic_1160; do
  case $name in acoustic_1160) want ooc || continue ;; *) want strategies || continue ;; esac
  while [ "$(jobs -rp | wc -l)" -ge 4 ]; do wait -n; done
  build_cuda "$name" 4 &
done
wait
echo "built in $((SECONDS - start)) s"

# ---- 1. every example on all GPUs, --verify
checks=()
for dir in "$root"/examples/*/; do
  ex=$(basename "$dir")
  bin=$work/build-$ex/$ex
  [ -f "$dir/$ex.xml" ] || continue
  want verify || continue
  [ -x "$bin" ] || { checks+=("$ex: BUILD FAILED (build-$ex.log)"); continue; }
  for path in peer host; do
    env_peer=()
    [ $path = host ] && env_peer=(STEPGEN_CUDA_PEER=off)
    log="$out/verify$gpus-$ex-$path.log"
    env "${env_peer[@]}" "$bin" --devices "$gpus" --verify >"$log" 2>&1
    checks+=("$(printf '%-15s %-5s %-40s %s' "$ex" "$path" "$(grep -m1 -o 'verify: [A-Z]*.*bit for bit\|verify: FAILED.*' "$log" || echo "RUN FAILED: $(tail -1 "$log")")" "$(grep -m1 -o 'overlap: [a-z]*' "$log"), $(grep -m1 -o 'grid [0-9x]*' "$log" | head -1)")")
  done
done

# ---- 2. the partition strategies on all GPUs
rows=()
for name in heat3d_1024 jacobi2d_20480; do
  want strategies || continue
  bin=$work/build-$name/$name
  [ -x "$bin" ] || { rows+=("$name: not built"); continue; }
  for strategy in slabs min-exchange stepocl; do
    log="$out/strategy-$name-$strategy.log"
    "$bin" --devices "$gpus" --strategy "$strategy" >"$log" 2>&1
    rows+=("$(printf '%-15s %d GPUs %-13s %-12s %9s ms/step  %s' "$name" "$gpus" "$strategy" \
      "$(grep -m1 -o 'grid [0-9x]*' "$log" | head -1)" "$(loop_ms "$log")" \
      "$(grep -m1 -o 'exchanges [0-9]* bytes per step' "$log"); $(grep -m1 -o 'overlap: [a-z]*' "$log")")")
  done
done

# ---- 3. out of core on all GPUs at once against one GPU
bin=$work/build-acoustic_1160/acoustic_1160
if ! want ooc; then
  :
elif [ -x "$bin" ]; then
  for n in 1 "$gpus"; do
    log="$out/ooc-$n.log"
    timeout 240 "$bin" --devices "$n" --steps 12 --device-memory 8GiB --out-of-core on >"$log" 2>&1
    rows+=("$(printf 'acoustic 1160^3 out of core (8 GiB budget per GPU), %d GPU(s): %s; %s; %s' "$n" \
      "$(grep -m1 -o 'time: [0-9.]* s for [0-9]* steps ([0-9.]* ms/step)' "$log" || echo "FAILED: $(tail -1 "$log")")" \
      "$(grep -m1 -o '[0-9]* chunk(s)[^,]*, [0-9]* step(s) per pass' "$log")" "$(grep -m1 -o 'predicted.*' "$log")")")
  done
else
  rows+=("acoustic_1160: not built")
fi

echo
echo "== every example on $gpus GPUs, --verify ($gpus GPUs equal 1 GPU bit for bit), peer and host staging"
printf '%s\n' "${checks[@]}"
echo "== partition strategies on $gpus GPUs (1000 steps), out of core on $gpus GPUs"
printf '%s\n' "${rows[@]}"
