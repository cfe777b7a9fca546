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
# the first table says predicted against measured. REPS runs each (default 1: one run is
# about 2-20 s; the median is kept).
# Time to solution (issue 26): also the two-kernel 3D wave bench/unseen/wave2k_512 (40 steps),
# and a second table: per program, the bound "kernel time + bytes that must move / measured
# pinned link" (the in-core run's `kernels:` seconds and `host<->device` bytes, over the mean
# of the link's two directions measured at start-up, from its report) against each mode's
# whole run (the report's `time:`: uploads, time loop and downloads; target within 5%) and the
# process's wall time (start-up included) and peak resident memory (`auto`'s start-up: the
# calibration on samples, issue 26). The programs come from `bench/run.sh tts-generate`
# (bench/generated/tts: CUDA trees and the OpenCL programs, a small carry) or, as before, from
# `generate` / `prepare`.
# Usage: bench/run.sh oocauto
set -u
. "$(dirname "$0")/lib.sh"
mkdir -p "$out" "$work"
reps=${REPS:-1}
export LD_LIBRARY_PATH=$gen/tts/opencl/lib:$gen/opencl/lib:${LD_LIBRARY_PATH:-}
register_nvidia_opencl
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
build_cuda jacobi2d_16384 8 &
build_cuda acoustic_512 8 &
build_cuda wave2k_512 8 &
wait

rows=()
# run BACKEND NAME STEPS MODE: REPS runs, the median wall and loop seconds, the predictions.
run() {
  local be=$1 n=$2 steps=$3 mode=$4 bin log i t0 t1 walls=() loops=()
  if [ "$be" = cuda ]; then bin=$work/build-$n/$n; else bin=$gen/opencl/bin/$n; fi
  [ "$be" = opencl ] && [ ! -x "$bin" ] && bin=$gen/tts/opencl/bin/$n
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
    walls+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')")
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
  # Time to solution: the last run's report (time:, kernels:, host<->device bytes and link).
  tts_wall[$be-$n-$steps-$mode]=$wall
  tts_rss[$be-$n-$steps-$mode]=$(sed -n 's/^peak resident memory: \(.*\)$/\1/p' "$log" | head -1)
  tts[$be-$n-$steps-$mode]=$(report_figures "$log")
}
# report_figures LOG: "TIME KERNELS BYTES H2D_GBPS D2H_GBPS" from a run's report ("-" where absent).
report_figures() {
  awk '
    /^time:/ && t == "" { t = $2 }
    /^  kernels: / && k == "" { k = $2 }
    /^  host<->device:/ && b == "" {
      for (i = 1; i <= NF; ++i) if ($i == "moved") { v = $(i - 2); u = $(i - 1) }
      m = (u == "B") ? 1 : (u == "KiB") ? 1024 : (u == "MiB") ? 1048576 : (u == "GiB") ? 1073741824 : 1099511627776
      b = sprintf("%.0f", v * m)
      if (match($0, /start-up: [0-9.]+ GB\/s to the devices, [0-9.]+ GB\/s back/)) {
        split(substr($0, RSTART, RLENGTH), w, " "); up = w[2]; down = w[7]
      }
    }
    END { printf "%s %s %s %s %s\n", t == "" ? "-" : t, k == "" ? "-" : k, b == "" ? "-" : b, up == "" ? "-" : up, down == "" ? "-" : down }' "$1"
}
declare -A tts tts_wall tts_rss
for be in cuda opencl; do
  for mode in off on auto; do
    run $be jacobi2d_16384 1000 $mode
    run $be jacobi2d_16384 100 $mode
    run $be acoustic_512 500 $mode
    run $be wave2k_512 40 $mode
  done
done

echo
echo "oocauto: in core vs out of core vs --out-of-core auto ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), REPS=$reps, median)"
echo "| backend | program | steps | --out-of-core | whole run s | time loop s | predicted loop s | auto: predicted in / out of core s | out-of-core split (kernels, loads, stores s; latency) | auto took |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
echo "time to solution (issue 26): whole run (the report's time: uploads + time loop + downloads) against kernels + bytes / link, both from the in-core run's report (link: the mean of its two directions measured at start-up); target within 5%"
echo "| backend | program | steps | in-core kernels s | bytes moved | link GB/s (h2d, d2h) | bound s | --out-of-core | whole run s | whole / bound | process wall s | peak resident |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for be in cuda opencl; do
  for ns in jacobi2d_16384:1000 jacobi2d_16384:100 acoustic_512:500 wave2k_512:40; do
    n=${ns%%:*} steps=${ns##*:}
    read -r _ k b up down <<<"${tts[$be-$n-$steps-off]:-- - - - -}"
    bound=$(awk -v k="$k" -v b="$b" -v u="$up" -v d="$down" 'BEGIN {if (k+0 > 0 && b != "-" && u+0 > 0 && d+0 > 0) printf "%.6f", k + b / ((u + d) / 2 * 1e9); else print "-"}')
    gib=$(awk -v b="$b" 'BEGIN {if (b != "-") printf "%.2f GiB", b / 1073741824; else print "-"}')
    for mode in off on auto; do
      read -r t _ <<<"${tts[$be-$n-$steps-$mode]:-- -}"
      ratio=$(awk -v t="$t" -v b="$bound" 'BEGIN {if (t+0 > 0 && b+0 > 0) printf "%.3f", t / b; else print "-"}')
      echo "| $be | $n | $steps | $k | $gib | $up, $down | $bound | $mode | $t | $ratio | ${tts_wall[$be-$n-$steps-$mode]:--} | ${tts_rss[$be-$n-$steps-$mode]:--} |"
    done
  done
done
