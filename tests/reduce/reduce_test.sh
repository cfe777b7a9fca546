#!/usr/bin/env bash
# Reductions, until and the monitor end to end (tests/reduce/): reduce.xml (every op, at several
# points of the body and intervals, a monitor with a CSV) and until.xml (a Jacobi that stops on
# convergence at step 23 of 40), generated, built and run in one MODE:
#   opencl    PoCL CPU devices: 1-4 devices, --strategy min-exchange, --verify; out of core
#             (1 and 2 devices, 1 and 2 steps per pass, the model's choice), and a
#             --steps-per-pass that does not divide `every` refused
#   cuda-emu  the CUDA program on the CPU emulation: 1-4 devices, out of core
#   mpi       the OpenCL program with --distribution mpi on 1-3 ranks, in core and out of core
#   cuda-emu-mpi  the CUDA program with --distribution mpi on the emulation, 2 ranks, in core
#             and out of core
# Every run's reductions equal Python's math.fsum / exact min and max over the arrays it saved
# (check_reductions.py), the same bits on every configuration; the monitor's CSV has the same
# values everywhere; until stops every configuration after step 23 with the arrays a run of
# reduce.xml for 24 steps has; --quiet prints nothing of the monitor but still writes its CSV;
# (opencl) a spec differing from until.xml only in a reduce op refuses until.xml's checkpoint.
# Usage: reduce_test.sh STEPGEN SOURCE_DIR WORK_DIR MODE
set -euo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 src=$2 work=$3 mode=$4
here="$src/tests/reduce"
out="$work/$mode"
rm -rf "$out"
mkdir -p "$out/runs"

build() {  # build SPEC NAME: the program's path in $program
  local spec=$1 name=$2 gen="$out/gen-$2"
  case $mode in
    opencl)
      "$stepgen" generate "$spec" --target opencl -o "$gen" >/dev/null
      build_program "$gen"
      program="$gen/build/$name" ;;
    mpi)
      "$stepgen" generate "$spec" --target opencl --distribution mpi -o "$gen" >/dev/null
      build_program "$gen"
      program="$gen/build/$name" ;;
    cuda-emu)
      "$stepgen" generate "$spec" --target cuda -o "$gen" >/dev/null
      "$src/tests/cuda_emu/build.sh" "$gen" "$out/$name"
      program="$out/$name" ;;
    cuda-emu-mpi)
      "$stepgen" generate "$spec" --target cuda --distribution mpi -o "$gen" >/dev/null
      "$src/tests/cuda_emu/build.sh" "$gen" "$out/$name" --mpi
      program="$out/$name" ;;
  esac
}

# run LABEL DEVICES ARGS...: runs $program in its own folder (the monitor's CSV lands there),
# saving A and B; the log in LABEL/log.txt.
run() {
  local label=$1 n=$2; shift 2
  local dir="$out/runs/$label"
  mkdir -p "$dir"
  printf '%s\n' "$*" > "$dir/args.txt"
  local status=0
  case $mode in
    opencl)
      (cd "$dir" && POCL_DEVICES="$(printf 'pthread %.0s' $(seq "$n"))" timeout 300 "$program" \
        --device-type cpu --devices "$n" --save A=A.raw --save B=B.raw "$@" > log.txt 2>&1) || status=$? ;;
    mpi)
      # RUN_DEVICES: the node's devices when they are not one per rank (--devices K: n * K)
      (cd "$dir" && source "$src/tests/mpi/mpirun.sh" && POCL_DEVICES="$(printf 'pthread %.0s' $(seq "${RUN_DEVICES:-$n}"))" stepgen_mpirun "$n" \
        "$program" --device-type cpu --save A=A.raw --save B=B.raw "$@" > log.txt 2>&1) || status=$? ;;
    cuda-emu-mpi)
      (cd "$dir" && source "$src/tests/mpi/mpirun.sh" &&
        mpirun_flags+=(-x STEPGEN_CUDA_EMULATE -x STEPGEN_CUDA_EMULATE_ORDER) &&
        STEPGEN_CUDA_EMULATE=${RUN_DEVICES:-$n} STEPGEN_CUDA_EMULATE_ORDER=deferred stepgen_mpirun "$n" "$program" \
        --save A=A.raw --save B=B.raw "$@" > log.txt 2>&1) || status=$? ;;
    cuda-emu)
      (cd "$dir" && STEPGEN_CUDA_EMULATE_ORDER=deferred STEPGEN_CUDA_EMULATE_SEED=${#labels[@]} STEPGEN_CUDA_EMULATE=$n timeout 300 "$program" --devices "$n" \
        --save A=A.raw --save B=B.raw "$@" > log.txt 2>&1) || status=$? ;;
  esac
  if [ "$status" -ne 0 ]; then
    sed 's/^/  | /' "$dir/log.txt"; echo "FAIL: $label ($*): the run failed (status $status)"; exit 1
  fi
}

# The monitor's CSV without its time columns.
values() { cut -d, -f1-6 "$1"; }

# --- reduce.xml: every op, against Python, the same bits everywhere ------------------------------
build "$here/reduce.xml" reduce
if [ "$mode" = opencl ]; then
  # The YAML specs say the same: the same program but for the spec's name.
  for spec in reduce until; do
    "$stepgen" generate "$here/$spec.yaml" --target opencl -o "$out/yaml-$spec" >/dev/null
    "$stepgen" generate "$here/$spec.xml" --target opencl -o "$out/xml-$spec" >/dev/null
    diff <(grep -v -e "$spec\.xml" -e "templates hash" "$out/xml-$spec/$spec.cpp") <(grep -v -e "$spec\.yaml" -e "templates hash" "$out/yaml-$spec/$spec.cpp") ||
      { echo "FAIL: $spec.yaml and $spec.xml give different programs"; exit 1; }
  done
fi
labels=()
case $mode in
  opencl)
    for n in 1 2 3 4; do run "d$n" "$n"; labels+=("d$n"); done
    run d4-min-exchange 4 --strategy min-exchange --verify; labels+=(d4-min-exchange)
    grep -q "verify: OK" "$out/runs/d4-min-exchange/log.txt" || { echo "FAIL: --verify"; exit 1; }
    run ooc-d1-k2-c3 1 --out-of-core on --ooc-chunks 3 --steps-per-pass 2; labels+=(ooc-d1-k2-c3)
    run ooc-d1-k1-c2 1 --out-of-core on --ooc-chunks 2 --steps-per-pass 1; labels+=(ooc-d1-k1-c2)
    run ooc-d2-k2 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 2; labels+=(ooc-d2-k2)
    run ooc-d2-model 2 --out-of-core on; labels+=(ooc-d2-model)
    # The model may pick only steps per pass that divide every reduction's `every` (gcd 2).
    grep -q "out-of-core: on" "$out/runs/ooc-d2-model/log.txt" || { echo "FAIL: not out of core"; exit 1; }
    if grep -Eq "[0-9]+ chunk\(s\)[^,]*, ([3-9]|[1-9][0-9]+) step\(s\) per pass" "$out/runs/ooc-d2-model/log.txt"; then
      cat "$out/runs/ooc-d2-model/log.txt"; echo "FAIL: the model chose steps per pass that do not divide 2"; exit 1
    fi
    # A --steps-per-pass that does not divide `every`: refused, saying why.
    status=0
    (cd "$out/runs" && POCL_DEVICES=pthread "$program" --device-type cpu --out-of-core on \
      --steps-per-pass 3 > k3.txt 2>&1) || status=$?
    if [ "$status" -ne 1 ] || ! grep -q "3 steps per pass .* do not divide 2" "$out/runs/k3.txt"; then
      cat "$out/runs/k3.txt"; echo "FAIL: --steps-per-pass 3 was not refused (status $status)"; exit 1
    fi
    # A restart writes its own table, run-from-000008.csv (the rows from step 8 on, as the
    # straight run's), and leaves the table of the run it resumes as it was (issue 50: it was
    # replaced).
    run ckpt8 2 --checkpoint c.ckpt --checkpoint-every 8 --steps 8
    cp "$out/runs/ckpt8/run.csv" "$out/runs/ckpt8/run.csv.before"
    (cd "$out/runs/ckpt8" && POCL_DEVICES="pthread pthread" timeout 300 "$program" --device-type cpu \
      --devices 2 --restart c.ckpt --checkpoint-every 0 > restart.txt 2>&1) ||
      { cat "$out/runs/ckpt8/restart.txt"; echo "FAIL: the restart from step 8 did not run"; exit 1; }
    cmp -s "$out/runs/ckpt8/run.csv" "$out/runs/ckpt8/run.csv.before" ||
      { echo "FAIL: the restart replaced the monitor's table of the run it resumes"; exit 1; }
    [ "$(values "$out/runs/ckpt8/run-from-000008.csv")" = "$(values "$out/runs/d1/run.csv" | awk -F, '$1 >= 8')" ] ||
      { cat "$out/runs/ckpt8/run-from-000008.csv"; echo "FAIL: run-from-000008.csv is not the straight run's table from step 8"; exit 1; }
    echo "ok: a restart's monitor table is run-from-000008.csv; run.csv kept"
    # --quiet: no monitor line, the CSV still written.
    run d2-quiet 2 --quiet
    if grep -q "^monitor:" "$out/runs/d2-quiet/log.txt"; then echo "FAIL: --quiet printed the monitor"; exit 1; fi
    ;;
  cuda-emu)
    for n in 1 2 3 4; do run "d$n" "$n"; labels+=("d$n"); done
    run ooc-d1-k2-c3 1 --out-of-core on --ooc-chunks 3 --steps-per-pass 2; labels+=(ooc-d1-k2-c3)
    run ooc-d2-k2 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 2; labels+=(ooc-d2-k2)
    ;;
  cuda-emu-mpi)
    run r2 2; labels+=(r2)
    run ooc-r2-k2 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 2; labels+=(ooc-r2-k2)
    # 2 ranks of 2 GPUs and 3 parts each (peer copies between a rank's parts, messages between ranks).
    RUN_DEVICES=4 run r2x2 2 --devices 2 --parts 3 --verify; labels+=(r2x2)
    grep -q "verify: OK" "$out/runs/r2x2/log.txt" || { echo "FAIL: CUDA MPI --devices 2 --verify"; exit 1; }
    ;;
  mpi)
    for n in 1 2 3; do run "r$n" "$n"; labels+=("r$n"); done
    run r2-verify 2 --verify; labels+=(r2-verify)
    grep -q "verify: OK" "$out/runs/r2-verify/log.txt" || { echo "FAIL: MPI --verify"; exit 1; }
    run ooc-r2-k2 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 2; labels+=(ooc-r2-k2)
    # 2 ranks of 2 devices and 3 parts each: the partials of 6 parts merged, the same bits.
    RUN_DEVICES=4 run r2x2 2 --devices 2 --parts 3 --verify; labels+=(r2x2)
    grep -q "verify: OK" "$out/runs/r2x2/log.txt" || { echo "FAIL: MPI --devices 2 --verify"; exit 1; }
    ;;
esac
first=${labels[0]}
for label in "${labels[@]}"; do
  dir="$out/runs/$label"
  python3 "$here/check_reductions.py" "$dir" || { sed 's/^/  | /' "$dir/log.txt"; echo "FAIL: $label"; exit 1; }
  # The same bits everywhere (%.17g), and the monitor's table in the CSV.
  if ! diff <(grep "^reduce " "$dir/log.txt") <(grep "^reduce " "$out/runs/$first/log.txt") >/dev/null; then
    echo "FAIL: $label: reductions differ from $first"; exit 1
  fi
  [ -f "$dir/run.csv" ] || { echo "FAIL: $label: no run.csv"; exit 1; }
  diff <(values "$dir/run.csv") <(values "$out/runs/$first/run.csv") || { echo "FAIL: $label: run.csv differs from $first"; exit 1; }
  echo "ok: reduce $label: $(grep '^reduce ' "$dir/log.txt" | tr '\n' ' ')"
done
# The CSV: a header, a line every 4 steps (3, 7, ..., 39) with the values the report gives.
csv="$out/runs/$first/run.csv"
[ "$(head -1 "$csv")" = "step,res,diff,total,lo,hi,ms_per_step,elapsed_s" ] || { cat "$csv"; echo "FAIL: CSV header"; exit 1; }
[ "$(tail -n +2 "$csv" | cut -d, -f1 | tr '\n' ' ')" = "3 7 11 15 19 23 27 31 35 39 " ] || { cat "$csv"; echo "FAIL: CSV steps"; exit 1; }
last=$(tail -1 "$csv")
for i in 2 3 4 5 6; do
  name=$(head -1 "$csv" | cut -d, -f$i)
  value=$(echo "$last" | cut -d, -f$i)
  grep -qx "reduce $name = $value (step 39)" "$out/runs/$first/log.txt" || { echo "FAIL: CSV $name = $value is not the report's"; exit 1; }
done
if [ "$mode" = opencl ] || [ "$mode" = cuda-emu ]; then
  grep -q "^monitor: *39 " "$out/runs/$first/log.txt" || { echo "FAIL: no monitor line for step 39"; exit 1; }
fi
echo "ok: the monitor's CSV"
# The monitor's table is never written through a symbolic link (docs/generated.md, "Files"): a
# link at run.csv is refused before the run (exit 2), the file it points to unchanged.
if [ "$mode" = opencl ]; then
  dir="$out/runs/monitor-link"
  mkdir -p "$dir"
  echo "a table of the user's" > "$out/mine.csv"
  cp "$out/mine.csv" "$out/mine.csv.keep"
  ln -s "$out/mine.csv" "$dir/run.csv"
  status=0
  (cd "$dir" && POCL_DEVICES=pthread timeout 300 "$program" --device-type cpu --devices 1 > log.txt 2>&1) ||
    status=$?
  if [ "$status" -ne 2 ] || ! cmp -s "$out/mine.csv" "$out/mine.csv.keep" ||
     ! grep -qF "the <monitor> file 'run.csv': 'run.csv' is a symbolic link (to $out/mine.csv)" "$dir/log.txt"; then
    cat "$dir/log.txt"; echo "FAIL: a link at the monitor's table (status $status)"; exit 1
  fi
  echo "ok: a symbolic link at the monitor's table: refused, the file it points to unchanged"
fi

# A 24-step run of reduce.xml: what until.xml must hold after stopping at step 23.
run steps24 2 --steps 24

# --- until.xml: stops after step 23 everywhere, holding that state -------------------------------
build "$here/until.xml" until
labels=()
case $mode in
  opencl)
    for n in 1 2 4; do run "until-d$n" "$n"; labels+=("until-d$n"); done
    run until-d3-verify 3 --verify; labels+=(until-d3-verify)
    grep -q "verify: OK" "$out/runs/until-d3-verify/log.txt" || { echo "FAIL: until --verify"; exit 1; }
    run until-ooc-d1 1 --out-of-core on --ooc-chunks 3 --steps-per-pass 4; labels+=(until-ooc-d1)
    run until-ooc-d2 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 2; labels+=(until-ooc-d2)
    # Out of core, the run in segments ending where a checkpoint is due (every 8): the stop
    # after step 23 falls on a segment's last pass (it was lost there, and the run went on).
    run until-ooc-ckpt 1 --out-of-core on --ooc-chunks 3 --steps-per-pass 4 --checkpoint c.ckpt --checkpoint-every 8
    labels+=(until-ooc-ckpt)
    ;;
  cuda-emu)
    for n in 1 3; do run "until-d$n" "$n"; labels+=("until-d$n"); done
    run until-ooc-d2 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 4 --checkpoint c.ckpt --checkpoint-every 12
    labels+=(until-ooc-d2)
    ;;
  cuda-emu-mpi)
    run until-r2 2; labels+=(until-r2)
    run until-ooc-r2 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 4; labels+=(until-ooc-r2)
    ;;
  mpi)
    for n in 2 3; do run "until-r$n" "$n"; labels+=("until-r$n"); done
    run until-ooc-r2 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 4 --checkpoint c.ckpt --checkpoint-every 8
    labels+=(until-ooc-r2)
    ;;
esac
# The progress line (no <monitor> in until.xml): on a terminal (script(1) gives the program a
# pseudo-terminal), "step N/40  R steps/s  T s left" rewritten in place with \r, ending on
# the stop step; never in a file (the runs above); --quiet silences it.
if [ "$mode" = opencl ] && command -v script > /dev/null; then
  for quiet in "" --quiet; do
    dir="$out/runs/progress$quiet"
    mkdir -p "$dir"
    (cd "$dir" && POCL_DEVICES=pthread timeout 300 script -qefc \
      "'$program' --device-type cpu --devices 1 $quiet" typescript > /dev/null 2>&1) ||
      { cat "$dir/typescript"; echo "FAIL: the run on a terminal ($quiet) failed"; exit 1; }
    if [ -z "$quiet" ]; then
      grep -aq $'\rstep 24/40  [0-9.]* steps/s  [0-9]* s left' "$dir/typescript" ||
        { cat -A "$dir/typescript" | head -40; echo "FAIL: no progress line on a terminal"; exit 1; }
    elif grep -aq "steps/s" "$dir/typescript"; then
      cat -A "$dir/typescript" | head -40; echo "FAIL: --quiet printed the progress line"; exit 1
    fi
  done
  for label in "${labels[@]}"; do
    if grep -aq "steps/s" "$out/runs/$label/log.txt"; then
      echo "FAIL: $label: a progress line in a file"; exit 1
    fi
  done
  echo "ok: the progress line on a terminal (not in files, not with --quiet)"
fi
for label in "${labels[@]}"; do
  dir="$out/runs/$label"
  grep -q "^stopped at step 23: (res < 2.9 && diff < 1) || step >= 1000 (res = .*, diff = .*)" "$dir/log.txt" ||
    { sed 's/^/  | /' "$dir/log.txt"; echo "FAIL: $label did not stop after step 23"; exit 1; }
  grep -q "^time: .* for 24 steps" "$dir/log.txt" || { sed 's/^/  | /' "$dir/log.txt"; echo "FAIL: $label: the report does not count 24 steps"; exit 1; }
  if grep -q "checkpoint-every" "$dir/args.txt"; then
    grep -q "^checkpoint: 'c.ckpt' after step 24" "$dir/log.txt" ||
      { sed 's/^/  | /' "$dir/log.txt"; echo "FAIL: $label: no checkpoint after step 24, where it stopped"; exit 1; }
  fi
  for a in A B; do
    cmp -s "$dir/$a.raw" "$out/runs/steps24/$a.raw" || { echo "FAIL: $label: $a is not the state after step 23"; exit 1; }
  done
  echo "ok: until $label: $(grep '^stopped' "$dir/log.txt")"
done

# --- the checkpoint's spec hash covers the reductions (emit/spec_hash.hpp) ------------------------
# until.xml with diff's op linf made max: a checkpoint of until.xml (its reductions' values
# recorded in it) is another spec's to this program, and the restart is refused before any step.
if [ "$mode" = opencl ]; then
  variant="$out/variant"
  mkdir -p "$variant"
  cp "$here/jacobi2d.cl" "$here/jacobi2d.cu" "$variant/"
  sed -e 's/<stencil name="until">/<stencil name="until_max">/' \
      -e 's/name="diff" op="linf"/name="diff" op="max"/' "$here/until.xml" > "$variant/until_max.xml"
  grep -q 'op="max"' "$variant/until_max.xml" || { echo "FAIL: the variant spec did not change"; exit 1; }
  build "$variant/until_max.xml" until_max
  dir="$out/runs/restart-other-op"
  mkdir -p "$dir"
  status=0
  (cd "$dir" && POCL_DEVICES=pthread timeout 300 "$program" --device-type cpu --devices 1 \
    --restart ../until-ooc-ckpt/c.ckpt > log.txt 2>&1) || status=$?
  if [ "$status" -eq 0 ] || ! grep -q "cannot restart from '../until-ooc-ckpt/c.ckpt': it was written by another spec" "$dir/log.txt" ||
    grep -q "^stopped\|^time:" "$dir/log.txt"; then
    sed 's/^/  | /' "$dir/log.txt"; echo "FAIL: a restart of until.xml's checkpoint with another reduce op (status $status)"; exit 1
  fi
  echo "ok: a checkpoint of until.xml is refused to a spec with another reduce op: $(head -1 "$dir/log.txt")"
fi
