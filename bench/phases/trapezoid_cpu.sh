#!/usr/bin/env bash
# Phase `trapezoid-cpu` (HERE, no GPU): what each out-of-core chunk step computes, on a PoCL CPU device, where
# the run is compute-bound. The acoustic wave at 192^3 (bench/specs/acoustic_192.xml), 16
# steps, 4 chunks, k = 4 and 8, three ways, alternating, REPS runs each:
#   bands  the default: the trapezoid with band sharing (no cell computed twice in a pass);
#   trap   --band-sharing off: the trapezoid alone (the planes still read, overlapping chunks);
#   whole  --trapezoid off: every step over the whole load window.
# The saved arrays of all three must be equal bit for bit (the CI tests compare them with the
# serial reference too). Prints the time per step of every run and the medians.
# Usage: REPS=4 bench/run.sh trapezoid-cpu [BUILD_DIR]   (a built stepgen tree; default build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
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
    for v in bands trap whole; do
      case $v in
        bands) flags=() ;;
        trap) flags=(--band-sharing off) ;;
        whole) flags=(--trapezoid off) ;;
      esac
      mkdir -p "$work/$v"
      POCL_DEVICES=pthread "$prog" --device-type cpu --steps 16 --out-of-core on --ooc-chunks 4 \
        --steps-per-pass "$k" "${flags[@]}" --save "p0=$work/$v/p0.raw" --save "p1=$work/$v/p1.raw" \
        --save "p2=$work/$v/p2.raw" >"$work/log" 2>&1
      times[$v]+="$(grep -m1 -o '([0-9.]* ms/step' "$work/log" | tr -d '(' | cut -d' ' -f1) "
    done
    for a in p0 p1 p2; do
      for v in trap whole; do
        cmp -s "$work/bands/$a.raw" "$work/$v/$a.raw" || { echo "FAIL: k = $k: $v and bands differ in $a"; exit 1; }
      done
    done
  done
  b=$(echo ${times[bands]} | tr ' ' '\n' | median) t=$(echo ${times[trap]} | tr ' ' '\n' | median)
  w=$(echo ${times[whole]} | tr ' ' '\n' | median)
  echo "k = $k, 4 chunks: bands ${times[bands]}| trapezoid alone ${times[trap]}| whole window ${times[whole]}|" \
    "medians $b / $t / $w ms/step; bands $(awk -v a="$b" -v t="$t" -v w="$w" 'BEGIN {printf "%.2fx the trapezoid alone, %.2fx the whole window", t / a, w / a}')" \
    "(p0, p1, p2 equal bit for bit)"
  unset times
done
rm -rf "$work"
