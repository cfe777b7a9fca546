#!/usr/bin/env bash
# Issue 26, in core: the host arrays are page-locked (--pinned on, the default) and the report
# prints the host<->device GB/s against the link measured at start-up; --pinned off gives
# pageable arrays and says so; both give the same bits (and --verify equals one device);
# --quiet measures nothing and prints no report; the set-up line's parts add up to its total,
# a part of time:. jacobi2d on 2 PoCL devices.
# Usage: pinned_report_test.sh STEPGEN SOURCE_DIR WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
"$stepgen" generate "$src/examples/jacobi2d/jacobi2d.xml" --target opencl -o "$work/out" >/dev/null
build_program "$work/out"
prog="$work/out/build/jacobi2d"
export POCL_DEVICES="pthread pthread"
run=(--device-type cpu --devices 2 --steps 20)

fail() { cat "$work/$1.txt"; echo "FAIL: $2"; exit 1; }
"$prog" "${run[@]}" --save "A=$work/A-pinned.raw" --verify > "$work/pinned.txt" 2>&1 ||
  fail pinned "the run with page-locked arrays failed"
grep -qE '^  host<->device: [0-9.]+ s, .* moved \([0-9.]+ GB/s; link measured at start-up: [0-9.]+ GB/s to the devices, [0-9.]+ GB/s back\)$' "$work/pinned.txt" ||
  fail pinned "no host<->device line with the link measured at start-up"
grep -qx '  host arrays:  page-locked' "$work/pinned.txt" || fail pinned "the arrays are not page-locked"
# The set-up line: its parts add up to its total, which is part of time: (the run's fixed cost).
awk '/^time:/ {t = $2}
     /^  set-up: / {n++; s = $2; sum = $9 + $17 + $21
       if ($8 != "buffers" || $11 != "initial" || $20 != "frames") bad = 1}
     END {exit !(n == 1 && !bad && s >= 0 && s <= t && (sum - s < 2e-6 && s - sum < 2e-6))}' "$work/pinned.txt" ||
  fail pinned "no set-up line, or its parts do not add up to its total within time:"
grep -q '^verify: OK' "$work/pinned.txt" || fail pinned "--verify did not pass"
echo "ok: page-locked: $(grep -e 'host<->device' "$work/pinned.txt")"

"$prog" "${run[@]}" --pinned off --save "A=$work/A-pageable.raw" > "$work/pageable.txt" 2>&1 ||
  fail pageable "the run with --pinned off failed"
grep -qx '  host arrays:  pageable (--pinned off)' "$work/pageable.txt" ||
  fail pageable "--pinned off: the report does not say the arrays are pageable"
grep -q 'link measured at start-up' "$work/pageable.txt" ||
  fail pageable "--pinned off: the link is not measured"
cmp "$work/A-pinned.raw" "$work/A-pageable.raw" || { echo "FAIL: page-locked and pageable runs differ"; exit 1; }
[ -n "$(tr -d '\000' < "$work/A-pinned.raw" | head -c 1)" ] || { echo "FAIL: A is all zeros"; exit 1; }
echo "ok: --pinned off: pageable, the same bits"

"$prog" "${run[@]}" --quiet > "$work/quiet.txt" 2>&1 || fail quiet "the --quiet run failed"
if grep -q -e 'link measured' -e 'host arrays' "$work/quiet.txt"; then fail quiet "--quiet printed the report"; fi
echo "ok: --quiet: no report"
