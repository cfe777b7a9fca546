#!/usr/bin/env bash
# MPI end-to-end check of one example: generate with --distribution mpi -> build (-Werror) ->
# mpirun -np 1, 2 and 3 on PoCL CPU devices (one device per rank: each node, here the one
# machine, shows as many PoCL devices as it runs ranks, and rank i of the node takes device i)
# -> every saved array (written by MPI-IO) equals the serial reference and the 1-rank run bit
# for bit, on random data; the last run also passes --verify (rank 0 reruns the whole grid).
# Every run reports whether its exchange overlaps the interior: on from 2 ranks, split along the
# slowest dimension (the default split when overlap is possible), unless the spec rules it out.
# 2 ranks of 2 devices and 3 parts each (--devices 2 --parts 3: copies between a rank's parts,
# messages between ranks) equal the reference too. The 2- and 3-rank runs are repeated with --strategy min-exchange (overlap off where that
# splits another dimension; bit-exact all the same). Then out of core per rank (mpi_ooc.sh).
# Usage: mpi_test.sh STEPGEN SOURCE_DIR EXAMPLE WORK_DIR REFERENCE_BIN [RANK_COUNTS]
set -euo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 src=$2 example=$3 work=$4 reference=$5 counts=${6:-"1 2 3"}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/mpirun.sh"
out="$work/$example"
rm -rf "$out" "$work/$example-runs" "$work/$example-reference"
mkdir -p "$work/$example-runs" "$work/$example-reference"

"$stepgen" generate "$src/examples/$example/$example.xml" --target opencl --distribution mpi -o "$out" >/dev/null
if command -v clang-format >/dev/null; then  # the MPI sections are clang-formatted too
  (cd "$out" && clang-format --style=file --dry-run --Werror "$example.cpp")
fi
build_program "$out"  # -O0 but stepocl_jacobi (tests/mpi.cmake; tests/build_program.sh)

refdir="$work/$example-reference"
"$reference" --out "$refdir" >/dev/null
arrays=$(cd "$refdir" && ls *.raw | sed 's/\.raw$//')
[ -n "$arrays" ] || { echo "reference wrote no array"; exit 1; }
for a in $arrays; do
  if [ -z "$(tr -d '\000' < "$refdir/$a.raw" | head -c 1)" ]; then
    echo "reference array $a is all zeros: the example is too weak a test"; exit 1
  fi
done

# Why the spec rules out overlap ("" when it does not), as the generated program says it.
no_overlap=$(sed -n 's/^const char\* const kNoOverlap = "\(.*\)";$/\1/p' "$out/$example.cpp")
dims=$(sed -n 's/^constexpr int kDims = \([0-9]\);$/\1/p' "$out/$example.cpp")
expect_overlap() {  # expect_overlap LOG RANKS: the overlap line the run must print
  local grid
  grid=$(grep -o "one device each, grid [0-9]*x[0-9]*x[0-9]*" "$1" | grep -o "[0-9]*x[0-9]*x[0-9]*")
  local split_other=no
  [ "${grid%%x*}" -gt 1 ] && split_other=0
  if [ "$dims" -eq 3 ] && [ "$(echo "$grid" | cut -dx -f2)" -gt 1 ] && [ "$split_other" = no ]; then split_other=1; fi
  if [ -n "$no_overlap" ]; then
    echo "overlap: off ($no_overlap)"
  elif [ "$2" -eq 1 ]; then
    echo "overlap: off (one rank)"
  elif [ "$split_other" != no ]; then
    echo "overlap: off (the partition splits dimension $split_other, not only the slowest)"
  else
    echo "overlap: on ("
  fi
}

for n in $counts; do
  run="$work/$example-runs/$n"
  mkdir -p "$run"
  saves=()
  for a in $arrays; do saves+=(--save "$a=$run/$a.raw"); done
  extra=()
  [ "$n" -eq "${counts##* }" ] && extra=(--verify)
  # A stale file longer than the array must come out truncated.
  head -c 100 /dev/urandom > "$run/${arrays%%$'\n'*}.raw"
  POCL_DEVICES=$(printf 'pthread %.0s' $(seq "$n")) \
    stepgen_mpirun "$n" "$out/build/$example" --device-type cpu "${saves[@]}" "${extra[@]}" > "$run/log.txt" 2>&1 ||
    { cat "$run/log.txt"; echo "FAIL: mpirun -np $n failed"; exit 1; }
  grep -q "^$n rank(s) on 1 node(s)" "$run/log.txt" || { cat "$run/log.txt"; echo "FAIL: no $n-rank split"; exit 1; }
  want=$(expect_overlap "$run/log.txt" "$n")
  grep -qF "$want" "$run/log.txt" || { cat "$run/log.txt"; echo "FAIL: expected '$want'"; exit 1; }
  if [ ${#extra[@]} -gt 0 ] && ! grep -q "verify: OK: $n rank(s) equal 1 device" "$run/log.txt"; then
    cat "$run/log.txt"; echo "FAIL: --verify did not pass on $n ranks"; exit 1
  fi
  for a in $arrays; do
    for want in "$refdir/$a.raw" "$work/$example-runs/${counts%% *}/$a.raw"; do
      if ! cmp -s "$run/$a.raw" "$want"; then
        cat "$run/log.txt"
        echo "FAIL: $example on $n rank(s): array $a differs from $want"
        cmp "$run/$a.raw" "$want" | head -1 || true
        exit 1
      fi
    done
  done
  echo "ok: $example on $n rank(s), $(grep -o '^overlap: o[nf]*' "$run/log.txt"): $(echo $arrays | tr '\n' ' ')equal the serial reference and 1 rank"
done

# --strategy is honoured as in one process; min-exchange may split another dimension than the
# slowest, and the exchange then runs after the launch (overlap off, with that reason).
for n in $counts; do
  [ "$n" -ge 2 ] || continue
  run="$work/$example-runs/min-exchange-$n"
  mkdir -p "$run"
  saves=()
  for a in $arrays; do saves+=(--save "$a=$run/$a.raw"); done
  POCL_DEVICES=$(printf 'pthread %.0s' $(seq "$n")) \
    stepgen_mpirun "$n" "$out/build/$example" --device-type cpu --strategy min-exchange "${saves[@]}" \
    > "$run/log.txt" 2>&1 || { cat "$run/log.txt"; echo "FAIL: mpirun -np $n --strategy min-exchange failed"; exit 1; }
  grep -q "^$n rank(s) on 1 node(s), one device each, grid [0-9x]* (min-exchange: " "$run/log.txt" ||
    { cat "$run/log.txt"; echo "FAIL: --strategy min-exchange was not honoured"; exit 1; }
  want=$(expect_overlap "$run/log.txt" "$n")
  grep -qF "$want" "$run/log.txt" || { cat "$run/log.txt"; echo "FAIL: expected '$want'"; exit 1; }
  for a in $arrays; do
    cmp -s "$run/$a.raw" "$refdir/$a.raw" ||
      { cat "$run/log.txt"; echo "FAIL: $example on $n rank(s), min-exchange: array $a differs from the reference"; exit 1; }
  done
  echo "ok: $example on $n rank(s), $(grep -o 'grid [0-9]*x[0-9]*x[0-9]* (min-exchange' "$run/log.txt"), $(grep -o '^overlap: o[nf]*' "$run/log.txt"): equal the serial reference"
done
# Several devices and parts per rank (issue 51): mpirun -np 2 --devices 2 --parts 3 runs 6
# parts, each rank's box cut into 3, two on its first device and one on its second; copies
# between a rank's parts, messages between ranks; the same bits as the reference and --verify's
# one device.
run="$work/$example-runs/devices-per-rank"
mkdir -p "$run"
saves=()
for a in $arrays; do saves+=(--save "$a=$run/$a.raw"); done
POCL_DEVICES="pthread pthread pthread pthread" \
  stepgen_mpirun 2 "$out/build/$example" --device-type cpu --devices 2 --parts 3 --verify "${saves[@]}" \
  > "$run/log.txt" 2>&1 || { cat "$run/log.txt"; echo "FAIL: mpirun -np 2 --devices 2 --parts 3 failed"; exit 1; }
for want in "2 rank(s) on 1 node(s), 2 devices and 3 parts each" "verify: OK: 2 rank(s) equal 1 device" \
  "  part 5 on rank 1 on "; do
  grep -qF "$want" "$run/log.txt" || { cat "$run/log.txt"; echo "FAIL: --devices 2 --parts 3 per rank: no '$want'"; exit 1; }
done
if [ -z "$no_overlap" ]; then  # one executor: copies and messages overlap the interior
  grep -qF "overlap: on (boundary slabs first" "$run/log.txt" ||
    { cat "$run/log.txt"; echo "FAIL: --devices 2 --parts 3 per rank: overlap not on"; exit 1; }
fi
for a in $arrays; do
  cmp -s "$run/$a.raw" "$refdir/$a.raw" ||
    { cat "$run/log.txt"; echo "FAIL: $example on 2 ranks x 2 devices x 3 parts: array $a differs from the reference"; exit 1; }
done
echo "ok: $example on 2 ranks x 2 devices x 3 parts: $(echo $arrays | tr '\n' ' ')equal the serial reference; --verify OK"
if [ "$example" = jacobi2d ]; then  # STEPGEN_OVERLAP=off turns it off on every rank
  run="$work/$example-runs/overlap-off"
  mkdir -p "$run"
  POCL_DEVICES="pthread pthread" stepgen_mpirun 2 env STEPGEN_OVERLAP=off "$out/build/$example" --device-type cpu \
    --save "A=$run/A.raw" > "$run/log.txt" 2>&1 || { cat "$run/log.txt"; echo "FAIL: STEPGEN_OVERLAP=off"; exit 1; }
  grep -qF "overlap: off (STEPGEN_OVERLAP=off)" "$run/log.txt" || { cat "$run/log.txt"; echo "FAIL: overlap not off"; exit 1; }
  cmp -s "$run/A.raw" "$refdir/A.raw" || { echo "FAIL: STEPGEN_OVERLAP=off: A differs from the reference"; exit 1; }
  echo "ok: $example on 2 rank(s) with STEPGEN_OVERLAP=off: overlap off, equal the serial reference"
  # Issue 26 in core, every mode: a rank's host arrays are page-locked as in one process, and
  # the report gives the host<->device GB/s against the link measured at start-up (summed over
  # the ranks); --pinned off: pageable, said, the same bits (the 2-rank run above has them).
  grep -qx '  host arrays:  page-locked' "$work/$example-runs/2/log.txt" ||
    { cat "$work/$example-runs/2/log.txt"; echo "FAIL: 2 ranks: the host arrays are not page-locked"; exit 1; }
  grep -qE '^  host<->device: [0-9.]+ s, .* moved \([0-9.]+ GB/s; link measured at start-up: [0-9.]+ GB/s to the devices, [0-9.]+ GB/s back\)$' "$work/$example-runs/2/log.txt" ||
    { cat "$work/$example-runs/2/log.txt"; echo "FAIL: 2 ranks: no link measured at start-up"; exit 1; }
  run="$work/$example-runs/pinned-off"
  mkdir -p "$run"
  POCL_DEVICES="pthread pthread" stepgen_mpirun 2 "$out/build/$example" --device-type cpu --pinned off \
    --save "A=$run/A.raw" > "$run/log.txt" 2>&1 || { cat "$run/log.txt"; echo "FAIL: --pinned off"; exit 1; }
  grep -qx '  host arrays:  pageable (--pinned off)' "$run/log.txt" ||
    { cat "$run/log.txt"; echo "FAIL: --pinned off: the report does not say the arrays are pageable"; exit 1; }
  cmp -s "$run/A.raw" "$refdir/A.raw" || { echo "FAIL: --pinned off: A differs from the reference"; exit 1; }
  echo "ok: $example on 2 rank(s): host arrays page-locked ($(grep -o 'link measured at start-up: [^)]*' "$work/$example-runs/2/log.txt")); --pinned off: pageable, the same bits"
  # --load A with B = copy(A): B copies the loaded values whether it is made on the devices (A
  # alone saved) or filled on the host (B saved too; out of core): the same A each way. The
  # file: the reference's last A rotated by one element (its edge differs from random(7)'s,
  # and B's edge, never written, stays B's initial one).
  run="$work/$example-runs/load"
  mkdir -p "$run"
  { tail -c +5 "$refdir/A.raw"; head -c 4 "$refdir/A.raw"; } > "$run/A0.raw"
  for mode in device host ooc; do
    extra=()
    [ "$mode" = host ] && extra=(--save "B=$run/B-$mode.raw")
    [ "$mode" = ooc ] && extra=(--out-of-core on --device-memory 1MiB)
    POCL_DEVICES="pthread pthread" stepgen_mpirun 2 "$out/build/$example" --device-type cpu --steps 3 \
      --load "A=$run/A0.raw" --save "A=$run/A-$mode.raw" "${extra[@]}" > "$run/log-$mode.txt" 2>&1 ||
      { cat "$run/log-$mode.txt"; echo "FAIL: --load A ($mode) on 2 ranks failed"; exit 1; }
  done
  grep -q "made on the devices: B;" "$run/log-device.txt" ||
    { cat "$run/log-device.txt"; echo "FAIL: --load A on 2 ranks: B was not made on the devices"; exit 1; }
  for mode in host ooc; do
    cmp -s "$run/A-$mode.raw" "$run/A-device.raw" ||
      { cat "$run/log-$mode.txt"; echo "FAIL: --load A on 2 ranks: A differs ($mode) from B made on the devices"; exit 1; }
  done
  echo "ok: $example on 2 rank(s): --load A with B = copy(A): the same A with B made on the devices, B saved, out of core"
fi

source "$here/mpi_ooc.sh"

# The MPI program's error paths, on one example's build: a message and a failed job, never a hang.
if [ "$example" = jacobi2d ]; then
  source "$here/mpi_errors.sh"
fi
