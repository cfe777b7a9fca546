#!/usr/bin/env bash
# End-to-end check of one example in one spec format and backend:
# generate -> build (-Wall -Wextra -Werror) -> run on 1..4 PoCL CPU devices -> every written
# array equals the serial reference bit for bit (and hence the one-device run), on random data.
# Usage: example_test.sh STEPGEN SOURCE_DIR EXAMPLE FORMAT WORK_DIR REFERENCE_BIN [DEVICE_COUNTS]
set -euo pipefail
stepgen=$1 src=$2 example=$3 format=$4 work=$5 reference=$6 counts=${7:-"1 2 3 4"}
spec="$src/examples/$example/$example.$format"
out="$work/$example-$format"
rm -rf "$out" "$work/$example-$format-runs"
mkdir -p "$work/$example-$format-runs"

"$stepgen" generate "$spec" --target opencl -o "$out" >/dev/null
cmake -S "$out" -B "$out/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$out/build" -j 2 >/dev/null

# Each test has its own reference folder: the XML and YAML tests of one example run in parallel.
refdir="$work/$example-$format-reference"
rm -rf "$refdir"
mkdir -p "$refdir"
"$reference" --out "$refdir" >/dev/null
arrays=$(cd "$refdir" && ls *.raw | sed 's/\.raw$//')
[ -n "$arrays" ] || { echo "reference wrote no array"; exit 1; }
for a in $arrays; do
  # Real data, never zeros: a test over zeros would pass with unwritten outputs.
  if [ -z "$(tr -d '\000' < "$refdir/$a.raw" | head -c 1)" ]; then
    echo "reference array $a is all zeros: the example is too weak a test"; exit 1
  fi
done

for n in $counts; do
  devices=$(printf 'pthread %.0s' $(seq "$n"))
  run="$work/$example-$format-runs/$n"
  mkdir -p "$run"
  saves=()
  for a in $arrays; do saves+=(--save "$a=$run/$a.raw"); done
  extra=()
  [ "$n" -eq "${counts##* }" ] && extra=(--verify)
  POCL_DEVICES="$devices" "$out/build/$example" --device-type cpu --devices "$n" "${saves[@]}" "${extra[@]}" \
    > "$run/log.txt" 2>&1 || { cat "$run/log.txt"; echo "run on $n device(s) failed"; exit 1; }
  for a in $arrays; do
    if ! cmp -s "$run/$a.raw" "$refdir/$a.raw"; then
      cat "$run/log.txt"
      echo "FAIL: $example ($format) on $n device(s): array $a differs from the serial reference"
      cmp "$run/$a.raw" "$refdir/$a.raw" | head -1 || true
      exit 1
    fi
  done
  echo "ok: $example ($format) on $n device(s): $(echo $arrays | tr '\n' ' ') equal the reference"
done
