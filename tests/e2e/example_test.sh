#!/usr/bin/env bash
# End-to-end check of one example in one spec format and backend (YAML: the same tree as XML):
# generate -> build (-Wall -Wextra -Werror) -> run on 1..4 PoCL CPU devices -> every written
# array equals the serial reference bit for bit (and hence the one-device run), on random data.
# Usage: example_test.sh STEPGEN SOURCE_DIR EXAMPLE FORMAT WORK_DIR REFERENCE_BIN [DEVICE_COUNTS]
set -euo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 src=$2 example=$3 format=$4 work=$5 reference=$6 counts=${7:-"1 2 3 4"}
spec="$src/examples/$example/$example.$format"
out="$work/$example-$format"
rm -rf "$out" "$work/$example-$format-runs"
mkdir -p "$work/$example-$format-runs"

"$stepgen" generate "$spec" --target opencl -o "$out" >/dev/null

# YAML: the spec must give the very tree the XML spec gives (the spec's file name and the
# templates hash in provenance comments aside); the XML test builds and runs that tree, so this
# one only compares (a build and runs of identical sources would cost CI time and test nothing).
if [ "$format" = yaml ]; then
  xml_out="$work/$example-yaml-vs-xml"
  rm -rf "$xml_out"
  "$stepgen" generate "$src/examples/$example/$example.xml" --target opencl -o "$xml_out" >/dev/null
  grep -rl "$example\.yaml" "$out" | xargs -r sed -i "s/$example\.yaml/$example.xml/g"
  grep -rlE "templates hash [0-9a-f]{16}" "$out" "$xml_out" |
    xargs -r sed -i -E "s/templates hash [0-9a-f]{16}/templates hash H/"
  # (.stepgen/manifest holds the files' hashes, which the names above change)
  diff -r -x manifest "$out" "$xml_out" || { echo "FAIL: $example: the XML and YAML specs give different trees"; exit 1; }
  echo "ok: $example: the YAML spec gives the XML spec's tree (built and run by the xml test)"
  exit 0
fi
build_program "$out"

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
  # Every example's kernels can run on slabs: several devices split into slabs and overlap the
  # exchange with the interior (the path these comparisons then cover).
  # (Only a kernel with several cells per work-item cannot, in OpenCL: its generator test says why.)
  if [ "$n" -gt 1 ] && ! grep -q -e "^overlap: on" -e "work-items are not one per cell" "$run/log.txt"; then
    cat "$run/log.txt"; echo "FAIL: $example ($format) on $n device(s): the exchange does not overlap"; exit 1
  fi
done

# The min-exchange grid (3D examples split along two dimensions), compute then exchange.
if [ "$format" = xml ]; then
  n=${counts##* }
  run="$work/$example-$format-runs/min-exchange"
  mkdir -p "$run"
  saves=()
  for a in $arrays; do saves+=(--save "$a=$run/$a.raw"); done
  POCL_DEVICES="$(printf 'pthread %.0s' $(seq "$n"))" "$out/build/$example" --device-type cpu --devices "$n" \
    --strategy min-exchange "${saves[@]}" > "$run/log.txt" 2>&1 || { cat "$run/log.txt"; echo "min-exchange run failed"; exit 1; }
  for a in $arrays; do
    cmp -s "$run/$a.raw" "$refdir/$a.raw" || { cat "$run/log.txt"; echo "FAIL: $example min-exchange on $n devices: $a differs"; exit 1; }
  done
  echo "ok: $example ($format) on $n device(s), --strategy min-exchange ($(grep -o 'grid [0-9x]*' "$run/log.txt" | head -1)): equal the reference"
fi

# --parts: more parts than devices, each device a run of neighbouring parts with a buffer and
# launches of its own; parts of one device exchange on it (clEnqueueCopyBufferRect), parts of
# two devices through the host. 3 parts on 1 device, and 5 on 2 with uneven weights (3 + 2
# parts, --verify against one device): every written array equals the reference.
if [ "$format" = xml ]; then
  for mode in "1 3" "2 5 --weights 1,3 --verify"; do
    read -r n parts rest <<< "$mode"
    run="$work/$example-$format-runs/parts-$n-$parts"
    mkdir -p "$run"
    saves=()
    for a in $arrays; do saves+=(--save "$a=$run/$a.raw"); done
    # shellcheck disable=SC2086
    POCL_DEVICES="$(printf 'pthread %.0s' $(seq "$n"))" "$out/build/$example" --device-type cpu \
      --devices "$n" --parts "$parts" $rest "${saves[@]}" > "$run/log.txt" 2>&1 ||
      { cat "$run/log.txt"; echo "FAIL: $example --devices $n --parts $parts failed"; exit 1; }
    grep -q "^$parts part(s) on $n device(s), grid" "$run/log.txt" ||
      { cat "$run/log.txt"; echo "FAIL: $example: the report does not show $parts parts on $n device(s)"; exit 1; }
    for a in $arrays; do
      cmp -s "$run/$a.raw" "$refdir/$a.raw" ||
        { cat "$run/log.txt"; echo "FAIL: $example --devices $n --parts $parts: $a differs"; exit 1; }
    done
    echo "ok: $example ($format), $parts parts on $n device(s): equal the reference"
  done
fi

# devinit: arrays nothing on the host needs are made on the device, never uploaded: saving p2
# alone, p1 (copy(p0), written) and vel (random(5), read only) are made on the device, p2 still
# equals the reference, and the host copies weigh less than with every array held.
if [ "$example" = acoustic ] && [ "$format" = xml ]; then
  run="$work/$example-$format-runs/devinit"
  mkdir -p "$run"
  POCL_DEVICES=pthread "$out/build/$example" --device-type cpu --devices 1 --save "p2=$run/p2.raw" \
    > "$run/log.txt" 2>&1 || { cat "$run/log.txt"; echo "devinit run failed"; exit 1; }
  cmp -s "$run/p2.raw" "$refdir/p2.raw" || { cat "$run/log.txt"; echo "FAIL: devinit: p2 differs"; exit 1; }
  # hostmem: p0 has a host copy (p2's copy(p0) is filled from it) but only p2 is gathered.
  grep -q "^  host copies:  1.31 MiB + staging 0 B; made on the devices: p1, vel; gathered: p2$" "$run/log.txt" ||
    { cat "$run/log.txt"; echo "FAIL: devinit: the report does not say p1 and vel were made on the device"; exit 1; }
  STEPGEN_HOST_COPIES=all POCL_DEVICES=pthread "$out/build/$example" --device-type cpu --devices 1 \
    > "$run/all.txt" 2>&1 || { cat "$run/all.txt"; echo "devinit run (every host copy) failed"; exit 1; }
  grep -q "^  host copies:  2.62 MiB + staging 0 B; made on the devices: none; gathered: none$" "$run/all.txt" ||
    { cat "$run/all.txt"; echo "FAIL: devinit: STEPGEN_HOST_COPIES=all"; exit 1; }
  echo "ok: acoustic: p1 and vel made on the device (1.31 MiB of host copies, 2.62 MiB with all), p2 alone gathered: p2 equals the reference"
fi

# hostmem: exchanged arrays need no host copy: the exchanges between devices stage through a
# page-locked buffer per box. jacobi2d on 4 devices saving A alone, as slabs (overlap on) and
# as a 2x2 grid (--strategy min-exchange, compute then exchange): B, exchanged, is made on the
# devices and never gathered; the host holds A (3 MiB) and the boxes' staging (2 arrays x 3
# boundaries x 2 directions x 1024 floats = 48 KiB as slabs; 2 x 14336 B = 28 KiB as 2x2).
if [ "$example" = jacobi2d ] && [ "$format" = xml ]; then
  for strategy in slabs min-exchange; do
    run="$work/$example-$format-runs/staging-$strategy"
    mkdir -p "$run"
    POCL_DEVICES="pthread pthread pthread pthread" "$out/build/$example" --device-type cpu --devices 4 \
      --strategy "$strategy" --save "A=$run/A.raw" > "$run/log.txt" 2>&1 ||
      { cat "$run/log.txt"; echo "FAIL: staging run ($strategy) failed"; exit 1; }
    cmp -s "$run/A.raw" "$refdir/A.raw" || { cat "$run/log.txt"; echo "FAIL: staging ($strategy): A differs"; exit 1; }
    want="48.00 KiB"
    [ "$strategy" = min-exchange ] && want="28.00 KiB"
    grep -q "^  host copies:  3.00 MiB + staging $want; made on the devices: B; gathered: A$" "$run/log.txt" ||
      { cat "$run/log.txt"; echo "FAIL: staging ($strategy): B has a host copy, or the staging is not $want"; exit 1; }
  done
  grep -q "grid 2x2x1" "$work/$example-$format-runs/staging-min-exchange/log.txt" ||
    { echo "FAIL: staging: min-exchange did not make a 2x2 grid"; exit 1; }
  # --parts: 4 parts of one device exchange on it, with no host staging.
  run="$work/$example-$format-runs/staging-parts"
  mkdir -p "$run"
  POCL_DEVICES=pthread "$out/build/$example" --device-type cpu --devices 1 --parts 4 \
    --save "A=$run/A.raw" > "$run/log.txt" 2>&1 || { cat "$run/log.txt"; echo "FAIL: staging run (parts) failed"; exit 1; }
  cmp -s "$run/A.raw" "$refdir/A.raw" || { cat "$run/log.txt"; echo "FAIL: staging (parts): A differs"; exit 1; }
  grep -q "^  host copies:  3.00 MiB + staging 0 B; made on the devices: B; gathered: A$" "$run/log.txt" ||
    { cat "$run/log.txt"; echo "FAIL: staging (parts): 4 parts of one device staged through the host"; exit 1; }
  echo "ok: jacobi2d on 4 devices (slabs and 2x2) with A alone saved: no host copy of B, staging 48 KiB / 28 KiB, A equals the reference"
fi

# The generated program's errors: a clear message and exit status 2 for a bad command line, 1
# for the rest, never a crash or a hang (tests/e2e/program_io_test.sh checks many more).
if [ "$example" = jacobi2d ] && [ "$format" = xml ]; then
  expect_error() {  # expect_error STATUS "MESSAGE PART" ARGS...
    local want_status=$1 want=$2; shift 2
    set +e
    POCL_DEVICES="pthread pthread" timeout 60 "$out/build/$example" --device-type cpu "$@" > "$work/err.txt" 2>&1
    local status=$?
    set -e
    if [ "$status" -ne "$want_status" ] || ! grep -qF -- "$want" "$work/err.txt"; then
      echo "FAIL: '$*' exited $status; expected $want_status and '$want' in:"; cat "$work/err.txt"; exit 1
    fi
    echo "ok: '$*' fails with: $(head -1 "$work/err.txt")"
  }
  expect_error 1 "asked for 9 devices but only 2 match" --devices 9
  expect_error 2 "unknown option '--bogus'" --bogus
  expect_error 2 "no array named 'Q'" --save Q=x.raw
  expect_error 1 "--load A=$work/missing.raw: '$work/missing.raw' does not exist" --load "A=$work/missing.raw"
  head -c 100 /dev/zero > "$work/short.raw"
  expect_error 1 "holds 100 bytes but array A needs 3145728 bytes" --load "A=$work/short.raw"
  expect_error 2 "--steps expects an integer from 0 to 9223372036854775807, got '-3'" --steps -3
  expect_error 1 "no OpenCL device matches (type gpu)" --device-type gpu
  expect_error 2 "--parts 1 is fewer than the 2 devices found" --devices 2 --parts 1
  expect_error 1 "--parts 3 on 1 device(s): a device with several parts runs them in core only" \
    --devices 1 --parts 3 --out-of-core on
  expect_error 1 "(a device's parts need 6.03 MiB, the budget per device is 4.00 MiB)" \
    --devices 1 --parts 3 --device-memory 4MiB
fi
# A scratch array (save="false": twostage's T) is not kept at the end: --save of it is refused,
# since what a file would hold depends on the mode (never gathered in core, stored back after
# every pass out of core).
if [ "$example" = twostage ] && [ "$format" = xml ]; then
  set +e
  POCL_DEVICES="pthread" timeout 60 "$out/build/$example" --device-type cpu --save "T=$work/T.raw" > "$work/err.txt" 2>&1
  status=$?
  set -e
  if [ "$status" -ne 2 ] || ! grep -qF "'T' is a scratch array (save=\"false\" in the spec)" "$work/err.txt" || [ -e "$work/T.raw" ]; then
    echo "FAIL: --save T exited $status (expected 2, the refusal, no file):"; cat "$work/err.txt"; exit 1
  fi
  echo "ok: --save T fails with: $(head -1 "$work/err.txt")"
fi
# Tables (examples/tables): they count in every device's memory, --save does not name them, and
# a missing table file is an error naming the table (the run is in the example's folder, where
# coef.raw is: tests/e2e.cmake).
if [ "$example" = tables ] && [ "$format" = xml ]; then
  table_error() {  # table_error STATUS "MESSAGE PART" DIR ARGS...
    local want_status=$1 want=$2 dir=$3; shift 3
    set +e
    (cd "$dir" && POCL_DEVICES="pthread pthread" timeout 60 "$out/build/$example" --device-type cpu "$@") > "$work/err.txt" 2>&1
    local status=$?
    set -e
    if [ "$status" -ne "$want_status" ] || ! grep -qF -- "$want" "$work/err.txt"; then
      echo "FAIL: '$*' exited $status; expected $want_status and '$want' in:"; cat "$work/err.txt"; exit 1
    fi
    echo "ok: '$*' fails with: $(head -1 "$work/err.txt")"
  }
  table_error 1 "the tables need 548 B on every device but the device memory budget is 500 B" "$PWD" \
    --out-of-core on --device-memory 500
  table_error 2 "no array named 'coef'" "$PWD" --save "coef=$work/coef.raw"
  # file() tables are read relative to the spec's folder (io2): from another working directory
  # the run finds coef.raw there; --spec-dir names a folder without it: the error names its path.
  (cd "$work" && POCL_DEVICES="pthread" timeout 60 "$out/build/$example" --device-type cpu --quiet \
     --save "B=$work/B-elsewhere.raw") > "$work/err.txt" 2>&1 ||
    { cat "$work/err.txt"; echo "FAIL: run from another folder did not find coef.raw beside the spec"; exit 1; }
  echo "ok: coef.raw read beside the spec from another working directory"
  table_error 1 "cannot open '$work/coef.raw' to load array coef" "$work" --quiet --spec-dir "$work"
  # `stepgen plan` counts them as the program does: 2 x 256x97 floats + 548 bytes of tables per
  # part, and the budget left to the arrays.
  "$stepgen" plan "$spec" --devices 2 | grep -q " 199204 " ||
    { "$stepgen" plan "$spec" --devices 2; echo "FAIL: stepgen plan leaves the tables out of the buffer bytes"; exit 1; }
  "$stepgen" plan "$spec" --device-memory 200KiB | grep -q "device memory 204252 bytes" ||
    { echo "FAIL: stepgen plan does not leave the tables out of the budget"; exit 1; }
  echo "ok: stepgen plan counts the tables in every device's memory"
fi
