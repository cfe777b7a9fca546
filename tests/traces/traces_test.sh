#!/usr/bin/env bash
# Sources and receivers (<inject>, <record>) end to end on examples/seismic: a 3D acoustic wave
# (64x64x48 floats, 4th order in space, 30 steps) with a Ricker source on the seams of every
# usual split, a second source read from wavelet.raw, receivers on seams and in the ghost zones
# of neighbours (traces.csv, every step, after the sources) and the points of receivers.txt
# (receivers.csv, every 3 steps, before the launch). Every run writes its traces into its own
# folder (they are relative to the working directory); both traces and the three pressure
# fields must equal the serial reference's bit for bit (reference_seismic writes them too).
# Usage: traces_test.sh STEPGEN SOURCE_DIR WORK_DIR REFERENCE_BIN MODE
#   (TRACES_PROGRAM: mode opencl runs that program, already built, instead of building one)
#   opencl        in core on 1-4 PoCL devices (slabs 1x1xN), --strategy min-exchange on 2, 3
#                 and 4 (1x2x1, 1x3x1, 2x2x1), out of core with k = 1 and 4 steps per pass on 1
#                 and 2 devices, --verify once
#   mpi           the OpenCL MPI program on 2 and 3 ranks (slabs and min-exchange), out of core
#                 per rank (k = 3), --verify once
#   cuda-emu      the CUDA program on the CPU emulation: 1, 2 and 4 devices, min-exchange on 4,
#                 out of core k = 1 and 4
#   cuda-emu-mpi  the CUDA MPI program on the emulation, 2 ranks, in core and out of core
set -euo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 src=$2 work=$3 reference=$4 mode=$5
here=$(cd "$(dirname "$0")" && pwd)
spec="$src/examples/seismic/seismic.xml"
out="$work/$mode"
rm -rf "$out"
mkdir -p "$out/runs" "$out/reference"

"$reference" --out "$out/reference" >/dev/null
files="p1.raw p2.raw p3.raw traces.csv receivers.csv"
for f in $files; do
  [ -s "$out/reference/$f" ] || { echo "the reference wrote no $f"; exit 1; }
done
# Real data: the source's trace moves (the sampled values are not all equal).
[ "$(cut -d, -f2 "$out/reference/traces.csv" | sort -u | wc -l)" -gt 20 ] ||
  { echo "the reference's trace at the source is too weak a test"; exit 1; }

case $mode in
  opencl)
    if [ -n "${TRACES_PROGRAM:-}" ]; then
      # The e2e XML test's seismic program (the same generate command; ctest runs that test
      # first, as this test's fixture): a second build of identical sources costs CI ~18 s.
      [ -x "$TRACES_PROGRAM" ] || { echo "FAIL: no program at $TRACES_PROGRAM (did the e2e test run?)"; exit 1; }
      mkdir -p "$out/gen/build" && cp "$TRACES_PROGRAM" "$out/gen/build/seismic"
    else
      "$stepgen" generate "$spec" --target opencl -o "$out/gen" >/dev/null
      build_program "$out/gen"
    fi
    ;;
  mpi)
    "$stepgen" generate "$spec" --target opencl --distribution mpi -o "$out/gen" >/dev/null
    build_program "$out/gen"
    source "$here/../mpi/mpirun.sh"
    ;;
  cuda-emu | cuda-emu-mpi)
    distribution=() build=()
    [ "$mode" = cuda-emu-mpi ] && distribution=(--distribution mpi) build=(--mpi)
    "$stepgen" generate "$spec" --target cuda "${distribution[@]}" -o "$out/gen" >/dev/null
    mkdir -p "$out/gen/build"
    "$here/../cuda_emu/build.sh" "$out/gen" "$out/gen/build/seismic" "${build[@]}"
    if [ "$mode" = cuda-emu-mpi ]; then
      source "$here/../mpi/mpirun.sh"
      mpirun_flags+=(-x STEPGEN_CUDA_EMULATE)
    fi
    ;;
  *) echo "unknown mode '$mode'"; exit 2 ;;
esac
program="$out/gen/build/seismic"

failures=0
# run NAME DEVICES ARGS...: runs the program in its own folder, compares fields and traces.
run() {
  local name=$1 n=$2; shift 2
  local dir="$out/runs/$name" status=0
  mkdir -p "$dir"
  local saves=(--save "p1=$dir/p1.raw" --save "p2=$dir/p2.raw" --save "p3=$dir/p3.raw")
  case $mode in
    opencl)
      (cd "$dir" && POCL_DEVICES="$(printf 'pthread %.0s' $(seq "$n"))" timeout 300 "$program" \
        --device-type cpu --devices "$n" "${saves[@]}" "$@") > "$dir/log.txt" 2>&1 || status=$?
      ;;
    mpi)
      (cd "$dir" && POCL_DEVICES="$(printf 'pthread %.0s' $(seq "$n"))" stepgen_mpirun "$n" \
        "$program" --device-type cpu "${saves[@]}" "$@") > "$dir/log.txt" 2>&1 || status=$?
      ;;
    cuda-emu)
      (cd "$dir" && STEPGEN_CUDA_EMULATE=$n timeout 300 "$program" --devices "$n" "${saves[@]}" "$@") \
        > "$dir/log.txt" 2>&1 || status=$?
      ;;
    cuda-emu-mpi)
      (cd "$dir" && STEPGEN_CUDA_EMULATE=$n stepgen_mpirun "$n" "$program" "${saves[@]}" "$@") \
        > "$dir/log.txt" 2>&1 || status=$?
      ;;
  esac
  if [ "$status" -ne 0 ]; then
    sed 's/^/  | /' "$dir/log.txt"; echo "FAIL: $mode $name: the run exited $status"
    failures=$((failures + 1)); return 0
  fi
  local bad=0
  for f in $files; do
    if ! cmp -s "$dir/$f" "$out/reference/$f"; then
      echo "FAIL: $mode $name ($*): $f differs from the reference"
      case $f in *.csv) diff "$dir/$f" "$out/reference/$f" | head -6 | sed 's/^/  | /' || true ;; esac
      bad=1
    fi
  done
  if [ "$bad" -ne 0 ]; then
    sed 's/^/  | /' "$dir/log.txt" | grep -v "^  |   part" | head -20
    failures=$((failures + 1)); return 0
  fi
  echo "ok: $mode $name: $(grep -m1 -o -e 'grid [0-9]*x[0-9]*x[0-9]*' "$dir/log.txt" | head -1)$(grep -m1 -o -e ', out-of-core: on' -e '[0-9]* step(s) per pass' "$dir/log.txt" | head -1 | sed 's/^/, /')"
}
expect() {  # expect NAME TEXT: the run's log says TEXT
  grep -qF -- "$2" "$out/runs/$1/log.txt" || { echo "FAIL: $mode $1: no '$2' in its log"; failures=$((failures + 1)); }
}

case $mode in
  opencl | cuda-emu)
    for n in 1 2 3 4; do
      [ "$mode" = cuda-emu ] && [ "$n" -eq 3 ] && continue
      run "d$n" "$n"
    done
    [ "$mode" = opencl ] && run d2-min-exchange 2 --strategy min-exchange && run d3-min-exchange 3 --strategy min-exchange
    run d4-min-exchange 4 --strategy min-exchange
    expect d4-min-exchange "grid 2x2x1"
    run d4-verify 4 --verify
    expect d4-verify "verify: OK"
    run d1-ooc-k1 1 --out-of-core on --ooc-chunks 3 --steps-per-pass 1
    run d1-ooc-k4 1 --out-of-core on --ooc-chunks 3 --steps-per-pass 4
    expect d1-ooc-k4 "4 step(s) per pass"
    # Band sharing is off with <record>, and the report says why (never silently).
    expect d1-ooc-k4 "band sharing off (the spec's <record> samples each point from its own chunk)"
    run d2-ooc-k4 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 4
    [ "$mode" = opencl ] && run d1-ooc-k4-whole-window 1 --out-of-core on --ooc-chunks 2 --steps-per-pass 4 --trapezoid off
    ;;
  mpi | cuda-emu-mpi)
    run r2 2
    expect r2 "2 rank(s)"
    [ "$mode" = mpi ] && run r3-verify 3 --verify && expect r3-verify "verify: OK"
    [ "$mode" = mpi ] && run r3-min-exchange 3 --strategy min-exchange
    run r2-ooc-k3 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 3
    expect r2-ooc-k3 "out-of-core: on"
    ;;
esac

# A trace file that cannot be written: a clear error before the run (no device set up, no
# step run), exit status 1.
if [ "$mode" = opencl ]; then
  dir="$out/runs/unwritable"
  mkdir -p "$dir/traces.csv"  # a folder where the file should go
  status=0
  (cd "$dir" && POCL_DEVICES=pthread "$program" --device-type cpu --devices 1) > "$dir/log.txt" 2>&1 || status=$?
  if [ "$status" -ne 1 ] || ! grep -q "record p3 file=traces.csv: 'traces.csv' is a directory" "$dir/log.txt" ||
    grep -q "^probe:\|^1 device" "$dir/log.txt"; then
    cat "$dir/log.txt"; echo "FAIL: an unwritable trace exited $status"; failures=$((failures + 1))
  else
    echo "ok: $mode: an unwritable trace fails with: $(head -1 "$dir/log.txt")"
  fi
fi

# --steps past the values of wavelet.raw (40): an error at start-up naming the file, before
# step 0 (no device set up, no trace or save written), not after the 40 steps it covers.
dir="$out/runs/short-wavelet"
mkdir -p "$dir"
status=0
case $mode in
  opencl) (cd "$dir" && POCL_DEVICES=pthread "$program" --device-type cpu --devices 1 --steps 41 --save p3=p3.raw) > "$dir/log.txt" 2>&1 || status=$? ;;
  mpi) (cd "$dir" && POCL_DEVICES=pthread stepgen_mpirun 2 "$program" --device-type cpu --steps 41 --save p3=p3.raw) > "$dir/log.txt" 2>&1 || status=$? ;;
  cuda-emu) (cd "$dir" && STEPGEN_CUDA_EMULATE=1 "$program" --steps 41 --save p3=p3.raw) > "$dir/log.txt" 2>&1 || status=$? ;;
  cuda-emu-mpi) (cd "$dir" && STEPGEN_CUDA_EMULATE=1 stepgen_mpirun 2 "$program" --steps 41 --save p3=p3.raw) > "$dir/log.txt" 2>&1 || status=$? ;;
esac
if [ "$status" -eq 0 ] || [ -e "$dir/traces.csv" ] || [ -e "$dir/p3.raw" ] ||
  ! grep -q "inject into p3: value file 'wavelet.raw' holds 40 values (one per step) but this run takes 41 steps" "$dir/log.txt" ||
  grep -q "^probe:\|^1 device\|^time:" "$dir/log.txt"; then
  cat "$dir/log.txt"; ls "$dir"; echo "FAIL: $mode: --steps past the value file exited $status"; failures=$((failures + 1))
else
  echo "ok: $mode: --steps past the value file fails at start-up with: $(grep -m1 'inject into' "$dir/log.txt")"
fi

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all runs equal the serial reference (fields and traces)"
