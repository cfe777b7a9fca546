#!/usr/bin/env bash
# Phase `ooc-2gpu` (a GPU machine with 2+ GPUs, after the `generate` phase here; carry
# bench/generated): out of core on 1 GPU and on 2 GPUs at once (each streaming its
# own half), the 25-point acoustic wave at 1160^3 (4 float arrays, 23.3 GiB of host data),
# 24 steps, under an 8 GiB budget per GPU:
#  0. correctness first: the acoustic example forced out of core on 2 GPUs (k = 1, 2, 5, region
#     sharing on and off, naive) and acoustic 1160^3 on 2 GPUs (snapshots large enough for the
#     threaded copy), each with --verify (bit for bit against the in-core run on one GPU);
#  1. the model's choice on 1 and on 2 GPUs (REPS runs each, median), with the link measured
#     at start-up by one GPU alone and by both at once, the prediction and the link bound;
#  2. a sweep of chunks (9, 18, 36 per GPU) x steps_per_pass (4, 8, 12) on 2 GPUs, one run each, to set the model's choice against the best.
# SWEEP=0 skips 2; TIMING=0 skips 1 and 2. Prints a table last; logs go to $OUT (default /tmp/out).
# Usage: bench/run.sh ooc-2gpu
set -u
. "$(dirname "$0")/lib.sh"
reps=${REPS:-2}
mkdir -p "$out" "$work"
for name in acoustic_1160 acoustic; do
  build_cuda "$name" 16 || { echo "BUILD FAILED"; tail -20 "$out/build-$name.log"; exit 1; }
done
bin=$work/build-acoustic_1160/acoustic_1160
checks=()
# Each GPU's part is 24 planes and a chunk must own k x 4 of them: 2 chunks of k = 2, 1 of k = 5.
for args in "--ooc-chunks 4 --steps-per-pass 1" "--ooc-chunks 2 --steps-per-pass 2" \
  "--ooc-chunks 1 --steps-per-pass 5" "--ooc-chunks 2 --steps-per-pass 2 --region-sharing off" \
  "--ooc-chunks 3 --steps-per-pass 1 --region-sharing off --overlap off"; do
  log="$out/check.log"
  timeout 60 "$work/build-acoustic/acoustic" --devices 2 --out-of-core on $args --verify >"$log" 2>&1
  checks+=("acoustic, 2 GPUs, $args: $(grep -m1 -o 'verify: [A-Z]*' "$log" || echo "verify: RUN FAILED: $(tail -1 "$log")")")
done
timeout 180 "$bin" --devices 2 --steps 24 --device-memory 8GiB --verify >"$out/check.log" 2>&1
checks+=("acoustic 1160^3, 2 GPUs, 8 GiB each, model: $(grep -m1 -o 'verify: [A-Z]*' "$out/check.log" || echo "verify: RUN FAILED: $(tail -1 "$out/check.log")")")
printf '%s\n' "${checks[@]}" | tee "$out/checks.txt"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader >"$out/machine.txt" 2>&1
rows=()
one() {  # one NAME ARGS...: run once, log to $out/NAME.log, echo ms/step
  local name=$1; shift
  timeout 120 "$bin" --steps 24 --device-memory 8GiB "$@" >"$out/$name.log" 2>&1
  grep -m1 -o 'time: [0-9.]* s for [0-9]* steps ([0-9.]*' "$out/$name.log" | sed 's/.*(//'
}
row() {  # row NAME ARGS...: REPS runs, the median, and what the last report says
  local name=$1; shift
  local times=() r t
  for r in $(seq 1 "$reps"); do
    t=$(one "$name-$r" "$@"); times+=("${t:-FAIL}")
  done
  local med log=$out/$name-$reps.log
  med=$(printf '%s\n' "${times[@]}" | grep -v FAIL | sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "FAIL"}')
  rows+=("$(printf '%-28s %9s ms/step (runs: %s); %s; %s; %s' "$name" "$med" "${times[*]}" \
    "$(grep -m1 -o '[0-9]* chunk(s)[^,]*, [0-9]* step(s) per pass[^,]*' "$log")" \
    "$(grep -m1 -o 'predicted [0-9.]* s' "$log")" "$(grep -m1 -o 'link bound.*' "$log")")")
  grep -m1 'link, ' "$log" >>"$out/links.txt"
  grep -m1 'link (measured' "$log" >>"$out/links.txt"
}
[ "${TIMING:-1}" = 0 ] && exit 0
row "1gpu-model" --devices 1
row "2gpu-model" --devices 2
reps=1  # the sweep: one run each
[ "${SWEEP:-1}" = 0 ] || for c in 9 18 36; do
  for k in 4 8 12; do
    row "2gpu-c$c-k$k" --devices 2 --ooc-chunks "$c" --steps-per-pass "$k"
  done
done
echo "== acoustic 1160^3 out of core, 24 steps, 8 GiB budget per GPU (time loop; model rows: median of ${REPS:-2})"
sort -u "$out/links.txt"
printf '%s\n' "${rows[@]}" | tee "$out/table.txt"
echo "== correctness"
cat "$out/checks.txt"
