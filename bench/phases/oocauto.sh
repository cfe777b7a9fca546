#!/usr/bin/env bash
# Phase `oocauto` (GPU machine, after `generate` here; carry bench/generated): issue 26's
# `--out-of-core auto` on data that fits. Jacobi 16384^2 (1000 and 100 steps) and acoustic 512^3
# (500 steps), CUDA, one GPU, each run in core (--out-of-core off), out of core (on) and auto
# (`--out-of-core auto` given: the program predicts the in-core run and the best out-of-core plan
# and takes the faster); the OpenCL programs too where `prepare` built them
# (bench/generated/opencl/bin). Per run: the whole run's wall time (the process, start-up
# included), the time loop's (the report's `time:`), the model's prediction of the time loop
# (out of core: `predicted X s`; auto: both of its line), the out-of-core split (kernels, loads,
# stores from events around each command) and which mode auto took. Speeds are never asserted;
# the table (last) says predicted against measured. REPS runs each (default 1: one run is
# about 2-20 s; the median is kept).
# Usage: bench/run.sh oocauto
set -u
. "$(dirname "$0")/lib.sh"
mkdir -p "$out" "$work"
reps=${REPS:-1}
register_nvidia_opencl
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
build_cuda jacobi2d_16384 8 &
build_cuda acoustic_512 8 &
wait

rows=()
# run BACKEND NAME STEPS MODE: REPS runs, the median wall and loop seconds, the predictions.
run() {
  local be=$1 n=$2 steps=$3 mode=$4 bin log i t0 t1 walls=() loops=()
  if [ "$be" = cuda ]; then bin=$work/build-$n/$n; else bin=$gen/opencl/bin/$n; fi
  if [ ! -x "$bin" ]; then
    rows+=("| $be | $n | $steps | $mode | not built | | | | | |")
    return
  fi
  for i in $(seq "$reps"); do
    log=$out/$be-$n-$steps-$mode-$i.log
    t0=$(date +%s.%N)
    if ! "$bin" --device-type gpu --steps "$steps" --out-of-core "$mode" >"$log" 2>&1; then
      rows+=("| $be | $n | $steps | $mode | FAILED: $(tail -1 "$log") | | | | | |")
      return
    fi
    t1=$(date +%s.%N)
    walls+=("$(echo "$t1 - $t0" | bc -l)")
    loops+=("$(awk '/^time:/ {print $2; exit}' "$log")")
  done
  local wall loop pred chose split auto_in auto_out
  wall=$(printf '%s\n' "${walls[@]}" | median)
  loop=$(printf '%s\n' "${loops[@]}" | median)
  pred=$(sed -n 's/^  predicted \([0-9.]*\) s, measured.*/\1/p' "$log" | head -1)
  chose=-
  auto_in=-
  auto_out=-
  if grep -q "^out of core: auto -> " "$log"; then
    chose=$(sed -n 's/^out of core: auto -> \(in core\|out of core\) .*/\1/p' "$log" | head -1)
    auto_in=$(sed -n 's/^out of core: auto -> .*(predicted \([0-9.]*\) s vs \([0-9.]*\) s \(in core\|out of core\).*/\1 \2 \3/p' "$log" |
      awk '{ if ($3 == "in") print $2; else print $1 }')
    auto_out=$(sed -n 's/^out of core: auto -> .*(predicted \([0-9.]*\) s vs \([0-9.]*\) s \(in core\|out of core\).*/\1 \2 \3/p' "$log" |
      awk '{ if ($3 == "in") print $1; else print $2 }')
    [ -n "$pred" ] || pred=$auto_in
  fi
  split=$(sed -n 's/^  split .*: kernels \([0-9.]*\) s .*, loads \([0-9.]*\) s, stores \([0-9.]*\) s; per-command latency \([0-9.]*\) us.*/k \1 l \2 s \3 lat \4us/p' "$log" | head -1)
  rows+=("| $be | $n | $steps | $mode | $wall | $loop | ${pred:--} | $auto_in / $auto_out | ${split:--} | $chose |")
}
for be in cuda opencl; do
  for mode in off on auto; do
    run $be jacobi2d_16384 1000 $mode
    run $be jacobi2d_16384 100 $mode
    run $be acoustic_512 500 $mode
  done
done

echo
echo "oocauto: in core vs out of core vs --out-of-core auto ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), REPS=$reps, median)"
echo "| backend | program | steps | --out-of-core | whole run s | time loop s | predicted loop s | auto: predicted in / out of core s | out-of-core split (kernels, loads, stores s; latency) | auto took |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
