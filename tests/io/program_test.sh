#!/usr/bin/env bash
# Output, checkpoint and restart in a generated program, end to end (docs/io.md):
# tests/io/program/wave.xml (the acoustic kernel, a rotate of three arrays, an .h5 output with
# first and last, a .raw output, a checkpoint every 5 steps, a file() initial value) generated,
# built and run from working directories other than the spec's folder:
#  - outputs: each snapshot equals --steps N --save at that step, bit for bit (h5py); the
#    series holds the steps it should, its XDMF lists them (xmllint, h5py); .raw outputs too;
#  - out of core (steps per pass that do not divide the intervals): the same outputs and the
#    same checkpoint file, byte for byte;
#  - restart: from step 5 on 3 devices, from step 10 out of core, equal the straight run bit
#    for bit; the restarted series (NAME-from-STEP.h5) equals the straight series;
#  - errors: a truncated or corrupted checkpoint, one of another spec, --restart past --steps,
#    a file() value missing from --spec-dir: clear errors, exit status 1 or 2, no crash;
#  - traces (io2): the receivers' trace.h5 holds what trace.csv of the same run holds (straight,
#    out of core, restarted: the rows from the restart on); the table `scale` is read from
#    file(data/scale.raw) relative to the spec's folder, as the arrays;
#  - files (program_files.sh): links at written paths, inputs, a restart's series and traces in
#    the collision check, a failed HDF5 write;
#  - kill -9 (opencl only): runs with a checkpoint after every step killed at random moments;
#    the checkpoint under its name is always absent or complete, and a restart from it equals
#    the straight run.
# Usage: program_test.sh STEPGEN SOURCE_DIR WORK_DIR PYTHON TARGET
#   TARGET: opencl (PoCL CPU devices), cuda-emu (tests/cuda_emu, STEPGEN_CUDA_EMULATE) or
#   opencl-mpi (--distribution mpi, one rank per PoCL device: "N devices" are N ranks; the
#   files are written by the ranks together, HDF5 by parallel HDF5), cuda-emu-mpi (the same
#   with the CUDA program on the emulation)
set -euo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 src=$2 work=$3 python=$4 target=$5
rm -rf "$work"
mkdir -p "$work/spec/data"
cp "$src/tests/io/program/wave.xml" "$src/tests/io/program/stamp.cl" "$src/tests/io/program/stamp.cu" \
   "$src/examples/acoustic/acoustic.cl" "$src/examples/acoustic/acoustic.cu" "$work/spec/"
"$python" -c "
import numpy as np
np.random.seed(3)
(1 + 0.1 * np.random.rand(24 * 20 * 48)).astype('<f4').tofile('$work/spec/data/vel.raw')
np.array([0.5, 0.25], dtype='<f4').tofile('$work/spec/data/scale.raw')"
check="$python $src/tests/io/program_check.py"

if [ "$target" = opencl ] || [ "$target" = opencl-mpi ]; then
  distribution=()
  if [ "$target" = opencl-mpi ]; then
    distribution=(--distribution mpi)
    source "$src/tests/mpi/mpirun.sh"
  fi
  "$stepgen" generate "$work/spec/wave.xml" --target opencl "${distribution[@]}" -o "$work/gen" >/dev/null
  build_program "$work/gen"
  program="$work/gen/build/wave"
elif [ "$target" = cuda-emu-mpi ]; then
  source "$src/tests/mpi/mpirun.sh"
  mpirun_flags+=(-x STEPGEN_CUDA_EMULATE)
  "$stepgen" generate "$work/spec/wave.xml" --target cuda --distribution mpi -o "$work/gen" >/dev/null
  # Parallel HDF5 (what the generated CMakeLists.txt finds with pkg-config for an MPI program).
  STEPGEN_CUDA_EMU_FLAGS="-DSTEPGEN_HDF5 -I/usr/include/hdf5/openmpi -L/usr/lib/x86_64-linux-gnu/hdf5/openmpi -lhdf5" \
    "$src/tests/cuda_emu/build.sh" "$work/gen" "$work/wave" --mpi
  program="$work/wave"
else
  "$stepgen" generate "$work/spec/wave.xml" --target cuda -o "$work/gen" >/dev/null
  # An .h5 output: the program is built with serial HDF5, as the generated CMakeLists.txt does.
  STEPGEN_CUDA_EMU_FLAGS="-DSTEPGEN_HDF5 -I/usr/include/hdf5/serial -L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5" \
    "$src/tests/cuda_emu/build.sh" "$work/gen" "$work/wave"
  program="$work/wave"
fi

# run NAME DEVICES ARGS...: runs the program in $work/NAME (its working directory), saving
# p0 p1 p2 age there; fails the test when the run fails.
run() {
  local name=$1 n=$2; shift 2
  mkdir -p "$work/$name"
  if ! (cd "$work/$name" && launch "$n" "$@" --save p0=p0.raw --save p1=p1.raw --save p2=p2.raw --save age=age.raw \
        > log.txt 2>&1); then
    cat "$work/$name/log.txt"; echo "FAIL: run $name failed"; exit 1
  fi
}
launch() {
  local n=$1; shift
  if [ "$target" = opencl ]; then
    POCL_DEVICES=$(printf 'pthread %.0s' $(seq "$n")) "$program" --device-type cpu --devices "$n" "$@"
  elif [ "$target" = opencl-mpi ]; then
    POCL_DEVICES=$(printf 'pthread %.0s' $(seq "$n")) stepgen_mpirun "$n" "$program" --device-type cpu "$@"
  elif [ "$target" = cuda-emu-mpi ]; then
    STEPGEN_CUDA_EMULATE=$n stepgen_mpirun "$n" "$program" "$@"
  else
    STEPGEN_CUDA_EMULATE=$n "$program" --devices "$n" "$@"
  fi
}
# expect_error NAME PATTERN ARGS...: the run fails with an error matching PATTERN.
expect_error() {
  local name=$1 pattern=$2 status=0; shift 2
  mkdir -p "$work/$name"
  (cd "$work/$name" && launch 1 "$@" > log.txt 2>&1) || status=$?
  # (mpirun passes on a rank's status, or its own when ranks fail: any but 0.)
  if [ "$status" -eq 0 ] || { [ "$status" -gt 2 ] && [ "${target%-mpi}" = "$target" ]; } ||
     ! grep -q -- "$pattern" "$work/$name/log.txt"; then
    cat "$work/$name/log.txt"; echo "FAIL: $name: expected an error matching '$pattern' (status $status)"; exit 1
  fi
}
same_saves() {  # same_saves A B: the saved arrays of runs A and B are equal
  for a in p0 p1 p2 age; do
    cmp -s "$work/$1/$a.raw" "$work/$2/$a.raw" || { echo "FAIL: $1 and $2: array $a differs"; exit 1; }
  done
}

# The straight run: 14 steps on 2 devices (outputs at 0 4 8 12 14 and 6 12, checkpoints at 5, 10).
run straight 2
grep -q "checkpoint: 'run.ckpt' after step 10" "$work/straight/log.txt" || { cat "$work/straight/log.txt"; echo "FAIL: no checkpoint"; exit 1; }
# ckptbg: the report says what the checkpoints cost; one process in core writes them in the
# background (announced once complete, in order), MPI ranks and out of core while the run waits.
cost_line() {  # cost_line RUN PATTERN
  grep -q -- "$2" "$work/$1/log.txt" || { cat "$work/$1/log.txt"; echo "FAIL: $1: no line matching '$2'"; exit 1; }
}
[ "$(grep "^checkpoint: " "$work/straight/log.txt" | tr '\n' ' ')" = "checkpoint: 'run.ckpt' after step 5 checkpoint: 'run.ckpt' after step 10 " ] ||
  { cat "$work/straight/log.txt"; echo "FAIL: checkpoint lines"; exit 1; }
if [ "${target%-mpi}" = "$target" ]; then
  cost_line straight "^checkpoints: 2 x [0-9.]* KiB in [0-9.]* s ([0-9.]* GB/s) written in the background, the run waited [0-9.]* s$"
else
  cost_line straight "^checkpoints: 2 x [0-9.]* KiB written in [0-9.]* s ([0-9.]* GB/s; the run waited)$"
fi
$check steps "$work/straight/snap/wave.h5" 0,4,8,12,14
xmllint --noout "$work/straight/snap/wave.xdmf"
for s in 0 4 8 12; do
  run "at$s" 1 --steps "$s" --checkpoint-every 0
  for a in p1 p2; do $check same "$work/straight/snap/wave.h5" "$s" "$a" "$work/at$s/$a.raw"; done
done
for a in p1 p2; do $check same "$work/straight/snap/wave.h5" 14 "$a" "$work/straight/$a.raw"; done
cmp "$work/straight/raw/p_p1_000012.raw" "$work/at12/p1.raw"
# A checkpoint that cannot be written (a device) is refused before the run, not after the steps
# before the first checkpoint.
expect_error ckpt_device "cannot write checkpoint '/dev/null': '/dev/null' is a character device, not a regular file" \
  --checkpoint /dev/null --checkpoint-every 5
if grep -q "^time:" "$work/ckpt_device/log.txt"; then cat "$work/ckpt_device/log.txt"; echo "FAIL: the run went on"; exit 1; fi
# A run refused once the devices are known (out of core, no chunk fits a 4 KiB budget) writes
# nothing: the previous run's snapshot series in its folder stays as it was, not replaced by
# one holding step 0 alone.
mkdir -p "$work/refused"
cp -r "$work/straight/snap" "$work/refused/"
expect_error refused "cannot fit" --out-of-core on --device-memory 4KiB
for f in wave.h5 wave.xdmf; do
  cmp -s "$work/straight/snap/$f" "$work/refused/snap/$f" || { echo "FAIL: a refused run changed snap/$f"; exit 1; }
done
cmp "$work/straight/raw/p_age_000012.raw" "$work/at12/age.raw"
[ "$(ls "$work/straight/raw" | tr '\n' ' ')" = "p_age_000006.raw p_age_000012.raw p_p1_000006.raw p_p1_000012.raw " ] || { ls "$work/straight/raw"; echo "FAIL: raw outputs"; exit 1; }
echo "ok: outputs equal --save at steps 0 4 8 12 14 (h5) and 12 (raw)"
$check trace "$work/straight/trace.h5" "$work/straight/trace.csv" p2 2
[ "$(cut -d, -f1 "$work/straight/trace.csv" | tr '\n' ' ')" = "step 1 3 5 7 9 11 13 " ] ||
  { cat "$work/straight/trace.csv"; echo "FAIL: trace.csv rows"; exit 1; }
echo "ok: the HDF5 trace equals the CSV trace"

# Out of core, 3 steps per pass (not a divisor of 4, 5 or 6): the same files.
ooc=(--out-of-core on --ooc-chunks 2 --steps-per-pass 3)
run ooc 1 "${ooc[@]}"
grep -q "^out-of-core: on" "$work/ooc/log.txt" || { cat "$work/ooc/log.txt"; echo "FAIL: not out of core"; exit 1; }
cost_line ooc "^checkpoints: 2 x [0-9.]* KiB written in [0-9.]* s ([0-9.]* GB/s; the run waited)$"
same_saves straight ooc
$check series "$work/straight/snap/wave.h5" "$work/ooc/snap/wave.h5" 0,4,8,12,14
cmp "$work/straight/raw/p_p1_000006.raw" "$work/ooc/raw/p_p1_000006.raw"
cmp "$work/straight/raw/p_age_000012.raw" "$work/ooc/raw/p_age_000012.raw"
cmp "$work/straight/run.ckpt" "$work/ooc/run.ckpt"
cmp "$work/straight/trace.csv" "$work/ooc/trace.csv"
$check trace "$work/ooc/trace.h5" "$work/straight/trace.csv" p2 2
echo "ok: out of core, the same outputs and checkpoint"

# Restart from step 5 (a run of 7 steps leaves it) on 3 devices; from step 10 out of core.
run ck5 1 --steps 7
run restart3 3 --restart ../ck5/run.ckpt --checkpoint-every 0
grep -q "restart: from '../ck5/run.ckpt' at step 5" "$work/restart3/log.txt" || { cat "$work/restart3/log.txt"; echo "FAIL: no restart line"; exit 1; }
# The report counts the steps this run made (14 - 5), not the run's last step.
grep -q "^time: .* s for 9 steps" "$work/restart3/log.txt" || { cat "$work/restart3/log.txt"; echo "FAIL: the restart's report does not say 9 steps"; exit 1; }
same_saves straight restart3
# A restart's traces go to files of their own (trace-from-000005.*), as its series.
$check trace "$work/restart3/trace-from-000005.h5" "$work/restart3/trace-from-000005.csv" p2 2
[ "$(awk -F, 'NR > 1 && $1 >= 5' "$work/straight/trace.csv")" = "$(tail -n +2 "$work/restart3/trace-from-000005.csv")" ] ||
  { cat "$work/restart3/trace-from-000005.csv"; echo "FAIL: the restarted trace is not the straight run's from step 5"; exit 1; }
$check steps "$work/restart3/snap/wave-from-000005.h5" 8,12,14
$check series "$work/straight/snap/wave.h5" "$work/restart3/snap/wave-from-000005.h5" 8,12,14
cp "$work/straight/run.ckpt" "$work/ten.ckpt"
run restart_ooc 2 --restart ../ten.ckpt "${ooc[@]}" --checkpoint-every 0
same_saves straight restart_ooc
run restart_verify 2 --restart ../ten.ckpt --checkpoint-every 0 --verify
grep -q "^verify: OK" "$work/restart_verify/log.txt"
# A restart's .raw outputs keep their names (docs/io.md): the files of steps 6 and 12, the
# straight run's bits (not renamed p-from-000005_p1_000006.raw).
[ "$(ls "$work/restart3/raw" | tr '\n' ' ')" = "p_age_000006.raw p_age_000012.raw p_p1_000006.raw p_p1_000012.raw " ] ||
  { ls "$work/restart3/raw"; echo "FAIL: a restart's raw outputs"; exit 1; }
for f in p_age_000006 p_p1_000006 p_age_000012 p_p1_000012; do cmp "$work/straight/raw/$f.raw" "$work/restart3/raw/$f.raw"; done
echo "ok: restarted from step 5 on 3 devices and from step 10 out of core, equal to the straight run"

# The files a run writes: links, inputs, a restart's files, a failed HDF5 write.
source "$src/tests/io/program_files.sh"

# An `until` that stops the run after step 8 (a reduction and `step`), with receivers and an
# output with last="true": the traces hold no rows past the stop, and the stopped run writes
# its --save, traces, monitor and `last` output as a run that ends there would. The
# stop is decided in main.hpp (one process and MPI), the same for every backend: the OpenCL targets
# run it, in core and out of core.
if [ "$target" = opencl ] || [ "$target" = opencl-mpi ]; then
  "$src/tests/io/program/make_until_spec.sh" "$work/spec" "$work/until_spec"
  "$stepgen" generate "$work/until_spec/wave.xml" --target opencl "${distribution[@]}" -o "$work/until_gen" >/dev/null
  build_program "$work/until_gen"
  straight_program=$program
  program="$work/until_gen/build/wave"
  run until 2 --checkpoint-every 0
  run until_ooc 1 --out-of-core on --ooc-chunks 2 --steps-per-pass 1 --checkpoint-every 0
  # Steps per pass that the reduction (computed every step) refuses: refused before anything
  # is written, not even the step-0 snapshot.
  mkdir -p "$work/until_k2"
  status=0
  (cd "$work/until_k2" && launch 1 --out-of-core on --ooc-chunks 2 --steps-per-pass 2 > ../until_k2.txt 2>&1) ||
    status=$?
  if [ $status -ne 1 ] || ! grep -q "2 steps per pass .* do not divide 1" "$work/until_k2.txt" ||
    [ -n "$(ls -A "$work/until_k2")" ]; then
    cat "$work/until_k2.txt"; ls -R "$work/until_k2"
    echo "FAIL: --steps-per-pass 2 against a reduction every step: exit $status, files above"; exit 1
  fi
  program=$straight_program
  for r in until until_ooc; do
    grep -q "stopped at step 8" "$work/$r/log.txt" || { cat "$work/$r/log.txt"; echo "FAIL: $r did not stop at step 8"; exit 1; }
    $check steps "$work/$r/snap/wave.h5" 0,4,8,9
    for a in p1 p2; do $check same "$work/$r/snap/wave.h5" 9 "$a" "$work/$r/$a.raw"; done
    [ "$(cut -d, -f1 "$work/$r/trace.csv" | tr '\n' ' ')" = "step 1 3 5 7 " ] ||
      { cat "$work/$r/trace.csv"; echo "FAIL: $r: trace.csv rows"; exit 1; }
    [ "$(head -5 "$work/straight/trace.csv")" = "$(cat "$work/$r/trace.csv")" ] ||
      { echo "FAIL: $r: the traces differ from the straight run's"; exit 1; }
    $check trace "$work/$r/trace.h5" "$work/$r/trace.csv" p2 2
  done
  same_saves until until_ooc
  $check series "$work/until/snap/wave.h5" "$work/until_ooc/snap/wave.h5" 0,4,8,9
  # The same bytes, not only the same values, as docs/io.md says (no HDF5 modification times
  # in the files).
  cmp "$work/until/snap/wave.h5" "$work/until_ooc/snap/wave.h5" ||
    { echo "FAIL: the snapshot files of 2 devices in core and 1 out of core differ in bytes"; exit 1; }
  echo "ok: stopped by until after step 8: traces up to step 7, last=\"true\" at 9 equal to --save, in core and out of core"
fi

# Errors.
ck="$work/straight/run.ckpt"
size=$(stat -c %s "$ck")
head -c $((size / 2)) "$ck" > "$work/truncated.ckpt"
expect_error truncated "cannot restart from '../truncated.ckpt': it is truncated" --restart ../truncated.ckpt
cp "$ck" "$work/corrupted.ckpt"
printf '\x55' | dd of="$work/corrupted.ckpt" bs=1 seek=$((size - 100)) conv=notrunc status=none
expect_error corrupted "is corrupted" --restart ../corrupted.ckpt
expect_error past "past --steps 8" --restart ../ten.ckpt --steps 8
expect_error missing "cannot restart from '../none.ckpt': it does not exist" --restart ../none.ckpt
mkdir -p "$work/elsewhere"
expect_error spec_dir "$work/elsewhere/data/" --spec-dir "$work/elsewhere"
# A checkpoint of another spec: its spec hash changed, its header's checksum right.
$check other_spec "$ck" "$work/other.ckpt"
expect_error other_spec "cannot restart from '../other.ckpt': it was written by another spec" --restart ../other.ckpt
# ckptbg: a checkpoint that cannot be written (in core: found by the writer thread) is an error
# naming the file and the cause, raised in the run, exit status 1.
mkdir -p "$work/ckdir/d.ckpt"
expect_error ckdir "cannot write checkpoint 'd.ckpt': 'd.ckpt' is a directory" --checkpoint d.ckpt --checkpoint-every 5
echo "ok: truncated, corrupted, other spec's checkpoints, restart past --steps, a missing file() value, a checkpoint that cannot be written: errors"

# kill -9 during checkpoints (io2; one target: the writer is the same code in every program):
# --steps 14 with a checkpoint after every step, killed at random moments. What lies under the
# final name is absent or a complete checkpoint (the straight run's size: never partial) from
# which --restart gives the straight run's arrays.
if [ "$target" = opencl ]; then
  full=$(stat -c %s "$work/straight/run.ckpt")
  # every_run DIR: starts the run in DIR and waits for its first checkpoint (start-up done); sets
  # pid, and t0: when the first checkpoint appeared (ms).
  every_run() {
    (cd "$1" && exec env POCL_DEVICES=pthread "$program" --device-type cpu --devices 1 \
       --checkpoint every.ckpt --checkpoint-every 1 --quiet > log.txt 2>&1) &
    pid=$!
    for _ in $(seq 1 2000); do
      [ -e "$1/every.ckpt" ] || ! kill -0 "$pid" 2>/dev/null && break
      sleep 0.005
    done
    t0=$(( $(date +%s%N) / 1000000 ))
  }
  # An uninterrupted run measures the steps after the first checkpoint (mostly the checkpoints'
  # writes and fsyncs); each kill then falls at a random moment of the first 80% of them.
  mkdir -p "$work/kill0"
  every_run "$work/kill0"
  wait "$pid" 2>/dev/null || true
  span=$(( $(date +%s%N) / 1000000 - t0 ))
  [ "$span" -ge 10 ] || span=10
  restarted=0 inside=0
  start=$(date +%s%N)
  for attempt in 1 2 3 4; do
    d="$work/kill$attempt"
    rm -rf "$d"; mkdir -p "$d"
    every_run "$d"
    ms=$(( RANDOM % (span * 8 / 10) ))
    sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    # A temporary file left beside it: this kill fell inside a checkpoint's write.
    if ls -a "$d" | grep -q '^\.every\.ckpt\.stepgen-'; then inside=$((inside + 1)); fi
    if [ -e "$d/every.ckpt" ]; then
      size=$(stat -c %s "$d/every.ckpt")
      [ "$size" = "$full" ] || { ls -la "$d"; echo "FAIL: kill -9 left a partial checkpoint ($size of $full bytes)"; exit 1; }
      run "kill${attempt}_restart" 2 --restart "../kill$attempt/every.ckpt" --checkpoint-every 0
      same_saves straight "kill${attempt}_restart"
      restarted=$((restarted + 1))
    fi
  done
  [ "$restarted" -ge 1 ] || { echo "FAIL: no kill left a checkpoint to restart from"; exit 1; }
  echo "ok: kill -9 during checkpoints (steps after the first: ${span} ms): $restarted of 4 restarts equal the straight run, no partial file, $inside kill(s) inside a write ($(( ($(date +%s%N) - start) / 1000000 )) ms)"
fi
echo "ok: output, checkpoint and restart ($target)"
