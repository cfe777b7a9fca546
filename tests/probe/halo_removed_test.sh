#!/usr/bin/env bash
# The kernel probe catches a declared halo that is too small: for every example, one point of
# one haloed argument (or one width of a halo_lo/halo_hi box) is removed from the spec;
# `stepgen check --probe` must refuse it with a located error, and the OpenCL program,
# generated, built and run on PoCL, must stop before the time loop with an error naming the
# kernel, the array and an offset it reads. The unmodified spec's
# program runs (the probe finds its halos right). --probe off must skip the check.
# Usage: halo_removed_test.sh STEPGEN SOURCE_DIR WORK_DIR [EXAMPLES...]
set -uo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 src=$2 work=$3
shift 3
examples=("$@")
if [ ${#examples[@]} -eq 0 ]; then
  for spec in "$src"/examples/*/*.xml; do examples+=("$(basename "$spec" .xml)"); done
fi
export POCL_MAX_PTHREAD_COUNT=${POCL_MAX_PTHREAD_COUNT:-2}
mkdir -p "$work"
failures=0
for ex in "${examples[@]}"; do
  dir=$work/$ex
  rm -rf "$dir"
  mkdir -p "$dir/spec"
  cp -r "$src/examples/$ex/." "$dir/spec/"
  # Remove one halo point (or shrink one width) of the first argument that has a halo.
  removed=$(python3 - "$dir/spec/$ex.xml" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
m = re.search(r'halo="([^"]+)"', text)
if m:
    points = m.group(1).split()
    # Keep the origin; remove the last point that is not it.
    for i in range(len(points) - 1, -1, -1):
        if any(int(v) != 0 for v in points[i].strip('{}').split(',')):
            gone = points.pop(i)
            break
    text = text[:m.start(1)] + " ".join(points) + text[m.end(1):]
    print("point " + gone)
else:
    m = re.search(r'halo_hi="([^"]+)"', text)
    widths = m.group(1).split()
    d = max(range(len(widths)), key=lambda i: int(widths[i]))
    widths[d] = str(int(widths[d]) - 1)
    text = text[:m.start(1)] + " ".join(widths) + text[m.end(1):]
    print("halo_hi width of dimension %d" % d)
open(path, "w").write(text)
PY
  )
  # stepgen check --probe finds it at check time, located at the kernel (PoCL).
  "$stepgen" check --probe "$dir/spec/$ex.xml" >"$dir/check.log" 2>&1
  status=$?
  if [ $status -ne 1 ] || ! grep -qE "$ex\.xml:[0-9]+:[0-9]+: error: kernel '[A-Za-z0-9_]+' reads array '[A-Za-z0-9_]+' at offset \(" "$dir/check.log"; then
    echo "FAIL: $ex without $removed: stepgen check --probe: exit $status, expected 1 and a located error:"
    cat "$dir/check.log"; failures=$((failures + 1)); continue
  fi
  "$stepgen" check --probe "$src/examples/$ex/$ex.xml" >"$dir/check-ok.log" 2>&1 || {
    echo "FAIL: $ex: stepgen check --probe refuses the unmodified spec:"; cat "$dir/check-ok.log"
    failures=$((failures + 1)); continue; }
  if ! "$stepgen" generate "$dir/spec/$ex.xml" -o "$dir/out" >"$dir/gen.log" 2>&1; then
    echo "FAIL: $ex: the spec without $removed is refused by stepgen:"; cat "$dir/gen.log"
    failures=$((failures + 1)); continue
  fi
  # Built unoptimized (tests/build_program.sh: -O0): the test checks the probe's error before
  # the time loop, not the program's speed, and an -O3 build costs CI 2.5x the compile time.
  build_program "$dir/out" >"$dir/build.log" 2>&1 || {
      echo "FAIL: $ex: build"; tail -20 "$dir/build.log"; failures=$((failures + 1)); continue; }
  (cd "$dir/spec" && "$dir/out/build/$ex" --devices 1 --steps 1 >"$dir/run.log" 2>&1)
  status=$?
  if [ $status -ne 1 ] || ! grep -q "declared halo too small" "$dir/run.log" ||
     ! grep -qE "kernel '[A-Za-z0-9_]+' reads array '[A-Za-z0-9_]+' at offset \(" "$dir/run.log"; then
    echo "FAIL: $ex without $removed: exit $status, expected 1 and the probe's halo error:"
    cat "$dir/run.log"; failures=$((failures + 1)); continue
  fi
  if grep -q "^time:" "$dir/run.log"; then
    echo "FAIL: $ex: the time loop ran despite the probe's error"; failures=$((failures + 1)); continue
  fi
  (cd "$dir/spec" && "$dir/out/build/$ex" --devices 1 --steps 1 --probe off >"$dir/off.log" 2>&1) || {
    echo "FAIL: $ex: --probe off did not run"; cat "$dir/off.log"; failures=$((failures + 1)); continue; }
  echo "ok: $ex without $removed: $(grep -oE "kernel '[^']+' reads array '[^']+' at offset \([^)]*\)" "$dir/run.log" | head -1)"
done
[ $failures -eq 0 ] || { echo "$failures example(s) failed"; exit 1; }
