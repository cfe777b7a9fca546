#!/usr/bin/env bash
# Runs HERE (no GPU): the out-of-core trapezoid on a PoCL CPU device, where the run is
# compute-bound. The acoustic wave at 192^3 (bench/specs/acoustic_192.xml), 16 steps, 4 chunks,
# k = 4 and 8, every step over the whole load window (--trapezoid off) against only the planes
# still read (--trapezoid on), alternating, REPS runs each; the saved arrays of both must be
# equal bit for bit (the CI tests compare them with the serial reference too). Prints the time per step of every run and the medians.
# Usage: REPS=4 bash bench/trapezoid_cpu.sh [BUILD_DIR]   (a built stepgen tree; default build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
work=$(mktemp -d)
reps=${REPS:-4}
"$build/stepgen" generate "$root/bench/specs/acoustic_192.xml" --target opencl -o "$work/gen" >/dev/null
cmake -S "$work/gen" -B "$work/gen/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/gen/build" -j 2 >/dev/null
prog=$work/gen/build/acoustic_192
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for k in 4 8; do
  declare -A times=()
  for r in $(seq "$reps"); do
    for tz in on off; do
      mkdir -p "$work/$tz"
      POCL_DEVICES=pthread "$prog" --device-type cpu --steps 16 --out-of-core on --ooc-chunks 4 \
        --steps-per-pass "$k" --trapezoid "$tz" --save "p0=$work/$tz/p0.raw" --save "p1=$work/$tz/p1.raw" --save "p2=$work/$tz/p2.raw" >"$work/log" 2>&1
      times[$tz]+="$(grep -m1 -o '([0-9.]* ms/step' "$work/log" | tr -d '(' | cut -d' ' -f1) "
    done
    for a in p0 p1 p2; do
      cmp -s "$work/on/$a.raw" "$work/off/$a.raw" || { echo "FAIL: k = $k: the trapezoid changed $a"; exit 1; }
    done
  done
  on=$(echo ${times[on]} | tr ' ' '\n' | median) off=$(echo ${times[off]} | tr ' ' '\n' | median)
  echo "k = $k, 4 chunks: trapezoid on ${times[on]}| off ${times[off]}| medians $on / $off ms/step," \
    "$(awk -v a="$on" -v b="$off" 'BEGIN {printf "%.2fx", b / a}') (p0, p1, p2 equal bit for bit)"
  unset times
done
rm -rf "$work"
