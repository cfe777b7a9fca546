#!/usr/bin/env bash
# Phases `unseen-generate` and `unseen`: kernels we never wrote, on the GPU: issue 22's failing case (bench/unseen/wave2k: two launches
# a step, both kernels skipping a one-cell shell of their buffer although `upd` reads no
# neighbour) and every example, through the CUDA programs in every mode one GPU allows, each
# compared bit for bit (cmp) with the one-GPU in-core run of the same program, the PoCL OpenCL
# run made here (wave2k), or the serial reference (examples).
#
# Two halves:
#   bench/run.sh unseen-generate   HERE: generates the CUDA programs (one-process and MPI) into
#                                  bench/generated/unseen/, and the PoCL reference run
#   bench/run.sh unseen            ON THE GPU MACHINE (carry bench/generated): builds them and the
#                                  serial references, runs, prints a table last
# Modes: in core (1 GPU); out of core forced with a small --device-memory (trapezoid on,
# band sharing on with k > 1, trapezoid off, several chunk counts); --probe off (the old views:
# wave2k is expected to differ there, which shows the reproduction still bites without the
# probe); the MPI program of every example and wave2k with 2 ranks sharing the GPU (its
# overlap runs kernels on views), in core and out of core on each rank (k = 1 and 2).
# Logs go to $OUT (default /tmp/out). CUDA_ARCH (default native).
set -u
. "$(dirname "$0")/lib.sh"
gen=$gen/unseen
examples=(acoustic advect blur9 heat3d jacobi2d jacobi2d_fast stepocl_jacobi twostage)

if [ "${1:-}" = generate ]; then
  set -e
  stepgen=${STEPGEN:-$root/build/stepgen}
  rm -rf "$gen"
  mkdir -p "$gen"
  for s in "$root"/bench/unseen/wave2k/wave2k.xml "$root"/bench/unseen/wave2k_512/wave2k_512.xml; do
    n=$(basename "$s" .xml)
    "$stepgen" generate "$s" --target cuda -o "$gen/cuda-$n" >/dev/null
    "$stepgen" generate "$s" --target cuda --distribution mpi -o "$gen/mpi-$n" >/dev/null
  done
  for ex in "${examples[@]}"; do
    "$stepgen" generate "$root/examples/$ex/$ex.xml" --target cuda -o "$gen/cuda-$ex" >/dev/null
  done
  for ex in "${examples[@]}"; do
    "$stepgen" generate "$root/examples/$ex/$ex.xml" --target cuda --distribution mpi \
      -o "$gen/mpi-$ex" >/dev/null
  done
  # The PoCL reference of wave2k (OpenCL, one CPU device, in core).
  "$stepgen" generate "$root/bench/unseen/wave2k/wave2k.xml" --target opencl -o "$gen/ocl" >/dev/null
  cmake -S "$gen/ocl" -B "$gen/ocl/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$gen/ocl/build" >/dev/null
  for a in u uprev unew; do
    "$gen/ocl/build/wave2k" --devices 1 --device-type cpu --quiet --save "$a=$gen/pocl-wave2k-$a.raw"
  done
  rm -rf "$gen/ocl"
  echo "generated into $gen"
  exit 0
fi

[ "${1:-}" = run ] || { echo "usage: bench/run.sh unseen-generate | unseen" >&2; exit 2; }
out=${OUT:-/tmp/out}
work=/tmp/stepgen-unseen
arch=${CUDA_ARCH:-native}
mkdir -p "$out" "$work"
export PATH=$PATH:/usr/local/cuda/bin
{
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
  nvcc --version | tail -1
  command -v mpirun >/dev/null && mpirun --version 2>&1 | head -1
} 2>&1 | tee "$out/machine.txt"

cmake -S "$root/examples" -B "$work/ref" -DCMAKE_BUILD_TYPE=Release >"$out/ref-build.log" 2>&1 &&
  cmake --build "$work/ref" -j 8 >>"$out/ref-build.log" 2>&1 || echo "references failed to build"
start=$SECONDS
for tree in "$gen"/cuda-* "$gen"/mpi-*; do
  while [ "$(jobs -rp | wc -l)" -ge 6 ]; do wait -n; done
  n=$(basename "$tree")
  (cmake -S "$tree" -B "$work/$n" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" \
     >"$out/build-$n.log" 2>&1 && cmake --build "$work/$n" -j 4 >>"$out/build-$n.log" 2>&1) &
done
wait
echo "built in $((SECONDS - start)) s"

rows=()
pass=0 fail=0
# verdict LABEL EXPECT FILE_A FILE_B: EXPECT same|differs
verdict() {
  local label=$1 expect=$2 a=$3 b=$4 got
  if [ ! -s "$a" ] || [ ! -s "$b" ]; then got=missing
  elif cmp -s "$a" "$b"; then got=same
  else got=differs; fi
  if [ "$got" = "$expect" ]; then pass=$((pass + 1)); rows+=("ok    $label ($got)")
  else fail=$((fail + 1)); rows+=("FAIL  $label (expected $expect, got $got)"); fi
}
# runp NAME TAG ARGS...: runs program NAME saving its arrays as $work/NAME.TAG.ARRAY.raw
runs=()  # NAME|TAG|ARGS of every one-process run, for the model's repeats below
runp() {
  local n=$1 tag=$2; shift 2
  local bin=$work/cuda-$n/$n saves=()
  for a in $(arrays_of "$n"); do saves+=(--save "$a=$work/$n.$tag.$a.raw"); done
  "$bin" "$@" "${saves[@]}" >"$out/$n.$tag.log" 2>&1 || echo "exit $? ($n $tag)" >>"$out/$n.$tag.log"
  runs+=("$n|$tag|$*")
}
arrays_of() {
  case $1 in
    wave2k | wave2k_512) echo "u uprev unew" ;;
    twostage) echo "U V" ;;  # T is scratch (save="false"): --save T is refused
    *) "$work/cuda-$1/$1" --help | awk '/^arrays:/ {for (i = 2; i <= NF; i++) print $i}' ;;
  esac
}

# 1. wave2k, 37 x 29 x 41, 12 steps: the issue's failing case.
n=wave2k
runp $n incore --devices 1
for a in u uprev unew; do verdict "$n in core = PoCL ($a)" same "$work/$n.incore.$a.raw" "$gen/pocl-$n-$a.raw"; done
modes=("ooc400k:--device-memory 400KiB"
       "ooc400k-trapoff:--device-memory 400KiB --trapezoid off"
       "ooc-k3-bands:--out-of-core on --ooc-chunks 4 --steps-per-pass 3 --band-sharing on"
       "ooc-k4-nosharing:--out-of-core on --ooc-chunks 3 --steps-per-pass 4 --region-sharing off"
       "ooc-5chunks-k2:--out-of-core on --ooc-chunks 5 --steps-per-pass 2"
       "ooc-naive:--device-memory 400KiB --overlap off --pinned off")
for m in "${modes[@]}"; do
  tag=${m%%:*} args=${m#*:}
  # shellcheck disable=SC2086
  runp $n "$tag" --devices 1 $args
  for a in u uprev unew; do verdict "$n $tag ($a)" same "$work/$n.incore.$a.raw" "$work/$n.$tag.$a.raw"; done
done
runp $n probeoff --devices 1 --device-memory 400KiB --probe off
verdict "$n ooc400k --probe off (the old views: the bug)" differs "$work/$n.incore.u.raw" "$work/$n.probeoff.u.raw"

# 2. The same kernels at 512^3, 40 steps, 1 GiB budget (k = 20, band sharing on).
n=wave2k_512
runp $n incore --devices 1
runp $n ooc1g-k20 --devices 1 --device-memory 1GiB --steps-per-pass 20
verdict "$n ooc 1GiB k=20 (u)" same "$work/$n.incore.u.raw" "$work/$n.ooc1g-k20.u.raw"
runp $n ooc1g-auto --devices 1 --device-memory 1GiB
verdict "$n ooc 1GiB model (u)" same "$work/$n.incore.u.raw" "$work/$n.ooc1g-auto.u.raw"
runp $n ooc1g-k20-probeoff --devices 1 --device-memory 1GiB --steps-per-pass 20 --probe off
verdict "$n ooc 1GiB k=20 --probe off (the bug)" differs "$work/$n.incore.u.raw" "$work/$n.ooc1g-k20-probeoff.u.raw"

# 3. MPI, 2 ranks: the overlap runs kernels on views; and out of core on each rank (the cells
#    other ranks own by messages at pass boundaries), k = 1 and 2; `--out-of-core auto` (the
#    ranks agree on one choice). With one GPU the ranks share it (STEPGEN_MPI_SHARE_DEVICES=1, a
#    testing set-up: the ranks' calibrations disturb each other); with two or more each rank has
#    its own, as on a real cluster.
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
reps=${MODEL_REPS:-3}  # the runs of each out-of-core run, for the model's medians (below)
if command -v mpirun >/dev/null; then
  mpi_flags="--allow-run-as-root --oversubscribe -x STEPGEN_MPI_SHARE_DEVICES ${MPIRUN_FLAGS:-}"
  mpi_two_ranks "$gpus"
  for n in wave2k wave2k_512 "${examples[@]}"; do
    case $n in wave2k | wave2k_512) ;; *) runp $n incore --devices 1 ;; esac
    mm=("mpi2:" "mpi2-ooc-k1:--out-of-core on --ooc-chunks 2 --steps-per-pass 1"
        "mpi2-ooc-k2:--out-of-core on --ooc-chunks 1 --steps-per-pass 2" "mpi2-auto:--out-of-core auto")
    [ "$n" = wave2k_512 ] && mm=("mpi2-auto:--out-of-core auto" "mpi2-on:--out-of-core on")
    for m in "${mm[@]}"; do
      tag=${m%%:*} args=${m#*:}
      saves=()
      for a in $(arrays_of "$n"); do saves+=(--save "$a=$work/$n.$tag.$a.raw"); done
      # shellcheck disable=SC2086
      mpirun $mpi_flags -np 2 "$work/mpi-$n/$n" $args "${saves[@]}" \
        >"$out/$n.$tag.log" 2>&1 || echo "exit $?" >>"$out/$n.$tag.log"
      # The model's table takes medians: the out-of-core runs MODEL_REPS times in all, as below.
      if grep -q "^out-of-core: on" "$out/$n.$tag.log"; then
        for i in $(seq 2 "$reps"); do
          # shellcheck disable=SC2086
          mpirun $mpi_flags -np 2 "$work/mpi-$n/$n" $args >"$out/$n.$tag.rep$i.log" 2>&1 ||
            echo "exit $?" >>"$out/$n.$tag.rep$i.log"
        done
      fi
      for a in $(arrays_of "$n"); do verdict "$n MPI 2 ranks $tag ($a)" same "$work/$n.incore.$a.raw" "$work/$n.$tag.$a.raw"; done
    done
  done
  unset STEPGEN_MPI_SHARE_DEVICES
else
  rows+=("SKIP  MPI: no mpirun on this machine")
fi

# 4. Every example: in core and forced out of core against the serial reference.
for ex in "${examples[@]}"; do
  [ -x "$work/cuda-$ex/$ex" ] || { fail=$((fail + 1)); rows+=("FAIL  $ex: not built"); continue; }
  ref=$work/ref/reference_$ex
  mkdir -p "$work/ref-$ex"
  "$ref" --out "$work/ref-$ex" >"$out/ref-$ex.log" 2>&1
  for m in "incore:" "ooc-k1:--device-memory 2MiB --steps-per-pass 1" \
           "ooc-k3:--device-memory 8MiB --steps-per-pass 3" "ooc-trapoff:--device-memory 2MiB --trapezoid off"; do
    tag=${m%%:*} args=${m#*:}
    # shellcheck disable=SC2086
    runp "$ex" "$tag" --devices 1 $args
    for f in "$work/ref-$ex"/*.raw; do
      [ -f "$f" ] || continue
      a=$(basename "$f" .raw)
      verdict "$ex $tag ($a)" same "$f" "$work/$ex.$tag.$a.raw"
    done
  done
  grep -h "^probe" "$out/$ex.incore.log" >>"$out/probe-lines.txt"
done

for f in "$out"/wave2k.ooc400k.log "$out"/wave2k_512.ooc1g-k20.log; do
  echo "== $f"; grep -E "^probe|trapezoid|chunk|time:" "$f"
done
# The out-of-core model on these small runs (issue 26: the per-command latency it charges
# should predict them within 25%): every out-of-core run's `predicted X s, measured Y s`. A
# run of 1-100 ms varies up to 3x from one process to the next, so each one-process
# out-of-core run runs MODEL_REPS times in all (default 3; the repeats save nothing) and the
# table takes the medians of the predicted and of the measured times (MPI runs too, since
# 2026-11-28's last call: they were single runs before).
for r in "${runs[@]}"; do
  IFS='|' read -r n tag args <<<"$r"
  grep -q "^out-of-core: on" "$out/$n.$tag.log" || continue
  for i in $(seq 2 "$reps"); do
    # shellcheck disable=SC2086
    "$work/cuda-$n/$n" $args >"$out/$n.$tag.rep$i.log" 2>&1 || echo "exit $?" >>"$out/$n.$tag.rep$i.log"
  done
done
model=()
for f in "$out"/*.log; do
  line=$(grep -m1 -oE "predicted [0-9.]+ s, measured [0-9.]+ s" "$f") || continue
  read -r _ p _ _ m _ <<<"$line"
  model+=("$(basename "$f" .log | sed -E 's/\.rep[0-9]+$//') $p $m")
done
if [ "${#model[@]}" -gt 0 ]; then
  echo
  echo "model on the small out-of-core runs (predicted / measured time loop, s; medians of the runs):"
  model=("$(printf '%s\n' "${model[@]}" | sort -k1,1 | awk '
    function med(list,   n, a, i, j, t) {
      n = split(list, a, " ")
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    { p[$1] = p[$1] " " $2; m[$1] = m[$1] " " $3; c[$1]++; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
    END { for (i = 1; i <= k; i++) print order[i], med(p[order[i]]), med(m[order[i]]), c[order[i]] }')")
  mapfile -t model <<<"${model[0]}"
  printf '%s\n' "${model[@]}" | awk '{printf "  %-36s %10.6f %10.6f  %.2f  (%d run%s)\n", $1, $2, $3, $2 / $3, $4, ($4 > 1 ? "s" : "")}'
  # The one-process runs (the issue's target) and all, MPI with 2 ranks sharing the GPU too.
  for which in one-process all; do
    printf '%s\n' "${model[@]}" | awk -v which=$which '!(which == "one-process" && $1 ~ /mpi2/) {printf "%.4f\n", $2 / $3}' | sort -n |
      awk -v which=$which '
      {r[NR] = $1; if ($1 >= 0.75 && $1 <= 1.25) w++}
      END {printf "unseen_gpu model (%s): %d runs, %d predicted within 25%%, predicted/measured from %.2f to %.2f (median %.2f)\n",
           which, NR, w, r[1], r[NR], r[int((NR + 1) / 2)]}'
  done
fi
# MPI out of core: the pass boundaries' exchange per run (the report's exchange: and its
# waiting for the messages: the longest and the least over the ranks), divided by the run's
# boundaries between passes (passes - 1).
mpi_logs=("$out"/*.mpi2*.log)
if [ -f "${mpi_logs[0]}" ]; then
  echo
  echo "MPI out of core, the pass boundaries (ms per boundary: exchange, waits longest / least):"
  for f in "${mpi_logs[@]}"; do
    awk -v f="$(basename "$f" .log)" '
      /^  exchange: / {x = $2}
      /^    waiting for the messages: / {l = $5; lr = $9; s = $12}
      /pass\(es\)/ {for (i = 1; i <= NF; i++) if ($i ~ /^pass\(es\)/) p = $(i - 1)}
      END {if (p > 1 && l != "") printf "  %-36s %8.4f %8.4f %8.4f  (%d passes; waited longest: rank %d)\n", f, 1e3 * x / (p - 1), 1e3 * l / (p - 1), 1e3 * s / (p - 1), p, lr}' "$f"
  done
fi
echo
printf '%s\n' "${rows[@]}"
echo "unseen_gpu: $pass passed, $fail failed"
