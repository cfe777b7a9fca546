#!/usr/bin/env bash
# Phase `sim` (GPU machine, after `sim-generate` here; carry bench/generated): the costs of the
# simulation features on the 16384^2 Jacobi, 1000 steps, one GPU, both backends, against the same
# program with fixed boundaries and nothing else (median of REPS runs, default 3):
#   periodic  <boundary kind="periodic"> in x and y     (issue 24: within 3% of fixed)
#   l2        <reduce op="l2" minus= every="100">       (issue 24: at most 2% of the run)
#   output    <output every="100">, .raw and .h5        (issue 25: at most 5% when the disk keeps up)
#   ckpt      --checkpoint-every 500                    (issue 25: its cost)
# the tuned work-group shape (<local size="auto"/>, issue 26) against each spec's fixed one on
# acoustic 512^3 (500 steps), heat 512^3 (1000) and Jacobi 16384^2 (1000), and two checks: the l2 values printed by CUDA and OpenCL, in core and out of core, are the
# same bits; periodic in core equals periodic out of core (--steps 100, saved A compared).
# The disk's write speed is measured in the same run (dd, 1 GiB, fsync). Prints a table last.
# SIM_QUICK=1 and SIM_RUN_DIR: see below.
# Output cadence (issue 25; SIM_CADENCE=1, the default but with SIM_QUICK; 0: skipped;
# `only`: nothing else, after `SIM_CADENCE=only bench/run.sh sim-generate` here): one 1 GiB
# array (.h5) every 1000 and every 500 steps of Jacobi 16384^2 for 2000 steps
# (specs/sim/jacobi_output_e1000.xml, _e500.xml), written to the disk ($WORK/sim/run-cadence)
# and to tmpfs (/dev/shm/stepgen-cadence), against the same 2000 steps without output; each
# place's write speed measured by dd (1 GiB, fsync) in the same call. The table: the cost (the
# report's time, and the process's wall time, which also waits for the writer's last snapshot)
# and the rate the output needs (GiB per second of compute: 1 GiB / (every x the fixed run's
# seconds per step)) against the place's. CADENCE_REPS (2), CADENCE_DD_MIB (1024).
# Checkpoint rows (issue 25; CADENCE_CKPT=1, the default; 0: skipped): the no-output program
# with --checkpoint-every 1000 and 500 (A and B: 2 GiB a checkpoint), to the same two places;
# their table: the cost (time: and process wall time) against no checkpoint, and the report's
# `checkpoints:` line (what they took, how long the run waited). Each backend's no-output
# reference is run once untimed first (warm: the OpenCL row clean).
# Usage: bench/run.sh sim
set -u
. "$(dirname "$0")/lib.sh"
s=$gen/sim
mkdir -p "$out" "$work/sim"
reps=${REPS:-3}
export LD_LIBRARY_PATH=$s/opencl/lib:${LD_LIBRARY_PATH:-}
register_nvidia_opencl
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
names=(jacobi2d_16384 jacobi_periodic jacobi_l2 jacobi_output_raw jacobi_output acoustic_512 acoustic_512_auto
  heat3d_512 heat3d_512_auto jacobi2d_16384_auto)
# SIM_QUICK=1: fixed, periodic and .h5 output only (both backends) and the periodic check.
# SIM_RUN_DIR: the runs' working directory, where outputs go (e.g. /dev/shm/sim: a disk that
# keeps up), its write speed measured by dd.
quick=${SIM_QUICK:-0}
rundir=${SIM_RUN_DIR:-$work/sim/run}
[ "$quick" = 1 ] && names=(jacobi2d_16384 jacobi_periodic jacobi_output)
# cadence: the output cadence rows (see above); only=1: nothing else.
cadence=${SIM_CADENCE:-1}
[ "$quick" = 1 ] && cadence=${SIM_CADENCE:-0}
only=0
[ "$cadence" = only ] && only=1 && names=(jacobi2d_16384)
[ "$cadence" != 0 ] && names+=(jacobi_output_e1000 jacobi_output_e500)
for n in "${names[@]}"; do
  b=$work/sim/build-$n
  { cmake -S "$s/cuda-$n" -B "$b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-native}" &&
      cmake --build "$b" -j 8; } >"$out/build-$n.log" 2>&1 &
done
wait
mkdir -p "$rundir"
if [ "$only" != 1 ]; then  # (the cadence rows measure their places themselves)
  dd if=/dev/zero of="$rundir/dd.bin" bs=64M count=16 conv=fsync 2>"$out/dd.log"
  disk="$(awk '/copied/ {print $(NF-1), $NF}' "$out/dd.log") ($rundir)"
  rm -f "$rundir/dd.bin"
fi

# run BACKEND NAME TAG [ARGS...]: REPS runs in $work/sim/run (outputs land there), the median
# time-loop ms/step; logs $out/BACKEND-TAG-i.log.
declare -A ms
run() {
  local be=$1 n=$2 tag=$3 bin i vals=()
  shift 3
  if [ "$be" = cuda ]; then bin=$work/sim/build-$n/$n; else bin=$s/opencl/bin/$n; fi
  [ -x "$bin" ] || { ms[$be-$tag]="not built"; return; }
  for i in $(seq "$reps"); do
    rm -rf "$rundir"; mkdir -p "$rundir"
    (cd "$rundir" && "$bin" --device-type gpu "$@") >"$out/$be-$tag-$i.log" 2>&1 ||
      { ms[$be-$tag]="FAILED: $(tail -1 "$out/$be-$tag-$i.log")"; return; }
    vals+=("$(awk '/^time:/ {gsub(/[()]/,""); print $7; exit}' "$out/$be-$tag-$i.log")")
  done
  ms[$be-$tag]=$(printf '%s\n' "${vals[@]}" | median)
}
for be in cuda opencl; do
  [ "$only" = 1 ] && break
  run $be jacobi2d_16384 fixed
  run $be jacobi_periodic periodic
  if [ "$quick" = 1 ]; then run $be jacobi_output output-h5; continue; fi
  run $be jacobi_l2 l2
  run $be jacobi_output_raw output-raw
  run $be jacobi_output output-h5
  run $be jacobi2d_16384 ckpt --checkpoint "$work/sim/j.ckpt" --checkpoint-every 500
done
# The tuned shapes against the specs' fixed ones.
for be in cuda opencl; do
  [ "$quick" = 1 ] || [ "$only" = 1 ] && break
  for n in acoustic_512 heat3d_512 jacobi2d_16384; do
    run $be $n "$n-fixed"
    run $be "${n}_auto" "$n-auto"
  done
done
# Check: a tuned program's results are the fixed one's (acoustic, 20 steps, p2 saved).
tuned_same=()
for be in cuda opencl; do
  [ "$quick" = 1 ] || [ "$only" = 1 ] && break
  for v in acoustic_512 acoustic_512_auto; do
    bin=$work/sim/build-$v/$v; [ $be = opencl ] && bin=$s/opencl/bin/$v
    "$bin" --device-type gpu --steps 20 --save "p2=$work/sim/$v.raw" >"$out/same-$be-$v.log" 2>&1
  done
  if [ -s "$work/sim/acoustic_512.raw" ] && cmp -s "$work/sim/acoustic_512.raw" "$work/sim/acoustic_512_auto.raw"; then
    tuned_same+=("$be: acoustic 512^3 tuned = fixed shape, bit for bit (20 steps, p2)")
  else
    tuned_same+=("$be: acoustic 512^3 tuned and fixed DIFFER or failed (same-$be-*.log)")
  fi
  rm -f "$work/sim/acoustic_512.raw" "$work/sim/acoustic_512_auto.raw"
done
# Checks: the same l2 bits everywhere; periodic in core = out of core.
l2s=()
for be in cuda opencl; do
  [ "$quick" = 1 ] || [ "$only" = 1 ] && break
  for mode in "--out-of-core off" "--out-of-core on --device-memory 1GiB"; do
    bin=$work/sim/build-jacobi_l2/jacobi_l2; [ $be = opencl ] && bin=$s/opencl/bin/jacobi_l2
    # shellcheck disable=SC2086
    "$bin" --device-type gpu --steps 300 $mode >"$out/l2-$be-${mode// /_}.log" 2>&1
    l2s+=("$be ${mode%% --device*}: $(grep -m3 -E 'res' "$out/l2-$be-${mode// /_}.log" | tr '\n' ' ')")
  done
done
per=()
for be in cuda opencl; do
  [ "$only" = 1 ] && break
  bin=$work/sim/build-jacobi_periodic/jacobi_periodic; [ $be = opencl ] && bin=$s/opencl/bin/jacobi_periodic
  "$bin" --device-type gpu --steps 100 --save "A=$work/sim/pin.raw" >"$out/per-$be-in.log" 2>&1
  "$bin" --device-type gpu --steps 100 --out-of-core on --device-memory 1GiB --save "A=$work/sim/pout.raw" >"$out/per-$be-ooc.log" 2>&1
  if cmp -s "$work/sim/pin.raw" "$work/sim/pout.raw" && [ -s "$work/sim/pin.raw" ]; then per+=("$be: periodic in core = out of core (100 steps, A)"); else per+=("$be: periodic in core and out of core DIFFER or failed (see per-$be-*.log)"); fi
done
# ---- output cadence (issue 25): every 1000 and 500 steps of 2000, to the disk and to tmpfs
cad=()
if [ "$cadence" != 0 ]; then
  creps=${CADENCE_REPS:-2}
  # dd_gib DIR TAG: the GiB/s of a 1 GiB (CADENCE_DD_MIB) fsync'ed write into DIR ("?": failed)
  dd_gib() {
    mkdir -p "$1" && dd if=/dev/zero of="$1/dd.bin" bs=1M count="${CADENCE_DD_MIB:-1024}" conv=fsync 2>"$out/dd-$2.log"
    rm -f "$1/dd.bin"
    awk '/copied/ {v = $(NF-1); u = $NF
      m = (u ~ /^GB/) ? 1e9 : (u ~ /^MB/) ? 1e6 : (u ~ /^kB/) ? 1e3 : (u ~ /^GiB/) ? 1073741824 : (u ~ /^MiB/) ? 1048576 : 0
      if (m) { printf "%.3f", v * m / 1073741824; found = 1 } }
      END { if (!found) print "?" }' "$out/dd-$2.log"
  }
  # crun BACKEND NAME TAG DIR [ARGS...]: CADENCE_REPS runs of 2000 steps in DIR; "TIME WALL"
  # medians; the first run's `checkpoints:` line (ckptbg)
  declare -A cad_t cad_w cad_c
  crun() {
    local be=$1 n=$2 tag=$3 dir=$4 bin i t0 t1 ts=() ws=() log
    shift 4
    if [ "$be" = cuda ]; then bin=$work/sim/build-$n/$n; else bin=$s/opencl/bin/$n; fi
    [ -x "$bin" ] || { cad_t[$be-$tag]="not built"; return; }
    for i in $(seq "$creps"); do
      rm -rf "$dir"; mkdir -p "$dir"
      log=$out/cadence-$be-$tag-$i.log
      t0=$(date +%s.%N)
      (cd "$dir" && "$bin" --device-type gpu --steps 2000 "$@") >"$log" 2>&1 ||
        { cad_t[$be-$tag]="FAILED: $(tail -1 "$log")"; rm -rf "$dir"; return; }
      t1=$(date +%s.%N)
      ws+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')")
      ts+=("$(awk '/^time:/ {print $2; exit}' "$log")")
      [ "$i" = 1 ] && cad_c[$be-$tag]=$(sed -n 's/^checkpoints: //p' "$log")
    done
    rm -rf "$dir"
    cad_t[$be-$tag]=$(printf '%s\n' "${ts[@]}" | median)
    cad_w[$be-$tag]=$(printf '%s\n' "${ws[@]}" | median)
  }
  disk_dir=$work/sim/run-cadence shm_dir=/dev/shm/stepgen-cadence
  disk_gib=$(dd_gib "$disk_dir" disk)
  shm_gib=$(dd_gib "$shm_dir" shm)
  ckpt=${CADENCE_CKPT:-1}
  for be in cuda opencl; do
    # The reference warm (driver, kernel caches, clocks): once untimed first.
    bin=$work/sim/build-jacobi2d_16384/jacobi2d_16384; [ $be = opencl ] && bin=$s/opencl/bin/jacobi2d_16384
    mkdir -p "$disk_dir"
    [ -x "$bin" ] && (cd "$disk_dir" && "$bin" --device-type gpu --steps 500) >"$out/cadence-$be-warm.log" 2>&1
    crun $be jacobi2d_16384 fixed "$disk_dir"
    for e in 1000 500; do
      crun $be jacobi_output_e$e "e$e-disk" "$disk_dir"
      crun $be jacobi_output_e$e "e$e-shm" "$shm_dir"
    done
    # ckptbg: checkpoints of the no-output program, every 1000 and 500 steps, disk and tmpfs.
    for e in 1000 500; do
      [ "$ckpt" = 0 ] && break
      crun $be jacobi2d_16384 "c$e-disk" "$disk_dir" --checkpoint j.ckpt --checkpoint-every $e
      crun $be jacobi2d_16384 "c$e-shm" "$shm_dir" --checkpoint j.ckpt --checkpoint-every $e
    done
  done
  rm -rf "$shm_dir"  # tmpfs is memory
  for be in cuda opencl; do
    ft=${cad_t[$be-fixed]:-?} fw=${cad_w[$be-fixed]:-?}
    cad+=("| $be | none | - | - | - | - | $ft | - | $fw | - |")
    for e in 1000 500; do
      for where in disk shm; do
        g=$disk_gib; [ $where = shm ] && g=$shm_gib
        t=${cad_t[$be-e$e-$where]:-?} w=${cad_w[$be-e$e-$where]:-?}
        cad+=("$(awk -v be="$be" -v e="$e" -v wh="$where" -v g="$g" -v t="$t" -v w="$w" -v ft="$ft" -v fw="$fw" 'BEGIN {
          need = (ft + 0 > 0) ? 1 / (e * ft / 2000) : 0
          printf "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", be, e, (wh == "shm" ? "/dev/shm" : "disk"), g,
            (need > 0 ? sprintf("%.3f", need) : "?"), (need > 0 && g + 0 > 0 ? sprintf("%.2f", need / g) : "?"), t,
            (t + 0 > 0 && ft + 0 > 0 ? sprintf("%+.1f%%", 100 * (t / ft - 1)) : "-"), w,
            (w + 0 > 0 && fw + 0 > 0 ? sprintf("%+.1f%%", 100 * (w / fw - 1)) : "-") }')")
      done
    done
  done
  # ckptbg: the checkpoint rows
  ckrows=()
  for be in cuda opencl; do
    [ "$ckpt" = 0 ] && break
    ft=${cad_t[$be-fixed]:-?} fw=${cad_w[$be-fixed]:-?}
    for e in 1000 500; do
      for where in disk shm; do
        g=$disk_gib; [ $where = shm ] && g=$shm_gib
        t=${cad_t[$be-c$e-$where]:-?} w=${cad_w[$be-c$e-$where]:-?}
        ckrows+=("$(awk -v be="$be" -v e="$e" -v wh="$where" -v g="$g" -v t="$t" -v w="$w" -v ft="$ft" -v fw="$fw" \
          -v c="${cad_c[$be-c$e-$where]:-?}" 'BEGIN {
          printf "| %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", be, e, (wh == "shm" ? "/dev/shm" : "disk"), g, t,
            (t + 0 > 0 && ft + 0 > 0 ? sprintf("%+.1f%%", 100 * (t / ft - 1)) : "-"), w,
            (w + 0 > 0 && fw + 0 > 0 ? sprintf("%+.1f%%", 100 * (w / fw - 1)) : "-"), c }')")
      done
    done
  done
fi
cadence_table() {
  echo "== Output cadence (issue 25): Jacobi 16384^2, 2000 steps, 1 GiB (A, .h5) every N steps, median of ${creps:-?}"
  echo "disk: $disk_dir, $disk_gib GiB/s; tmpfs: $shm_dir, $shm_gib GiB/s (dd ${CADENCE_DD_MIB:-1024} MiB, fsync, this call)"
  echo "| backend | output every | where | place writes GiB/s (dd) | output needs GiB/s (1 GiB / (every x fixed s/step)) | needs / place | time: s | vs fixed | process wall s | vs fixed |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  printf '%s\n' "${cad[@]}"
  [ "${ckpt:-1}" = 0 ] && return
  echo "== Checkpoints (issue 25): Jacobi 16384^2, 2000 steps, a checkpoint (A and B, 2 GiB) every N steps, median of ${creps:-?}; none: the table above's"
  echo "| backend | checkpoint every | where | place writes GiB/s (dd) | time: s | vs none | process wall s | vs none | the report's checkpoints line (first run) |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  printf '%s\n' "${ckrows[@]}"
}
# ---- end output cadence

echo
if [ "$only" = 1 ]; then
  cadence_table
  exit 0
fi
echo "== Simulation features on Jacobi 16384^2, 1000 steps, 1 GPU: time-loop ms/step, median of $reps"
echo "disk write speed (dd 1 GiB, fsync): $disk"
printf '%-8s %-12s %-14s %s\n' backend feature ms/step "vs fixed"
for be in cuda opencl; do
  for tag in fixed periodic l2 output-raw output-h5 ckpt; do
    v=${ms[$be-$tag]:-?}
    rel=$(awk -v a="$v" -v b="${ms[$be-fixed]:-0}" 'BEGIN {if (a+0 > 0 && b+0 > 0) printf "%+.1f%%", 100 * (a / b - 1); else print "-"}')
    printf '%-8s %-12s %-14s %s\n' "$be" "$tag" "$v" "$rel"
  done
done
echo "== Tuned work-group shapes (<local size=\"auto\"/>) against the spec's fixed shape: time-loop ms/step, median of $reps"
printf '%-8s %-16s %-10s %-10s %-8s %s\n' backend program fixed auto speedup "chosen (first run's report)"
for be in cuda opencl; do
  for n in acoustic_512 heat3d_512 jacobi2d_16384; do
    f=${ms[$be-$n-fixed]:-?} a=${ms[$be-$n-auto]:-?}
    sp=$(awk -v f="$f" -v a="$a" 'BEGIN {if (f+0 > 0 && a+0 > 0) printf "%.2fx", f / a; else print "-"}')
    chosen=$(grep -m1 '^local size:' "$out/$be-$n-auto-1.log" 2>/dev/null | sed 's/^local size: //')
    printf '%-8s %-16s %-10s %-10s %-8s %s\n' "$be" "$n" "$f" "$a" "$sp" "${chosen:-?}"
  done
done
echo "== l2 of B - A (first values printed), CUDA and OpenCL, in core and out of core"
printf '%s\n' "${l2s[@]}"
printf '%s\n' "${per[@]}"
printf '%s\n' "${tuned_same[@]}"
if [ "$cadence" != 0 ]; then cadence_table; fi
