#!/usr/bin/env bash
# The generated CUDA program of one spec, run on the CPU emulation of the CUDA runtime
# (tests/cuda_emu/): generate with --target cuda, build with build.sh (no nvcc), run on
# STEPGEN_CUDA_EMULATE virtual devices, and compare every saved array with the serial reference
# bit for bit (the comparison of tests/e2e/example_test.sh and tests/ooc/ooc_test.sh). Streams
# run in the emulation's deferred order, each run with its own seed (its number), so a missing
# wait between streams or of the host shows as a difference too.
# Usage: emu_test.sh STEPGEN SPEC WORK_DIR REFERENCE_BIN GROUPS
# GROUPS (comma-separated, one build for all; mpi alone) pick the runs:
#   incore  1, 2, 3, 4 devices (overlap on where the spec allows it); 2 and 4 devices with
#           STEPGEN_OVERLAP=off; 2 devices through pinned host memory (STEPGEN_CUDA_PEER=off);
#           3 devices with --strategy min-exchange; --parts: 4 parts on 1 device, 5 on 2
#           (weights, --verify), 3 on 2 through pinned host memory; --verify once; jacobi2d: 4 devices (2x2)
#           through pinned host memory saving A alone (no host copy of B).
#   ooc     out of core on 1 and 2 devices: k = 1 and 3, trapezoid on and off, band sharing on
#           (k = 3, trapezoid on) and off, region sharing off once, pageable host arrays once,
#           and a small --device-memory that lets the model choose chunks and k.
#   mpi     --distribution mpi on 2 ranks (one virtual device each), messages through pinned
#           host memory and from device buffers (STEPGEN_MPI_CUDA_AWARE=on: the emulation's
#           device memory is host memory, so any MPI can take it); out of core on each rank
#           (2 chunks, k = 1; 1 chunk, k = 2 with --verify).
#   repro   out of core on one device with --device-memory 400KiB (the model's chunks, 1 step
#           per pass, trapezoid on), the failing case of issue 22.
set -euo pipefail
stepgen=$1 spec=$2 work=$3 reference=$4 groups=$5
here=$(cd "$(dirname "$0")" && pwd)
name=$(basename "$spec")
name=${name%.*}
group=${groups%%,*}
case ",$groups," in *,mpi,*) [ "$groups" = mpi ] || { echo "emu_test.sh: mpi needs a build of its own"; exit 2; } ;; esac
out="$work/$name-${groups//,/-}"
rm -rf "$out"
mkdir -p "$out/runs" "$out/reference"

distribution=()
[ "$group" = mpi ] && distribution=(--distribution mpi)
"$stepgen" generate "$spec" --target cuda "${distribution[@]}" -o "$out/gen" >/dev/null
build_args=()
[ "$group" = mpi ] && build_args=(--mpi)
"$here/build.sh" "$out/gen" "$out/$name" "${build_args[@]}"
program="$out/$name"

"$reference" --out "$out/reference" >/dev/null
arrays=$(cd "$out/reference" && ls *.raw | sed 's/\.raw$//')
[ -n "$arrays" ] || { echo "reference wrote no array"; exit 1; }
for a in $arrays; do
  # Real data, never zeros: a test over zeros would pass with unwritten outputs.
  if [ -z "$(tr -d '\000' < "$out/reference/$a.raw" | head -c 1)" ]; then
    echo "reference array $a is all zeros: too weak a test"; exit 1
  fi
done

# Why the spec rules out overlapping the exchange ("" when it does not).
no_overlap=$(sed -n 's/^const char\* const kNoOverlap = "\(.*\)";$/\1/p' "$out/gen/$name.cu")
runs=0
failures=()
# run NAME DEVICES ARGS...: runs the program on DEVICES virtual devices (environment settings
# may precede it: VAR=value run ...), then compares every array with the reference.
run() {
  local label=$1 n=$2; shift 2
  local dir="$out/runs/$label" saves=()
  mkdir -p "$dir"
  for a in $arrays; do saves+=(--save "$a=$dir/$a.raw"); done
  if [ "$group" = mpi ]; then
    source "$here/../mpi/mpirun.sh"
    mpirun_flags+=(-x STEPGEN_CUDA_EMULATE -x STEPGEN_MPI_CUDA_AWARE -x STEPGEN_CUDA_EMULATE_ORDER -x STEPGEN_CUDA_EMULATE_SEED)
    # RANKS=R run ...: R ranks on the N emulated GPUs (several per rank: --devices)
    STEPGEN_CUDA_EMULATE_SEED=$((runs + 1)) STEPGEN_CUDA_EMULATE=$n stepgen_mpirun "${RANKS:-$n}" "$program" "$@" "${saves[@]}" > "$dir/log.txt" 2>&1 ||
      { sed 's/^/  | /' "$dir/log.txt"; echo "FAIL: $name $label: the run failed"; runs=$((runs + 1)); failures+=("$label"); return 0; }
  else
    STEPGEN_CUDA_EMULATE_SEED=$((runs + 1)) STEPGEN_CUDA_EMULATE=$n timeout 300 "$program" --devices "$n" "$@" "${saves[@]}" > "$dir/log.txt" 2>&1 ||
      { sed 's/^/  | /' "$dir/log.txt"; echo "FAIL: $name $label: the run failed"; runs=$((runs + 1)); failures+=("$label"); return 0; }
  fi
  local bad=0
  for a in $arrays; do
    if ! cmp -s "$dir/$a.raw" "$out/reference/$a.raw"; then
      local differ
      differ=$( (cmp -l "$dir/$a.raw" "$out/reference/$a.raw" 2>/dev/null || true) | awk '{print int(($1 - 1) / 4)}' | uniq | wc -l)
      echo "FAIL: $name $label ($*): array $a differs from the reference in $differ of $(($(stat -c %s "$out/reference/$a.raw") / 4)) 4-byte cells"
      bad=1
    fi
  done
  runs=$((runs + 1))
  if [ "$bad" -ne 0 ]; then  # every run goes on: the test then lists each mode that differs
    sed 's/^/  | /' "$dir/log.txt"
    failures+=("$label")
    return 0
  fi
  echo "ok: $name $label: $(grep -m1 -o -e 'overlap: [a-z]*' -e 'out-of-core: on.*' "$dir/log.txt" | head -1)"
}
expect() {  # expect LABEL TEXT: the run's report says TEXT
  grep -qF -- "$2" "$out/runs/$1/log.txt" || { echo "FAIL: $name $1: no '$2' in the report"; failures+=("$1:report"); }
}

for group in ${groups//,/ }; do
case $group in
  incore)
    for n in 1 2 3 4; do
      run "d$n" "$n"
    done
    [ -n "$no_overlap" ] || expect d2 "overlap: on"
    STEPGEN_OVERLAP=off run d2-no-overlap 2
    expect d2-no-overlap "overlap: off"
    STEPGEN_OVERLAP=off run d4-no-overlap 4
    STEPGEN_CUDA_PEER=off run d2-host-staged 2
    expect d2-host-staged "through pinned host memory"
    run d3-min-exchange 3 --strategy min-exchange
    # --parts: 4 parts on one GPU (streams of their own, copies within its memory) and 5 on 2
    # GPUs with uneven weights (peer copies between them), with STEPGEN_CUDA_PEER=off once.
    run d1-parts4 1 --parts 4
    expect d1-parts4 "exchange between the parts of device 0"
    run d2-parts5 2 --parts 5 --weights 1,3 --verify
    expect d2-parts5 "verify: OK: 5 part(s) on 2 device(s)"
    STEPGEN_CUDA_PEER=off run d2-parts3-host-staged 2 --parts 3
    # hostmem: exchanged arrays need no host copy: jacobi2d on 4 devices (grid 2x2) through
    # pinned host memory, saving A alone: B (exchanged) is made on the devices, never gathered,
    # and the exchanges stage through a buffer per box (2 arrays x 14336 B: 28 KiB).
    if [ "$name" = jacobi2d ]; then
      dir="$out/runs/d4-host-staged-2x2-A-alone"
      mkdir -p "$dir"
      if STEPGEN_CUDA_PEER=off STEPGEN_CUDA_EMULATE_SEED=$((runs + 1)) STEPGEN_CUDA_EMULATE=4 timeout 300 "$program" \
          --devices 4 --strategy min-exchange --save "A=$dir/A.raw" > "$dir/log.txt" 2>&1 &&
        cmp -s "$dir/A.raw" "$out/reference/A.raw" && grep -q "grid 2x2x1" "$dir/log.txt" &&
        grep -q "through pinned host memory" "$dir/log.txt" &&
        grep -q "^  host copies:  3.00 MiB + staging 28.00 KiB; made on the devices: B; gathered: A$" "$dir/log.txt"; then
        echo "ok: $name d4-host-staged-2x2-A-alone: no host copy of B, staging 28 KiB, A equals the reference"
      else
        sed 's/^/  | /' "$dir/log.txt"
        echo "FAIL: $name d4-host-staged-2x2-A-alone: a failed run, A differs, or the report is not the expected one"
        failures+=(d4-host-staged-2x2-A-alone)
      fi
      runs=$((runs + 1))
    fi
    run d4-verify 4 --verify
    expect d4-verify "verify: OK"
    # --load A with B = copy(A): B copies the loaded values whether made on the devices (A alone
    # saved), on the host (B saved too) or out of core: the same A each way. The file is the
    # reference's last A rotated by one element, so that its edge cells (which Jacobi never
    # writes: B's edge stays its initial one) differ from random(7)'s.
    if [ "$name" = jacobi2d ]; then
      dir="$out/runs/load"
      mkdir -p "$dir"
      { tail -c +5 "$out/reference/A.raw"; head -c 4 "$out/reference/A.raw"; } > "$dir/A0.raw"
      ok=yes
      for mode in device host ooc auto; do
        extra=()
        [ "$mode" = host ] && extra=(--save "B=$dir/B-$mode.raw")
        [ "$mode" = ooc ] && extra=(--out-of-core on --ooc-chunks 3)
        [ "$mode" = auto ] && extra=(--out-of-core auto)
        STEPGEN_AUTO_CHOICE=out-of-core STEPGEN_CUDA_EMULATE=2 timeout 300 "$program" --devices 2 --steps 3 \
          --load "A=$dir/A0.raw" --save "A=$dir/A-$mode.raw" "${extra[@]}" > "$dir/log-$mode.txt" 2>&1 || ok=no
      done
      for mode in host ooc auto; do cmp -s "$dir/A-$mode.raw" "$dir/A-device.raw" || ok=no; done
      grep -q "made on the devices: B;" "$dir/log-device.txt" || ok=no
      grep -q "^out-of-core: on" "$dir/log-auto.txt" || ok=no
      if [ "$ok" = yes ]; then
        echo "ok: $name --load A with B = copy(A): the same A with B made on the devices, B saved, out of core, auto out of core"
      else
        for f in "$dir"/log-*.txt; do sed 's/^/  | /' "$f"; done
        echo "FAIL: $name --load A with B = copy(A): a run failed or A differs"
        failures+=(load-copy)
      fi
      runs=$((runs + 1))
    fi
    # EMU_LOCAL (a tuned spec's test): that kernel's block given at run time (tune.hpp), the
    # same bits on 2 devices; --local wins over STEPGEN_LOCAL; and retuned out of core.
    if [ -n "${EMU_LOCAL:-}" ]; then
      STEPGEN_LOCAL=$EMU_LOCAL run d2-local 2
      expect d2-local "given by STEPGEN_LOCAL (not tuned"
      STEPGEN_LOCAL=$EMU_LOCAL run d1-local-flag 1 --local "${EMU_LOCAL%%=*}=32x1x2"
      expect d1-local-flag "32x1x2 given by --local (not tuned"
      # Out of core the blocks are timed again on the chunks and changed during the run
      # (ooc/retune.hpp): the same bits.
      run d1-ooc-retune 1 --out-of-core on --ooc-chunks 8 --steps-per-pass 2
      expect d1-ooc-retune "retuned on the chunks"
    fi
    # No device (STEPGEN_CUDA_EMULATE unset): the program's error, exit status 1, no crash.
    status=0
    env -u STEPGEN_CUDA_EMULATE "$program" > "$out/runs/no-device.txt" 2>&1 || status=$?
    if [ "$status" -ne 1 ] || ! grep -q "no CUDA device found (cudaErrorNoDevice" "$out/runs/no-device.txt"; then
      cat "$out/runs/no-device.txt"; echo "FAIL: $name without a device exited $status"; failures+=(no-device)
    fi
    ;;
  ooc)
    # A spec with a <boundary> runs out of core like any other (docs/out-of-core.md).
    for n in 1 2; do
      for k in 1 3; do
        for trapezoid in on off; do
          # As many chunks (up to 3) as the halo of k steps allows.
          done_one=no
          for chunks in 3 2; do
            if STEPGEN_CUDA_EMULATE=$n "$program" --devices "$n" --out-of-core on --ooc-chunks "$chunks" \
                --steps-per-pass "$k" --steps 0 --quiet > "$out/runs/probe.txt" 2>&1; then
              run "d$n-k$k-c$chunks-trapezoid-$trapezoid" "$n" --out-of-core on --ooc-chunks "$chunks" \
                --steps-per-pass "$k" --trapezoid "$trapezoid"
              expect "d$n-k$k-c$chunks-trapezoid-$trapezoid" "out-of-core: on"
              done_one=yes
              break
            fi
            grep -q "owns only" "$out/runs/probe.txt" || { cat "$out/runs/probe.txt"; echo "FAIL: unexpected error"; exit 1; }
          done
          [ "$done_one" = yes ] || echo "note: $name: $k steps per pass leave no room for 2 chunks on $n device(s)"
        done
      done
    done
    # (A spec with <record> runs without band sharing: runtime/stepgen/exec/main.hpp says why.)
    if [ -d "$out/runs/d1-k3-c3-trapezoid-on" ] && grep -q "trapezoid on" "$out/runs/d1-k3-c3-trapezoid-on/log.txt" &&
      ! grep -q "<record" "$spec"; then
      expect d1-k3-c3-trapezoid-on "band sharing on"
    fi
    # `--out-of-core auto` taking out of core (STEPGEN_AUTO_CHOICE, whatever the prediction) on
    # 2 devices: calibrated on samples of the arrays over the probes' boxes (both devices' at
    # once), then the host copies the in-core start-up did not make (arrays not saved: made on
    # the host with the devices' bits). A <boundary> or <record> spec is not compared: in core.
    if ! grep -q -e "<boundary" -e "<record" "$spec"; then
      STEPGEN_AUTO_CHOICE=out-of-core run d2-auto-out 2 --out-of-core auto
      expect d2-auto-out "out-of-core: on (--out-of-core auto: taken by STEPGEN_AUTO_CHOICE)"
    fi
    run d1-k3-no-bands 1 --out-of-core on --ooc-chunks 2 --steps-per-pass 3 --band-sharing off
    run d2-k1-no-region-sharing 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 1 --region-sharing off
    run d2-k1-pageable 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 1 --pinned off
    expect d2-k1-pageable "host arrays pageable"
    # A budget of half the arrays' bytes (all arrays, as large as the saved ones): the model
    # picks chunks and k.
    all=$("$program" --help | sed -n 's/^arrays: //p' | wc -w)
    bytes=0
    for f in "$out"/reference/*.raw; do bytes=$((bytes + $(stat -c %s "$f"))); done
    bytes=$((bytes / $(echo $arrays | wc -w) * all * 3 / 2))
    if STEPGEN_CUDA_EMULATE=1 "$program" --device-memory "$((bytes / 3))" --steps 0 > "$out/runs/probe.txt" 2>&1; then
      run d1-budget 1 --device-memory "$((bytes / 3))"
      expect d1-budget "out-of-core: on"
    else
      grep -q "one chunk with its halos cannot fit: " "$out/runs/probe.txt" || { cat "$out/runs/probe.txt"; echo "FAIL: unexpected error"; exit 1; }
      echo "ok: $name under $((bytes / 3)) bytes: $(cat "$out/runs/probe.txt")"
    fi
    ;;
  mpi)
    run r2-host 2
    expect r2-host "through pinned host buffers"
    [ -n "$no_overlap" ] || expect r2-host "overlap: on"
    STEPGEN_MPI_CUDA_AWARE=on run r2-device 2 --verify
    expect r2-device "CUDA-aware"
    expect r2-device "verify: OK"
    # Out of core on each rank: the cells other ranks own come by messages at pass boundaries
    # (a <boundary>'s edge slabs gathered from every rank).
    run r2-ooc-k1 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 1
    expect r2-ooc-k1 "out-of-core: on"
    run r2-ooc-k2 2 --out-of-core on --ooc-chunks 1 --steps-per-pass 2 --verify
    expect r2-ooc-k2 "out-of-core: on"
    expect r2-ooc-k2 "verify: OK"
    # Two GPUs and three parts per rank: the one executor's peer copies, copies within a GPU
    # and messages, overlapping the interior; CUDA-aware and through the host.
    RANKS=2 run r2-g2-parts3 4 --devices 2 --parts 3 --verify
    expect r2-g2-parts3 "verify: OK"
    [ -n "$no_overlap" ] || expect r2-g2-parts3 "overlap: on"
    RANKS=2 STEPGEN_MPI_CUDA_AWARE=on STEPGEN_CUDA_PEER=off run r2-g2-aware-staged 4 --devices 2
    ;;
  repro)
    run d1-400KiB 1 --device-memory 400KiB
    expect d1-400KiB "out-of-core: on"
    expect d1-400KiB "trapezoid on"
    ;;
  *) echo "emu_test.sh: unknown group '$group'"; exit 2 ;;
esac
done
if [ "${#failures[@]}" -gt 0 ]; then
  echo "FAIL: $name ($groups): $runs run(s), ${#failures[@]} failure(s) (run, or run:report for a missing report line): ${failures[*]}"
  exit 1
fi
echo "ok: $name ($groups): $runs run(s) on the CUDA emulation equal the reference"
