#!/usr/bin/env bash
# Out-of-core end to end, one example: the generated OpenCL program run out of core on 1 and 2
# PoCL devices, with k = 1, 2, 5 steps per pass, region sharing on and off, several chunks
# (and once with chunks chosen by the model under a small --device-memory), host arrays
# page-locked (direct mapping) and once pageable: every saved array
# equals the serial reference (which the e2e test shows equals the in-core run) bit for bit.
# heat3d and jacobi2d also run `--out-of-core auto` (its prediction, and each choice forced by
# STEPGEN_AUTO_CHOICE); jacobi2d also `--load A` with B = copy(A) in every way B can be made.
# Usage: ooc_test.sh STEPGEN SOURCE_DIR EXAMPLE WORK_DIR REFERENCE_BIN [PROGRAM]
# PROGRAM: the example's OpenCL program already built (else generated and built here).
set -euo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 src=$2 example=$3 work=$4 reference=$5 prebuilt=${6:-}
out="$work/$example"
rm -rf "$out"
mkdir -p "$out/runs" "$out/reference"

if [ -n "$prebuilt" ]; then
  # The e2e XML test's program (the same generate command, built with -Werror; ctest runs that
  # test first, as this test's fixture): a second build of identical sources costs CI ~18 s.
  [ -x "$prebuilt" ] || { echo "FAIL: $example: no program at $prebuilt (did the e2e test run?)"; exit 1; }
  program=$prebuilt
else
  "$stepgen" generate "$src/examples/$example/$example.xml" --target opencl -o "$out/gen" >/dev/null
  build_program "$out/gen"
  program="$out/gen/build/$example"
fi

"$reference" --out "$out/reference" >/dev/null
arrays=$(cd "$out/reference" && ls *.raw | sed 's/\.raw$//')
[ -n "$arrays" ] || { echo "reference wrote no array"; exit 1; }

# A spec with a <boundary> (examples/grayscott: periodic in x and y) runs out of core like any
# other: the frames past the grid's edge come with the chunks (docs/out-of-core.md).

runs=0
check() {  # check NAME DEVICES ARGS...: run, then compare every array with the reference
  local name=$1 n=$2; shift 2
  local dir="$out/runs/$name" saves=()
  mkdir -p "$dir"
  for a in $arrays; do saves+=(--save "$a=$dir/$a.raw"); done
  local devices
  devices=$(printf 'pthread %.0s' $(seq "$n"))
  if ! POCL_DEVICES="$devices" timeout 300 "$program" --device-type cpu --devices "$n" "$@" "${saves[@]}" \
      > "$dir/log.txt" 2>&1; then
    cat "$dir/log.txt"; echo "FAIL: $example $name: the run failed"; exit 1
  fi
  grep -q "^out-of-core: on" "$dir/log.txt" || { cat "$dir/log.txt"; echo "FAIL: $example $name: not out of core"; exit 1; }
  # Direct mapping: the host arrays are page-locked unless --pinned off asks for pageable ones.
  local memory=pinned
  case " $* " in *" --pinned off "*) memory=pageable ;; esac
  grep -q "host arrays $memory\$" "$dir/log.txt" || { cat "$dir/log.txt"; echo "FAIL: $example $name: host arrays not $memory"; exit 1; }
  for a in $arrays; do
    if ! cmp -s "$dir/$a.raw" "$out/reference/$a.raw"; then
      cat "$dir/log.txt"
      echo "FAIL: $example $name ($*): array $a differs from the reference"
      cmp "$dir/$a.raw" "$out/reference/$a.raw" | head -1 || true
      exit 1
    fi
  done
  runs=$((runs + 1))
  echo "ok: $example $name: $(grep -o '[0-9]* chunk(s)[^,]*, [0-9]* step(s) per pass' "$dir/log.txt")"
}

for n in 1 2; do
  for k in 1 2 5; do
    for sharing in on off; do
      # As many chunks (up to 4) as the halo of k steps allows: the program says when a chunk
      # is too thin, and that error is itself checked here.
      done_one=no
      for chunks in 4 3 2; do
        log="$out/runs/probe.txt"
        if POCL_DEVICES="$(printf 'pthread %.0s' $(seq "$n"))" "$program" --device-type cpu --devices "$n" \
            --out-of-core on --ooc-chunks "$chunks" --steps-per-pass "$k" --steps 0 --quiet > "$log" 2>&1; then
          check "d$n-k$k-c$chunks-sharing-$sharing" "$n" --out-of-core on --ooc-chunks "$chunks" \
            --steps-per-pass "$k" --region-sharing "$sharing"
          done_one=yes
          break
        fi
        grep -q "owns only" "$log" || { cat "$log"; echo "FAIL: unexpected error"; exit 1; }
      done
      [ "$done_one" = yes ] || echo "note: $example: $k steps per pass leave no room for 2 chunks on $n device(s)"
    done
  done
  # The budget decides: a --device-memory just under the arrays' size forces out-of-core, the
  # model picks chunks and k. Chunk buffers take 3 slots per array, so a part may need more
  # than the budget even in chunks of a few planes: then the error must say so.
  all=$("$program" --help | sed -n 's/^arrays: //p' | wc -w)
  bytes=0
  for a in $arrays; do bytes=$((bytes + $(stat -c %s "$out/reference/$a.raw"))); done
  budget=$((bytes / $(echo $arrays | wc -w) * all * 95 / 100 / n))
  log="$out/runs/probe.txt"
  if POCL_DEVICES="$(printf 'pthread %.0s' $(seq "$n"))" "$program" --device-type cpu --devices "$n" \
      --device-memory "$budget" --steps 0 > "$log" 2>&1; then
    check "d$n-auto" "$n" --device-memory "$budget" --ooc-chunks auto --steps-per-pass auto
    # `stepgen plan` with the figures this run measured (its report's calibration line) picks
    # the chunks and k it picked and predicts the same time, unless the run's start-up probe
    # changed the request (a wider shrink, the trapezoid off), which the plan cannot know.
    run_log="$out/runs/d$n-auto/log.txt"
    if ! grep -q "^probe: out of core\|^trapezoid: off" "$run_log"; then
      plan_log="$out/runs/d$n-auto/plan.txt"
      "$stepgen" plan "$src/examples/$example/$example.xml" -n "$n" --device-memory "$budget" \
        --calibration "$run_log" > "$plan_log"
      choice='[0-9]* chunk(s) (model), [0-9]* step(s) per pass (model)'
      ran=$(grep -o "$choice" "$run_log") planned=$(grep -o "$choice" "$plan_log")
      [ -n "$ran" ] && [ "$ran" = "$planned" ] ||
        { cat "$run_log" "$plan_log"; echo "FAIL: $example: plan '$planned', run '$ran'"; exit 1; }
      ran=$(sed -n 's/^  predicted \([0-9.]*\) s, measured.*/\1/p' "$run_log")
      planned=$(sed -n 's/^  predicted \([0-9.]*\) s for .*/\1/p' "$plan_log")
      [ "$ran" = "$planned" ] ||
        { cat "$run_log" "$plan_log"; echo "FAIL: $example: plan predicts $planned s, run $ran s"; exit 1; }
      echo "ok: $example on $n device(s): stepgen plan --calibration makes the run's choice, predicted $ran s"
    fi
  else
    grep -q "one chunk with its halos cannot fit: " "$log" || { cat "$log"; echo "FAIL: unexpected error"; exit 1; }
    echo "ok: $example on $n device(s) under $budget bytes: $(cat "$log")"
  fi
done
# heat3d on 3 devices is split along x: chunk loads grow along x into the neighbours' columns.
if [ "$example" = heat3d ]; then
  check "d3-split-x-k3" 3 --out-of-core on --ooc-chunks 3 --steps-per-pass 3 --strategy min-exchange
  grep -q "grid 3x1x1" "$out/runs/d3-split-x-k3/log.txt" || { echo "FAIL: heat3d not split along x"; exit 1; }
fi
# Pageable host arrays (--pinned off: every copy through the implementation's staging) give
# the same bits.
check "d2-k1-pageable" 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 1 --pinned off
# Every step over the whole load window (--trapezoid off; on is the default where the kernels
# allow it, and every run above used it) gives the same bits.
check "d1-k2-whole-window" 1 --out-of-core on --ooc-chunks 2 --steps-per-pass 2 --trapezoid off
grep -q "trapezoid off" "$out/runs/d1-k2-whole-window/log.txt" || { echo "FAIL: --trapezoid off"; exit 1; }
# Band sharing (a chunk takes each step's lower band from the previous chunk; on by default
# with the trapezoid, region sharing and k > 1, so most runs above used it), here with k = 3
# (a short last pass where the steps are not a multiple of 3), and once turned off.
check "d1-k3-bands-short-pass" 1 --out-of-core on --ooc-chunks 2 --steps-per-pass 3
# (A spec with <record> runs without band sharing: runtime/stepgen/exec/main.hpp says why.)
if grep -q "trapezoid on" "$out/runs/d1-k3-bands-short-pass/log.txt" &&
  ! grep -q "<record" "$src/examples/$example/$example.xml"; then
  grep -q "band sharing on" "$out/runs/d1-k3-bands-short-pass/log.txt" || { echo "FAIL: band sharing not on"; exit 1; }
fi
check "d2-k2-no-bands" 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 2 --band-sharing off
grep -q "band sharing off (--band-sharing off)" "$out/runs/d2-k2-no-bands/log.txt" || { echo "FAIL: --band-sharing off, and why"; exit 1; }
# Naive scheme and --verify (the in-core one-device run) once.
check "d1-naive-verify" 1 --out-of-core on --ooc-chunks 2 --steps-per-pass 1 --region-sharing off \
  --overlap off --verify
grep -q "verify: OK" "$out/runs/d1-naive-verify/log.txt" || { echo "FAIL: --verify"; exit 1; }
# Issue 26 (oocauto): out of core the kernels' time is split from the copies (events around
# each command): the common report's `kernels:` is not zero, and the split line is there.
log="$out/runs/d1-k2-whole-window/log.txt"
kernels=$(sed -n 's/^  kernels: *\([0-9.]*\) s$/\1/p' "$log")
awk -v k="${kernels:-0}" 'BEGIN { exit !(k > 0) }' ||
  { cat "$log"; echo "FAIL: $example: out of core, kernels: ${kernels:-missing} s (not split)"; exit 1; }
grep -q "^  split (events around each command.*: kernels [0-9.]* s .*per-command latency" "$log" ||
  { cat "$log"; echo "FAIL: $example: no split line"; exit 1; }
echo "ok: $example: out of core, kernels $kernels s (split by events)"
# `--out-of-core auto` given, on data that fits: one line says which run it took and why
# (predicted in core vs out of core), and the results equal the reference whichever it took;
# `stepgen plan --out-of-core auto` with that run's figures prints its choice too. On a 2D and
# a 3D example only (four more runs each: the CI budget).
case $example in heat3d | jacobi2d) ;; *)
  [ "$runs" -ge 8 ] || { echo "FAIL: only $runs out-of-core runs"; exit 1; }
  echo "ok: $example: $runs out-of-core runs equal the reference"
  exit 0
  ;;
esac
dir="$out/runs/d1-auto-compare"
mkdir -p "$dir"
saves=()
for a in $arrays; do saves+=(--save "$a=$dir/$a.raw"); done
POCL_DEVICES=pthread timeout 300 "$program" --device-type cpu --devices 1 --out-of-core auto \
  "${saves[@]}" >"$dir/log.txt" 2>&1 || { cat "$dir/log.txt"; echo "FAIL: $example: --out-of-core auto failed"; exit 1; }
choice=$(grep "^out of core: auto -> " "$dir/log.txt" || true)
[ -n "$choice" ] || { cat "$dir/log.txt"; echo "FAIL: $example: --out-of-core auto printed no choice"; exit 1; }
if ! grep -q "<record" "$src/examples/$example/$example.xml"; then
  echo "$choice" | grep -q "(predicted [0-9.]* s vs [0-9.]* s \(in core\|out of core\)" ||
    { echo "$choice"; echo "FAIL: $example: the choice gives no predictions"; exit 1; }
fi
for a in $arrays; do
  cmp -s "$dir/$a.raw" "$out/reference/$a.raw" ||
    { cat "$dir/log.txt"; echo "FAIL: $example: --out-of-core auto: array $a differs from the reference"; exit 1; }
done
echo "ok: $example: $choice"
"$stepgen" plan "$src/examples/$example/$example.xml" --out-of-core auto \
  --calibration "$out/runs/d1-k2-whole-window/log.txt" >"$dir/plan.txt"
grep -q "^out of core: auto -> " "$dir/plan.txt" ||
  { cat "$dir/plan.txt"; echo "FAIL: $example: stepgen plan --out-of-core auto printed no choice"; exit 1; }
echo "ok: $example: plan: $(grep '^out of core: auto -> ' "$dir/plan.txt" | cut -c1-60)..."
# Two steps: the copies are most of an in-core run and auto usually takes out of core (on the
# calibration it already ran); whichever it takes, the arrays equal an in-core run's.
for mode in auto off; do
  mkdir -p "$dir/steps2-$mode"
  saves=()
  for a in $arrays; do saves+=(--save "$a=$dir/steps2-$mode/$a.raw"); done
  POCL_DEVICES=pthread timeout 300 "$program" --device-type cpu --devices 1 --out-of-core "$mode" \
    --steps 2 "${saves[@]}" >"$dir/steps2-$mode/log.txt" 2>&1 ||
    { cat "$dir/steps2-$mode/log.txt"; echo "FAIL: $example: --steps 2 --out-of-core $mode failed"; exit 1; }
done
for a in $arrays; do
  cmp -s "$dir/steps2-auto/$a.raw" "$dir/steps2-off/$a.raw" ||
    { cat "$dir/steps2-auto/log.txt"; echo "FAIL: $example: --out-of-core auto --steps 2: array $a differs from the in-core run"; exit 1; }
done
echo "ok: $example: 2 steps: $(grep '^out of core: auto -> ' "$dir/steps2-auto/log.txt" | cut -c1-48)..., the in-core run's bits"
# hostmem: saving one array alone (in core the others are made on the device, without a host
# copy), `--out-of-core auto` calibrates on samples of the arrays over its probes' boxes, not on
# host copies of every array; each choice is then taken in turn (STEPGEN_AUTO_CHOICE, the test
# hook that overrides the prediction): out of core, the arrays without a host copy get one
# with their initial values (complete_host_arrays); in core, the run keeps the host copies of
# the run without the flag, no more. Both give the in-core run's bits.
first=$(echo $arrays | cut -d' ' -f1)
auto_one() {  # auto_one NAME [ARGS...]: --steps 2, $first alone saved, into $dir/NAME
  local name=$1
  shift
  mkdir -p "$dir/$name"
  POCL_DEVICES=pthread timeout 300 "$program" --device-type cpu --devices 1 "$@" --steps 2 \
    --save "$first=$dir/$name/$first.raw" >"$dir/$name/log.txt" 2>&1 ||
    { cat "$dir/$name/log.txt"; echo "FAIL: $example: $name ($*) failed"; exit 1; }
  cmp -s "$dir/$name/$first.raw" "$dir/steps2-off/$first.raw" ||
    { cat "$dir/$name/log.txt"; echo "FAIL: $example: $name ($*): $first differs from the in-core run"; exit 1; }
}
auto_one steps2-auto-one --out-of-core auto
echo "ok: $example: --out-of-core auto saving $first alone: the in-core run's bits"
STEPGEN_AUTO_CHOICE=out-of-core auto_one steps2-auto-out --out-of-core auto
grep -q "^out of core: auto -> out of core (.*; taken by STEPGEN_AUTO_CHOICE)$" "$dir/steps2-auto-out/log.txt" &&
  grep -q "^out-of-core: on (--out-of-core auto: taken by STEPGEN_AUTO_CHOICE)" "$dir/steps2-auto-out/log.txt" ||
  { cat "$dir/steps2-auto-out/log.txt"; echo "FAIL: $example: STEPGEN_AUTO_CHOICE=out-of-core did not run out of core"; exit 1; }
echo "ok: $example: auto taking out of core (STEPGEN_AUTO_CHOICE), $first alone saved: the in-core run's bits"
STEPGEN_AUTO_CHOICE=in-core auto_one steps2-auto-in --out-of-core auto
auto_one steps2-off-one --out-of-core off
made_auto=$(grep "host copies:" "$dir/steps2-auto-in/log.txt" | sed 's/.*made on the devices/made/')
made_off=$(grep "host copies:" "$dir/steps2-off-one/log.txt" | sed 's/.*made on the devices/made/')
[ -n "$made_off" ] && [ "$made_auto" = "$made_off" ] ||
  { echo "auto: $made_auto"; echo "off:  $made_off"; echo "FAIL: $example: auto in core keeps host copies the run without the flag does not make"; exit 1; }
grep -q "^out of core: auto -> in core (.*; taken by STEPGEN_AUTO_CHOICE)$" "$dir/steps2-auto-in/log.txt" ||
  { cat "$dir/steps2-auto-in/log.txt"; echo "FAIL: $example: STEPGEN_AUTO_CHOICE=in-core did not stay in core"; exit 1; }
echo "ok: $example: auto in core: $made_auto (as without the flag)"
# --load gives an array its initial values, and copy() of it copies them (docs/spec.md):
# jacobi2d's B = copy(A) with A loaded from a file gives the same A whether B is made on the
# device from A's upload (A alone saved) or filled on the host (B saved too, every host copy,
# out of core, auto taking out of core). B followed the spec's random(7) on the host before:
# A's results then depended on what was saved. The file is the reference's last A (real
# values) rotated by one element, so that its edge cells, which Jacobi never writes (B's edge
# stays B's initial one), differ from random(7)'s.
if [ "$example" = jacobi2d ]; then
  { tail -c +5 "$out/reference/A.raw"; head -c 4 "$out/reference/A.raw"; } > "$dir/A0.raw"
  load=(--load "A=$dir/A0.raw")
  auto_load() {  # auto_load NAME ARGS...: --steps 3, --load A, A saved into $dir/load-NAME
    local name=$1
    shift
    mkdir -p "$dir/load-$name"
    POCL_DEVICES=pthread timeout 300 "$program" --device-type cpu --devices 1 --steps 3 "${load[@]}" \
      --save "A=$dir/load-$name/A.raw" "$@" >"$dir/load-$name/log.txt" 2>&1 ||
      { cat "$dir/load-$name/log.txt"; echo "FAIL: --load A: $name ($*) failed"; exit 1; }
  }
  auto_load device
  grep -q "made on the devices: B;" "$dir/load-device/log.txt" ||
    { cat "$dir/load-device/log.txt"; echo "FAIL: --load A: B was not made on the device"; exit 1; }
  auto_load host-b --save "B=$dir/load-host-b/B.raw"
  STEPGEN_HOST_COPIES=all auto_load all
  auto_load ooc --out-of-core on --device-memory 1MiB
  STEPGEN_AUTO_CHOICE=out-of-core auto_load auto-out --out-of-core auto
  for name in host-b all ooc auto-out; do
    cmp -s "$dir/load-$name/A.raw" "$dir/load-device/A.raw" ||
      { cat "$dir/load-$name/log.txt"; echo "FAIL: --load A: A differs when $name from B made on the device"; exit 1; }
  done
  # The control: without --load, A differs (the file's values were used).
  mkdir -p "$dir/load-none"
  POCL_DEVICES=pthread timeout 300 "$program" --device-type cpu --devices 1 --steps 3 \
    --save "A=$dir/load-none/A.raw" >"$dir/load-none/log.txt" 2>&1 ||
    { cat "$dir/load-none/log.txt"; echo "FAIL: the run without --load failed"; exit 1; }
  ! cmp -s "$dir/load-none/A.raw" "$dir/load-device/A.raw" ||
    { echo "FAIL: --load A made no difference"; exit 1; }
  echo "ok: jacobi2d: --load A with B = copy(A): the same A with B made on the device, B saved, every host copy, out of core, auto out of core"
fi
[ "$runs" -ge 8 ] || { echo "FAIL: only $runs out-of-core runs"; exit 1; }
echo "ok: $example: $runs out-of-core runs equal the reference"
