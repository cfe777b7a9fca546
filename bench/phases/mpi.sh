#!/usr/bin/env bash
# Phase `mpi` (GPU machine: one GPU, with a CUDA-aware Open MPI or not, or 2+ GPUs), after the
# `generate` phase here (carry bench/generated): the MPI + CUDA programs
# (bench/generated/mpi-cuda/<name>/).
#  1. The MPI there (mpirun, version, CUDA-awareness from ompi_info); no mpirun: a SKIPPED line.
#  2. Builds, in parallel: the serial references (examples/CMakeLists.txt), the one-process CUDA
#     programs (bench/generated/cuda-<name>/) and the MPI ones (cmake, CMAKE_CUDA_ARCHITECTURES
#     native or CUDA_ARCH, Release).
#  3. Every example: the one-process program on 1 GPU, then MPI with 1 rank and 2 ranks (--verify)
#     on the default path (CUDA-aware when the MPI says so) and on the host path
#     (STEPGEN_MPI_CUDA_AWARE=off), and 3 ranks sharing GPUs (STEPGEN_MPI_SHARE_DEVICES=1,
#     --verify); with fewer GPUs than ranks the 2-rank runs share GPUs too. Every array the
#     reference writes is saved (MPI-IO) and compared with cmp against the serial reference and
#     the one-process program, bit for bit.
#  4. More ranks than GPUs without the sharing aid: the clear error, no hang.
#  5. compute-sanitizer memcheck on each rank of a short 2-rank jacobi2d run, both paths.
#  6. With 2+ GPUs: Jacobi 16384^2 (1000 steps), 2 ranks (both paths) against the one-process
#     program on 2 GPUs and on 1 GPU: time loop ms/step (kernels + exchange, GPU time), median of
#     REPS runs (default 3), efficiency t1 / (2 t2).
# A failing step is recorded as FAIL and the script goes on. The table is printed last; logs go
# to $OUT (default /tmp/out). Environment: CUDA_ARCH (default native), MPIRUN_FLAGS (extra
# mpirun flags), REPS, WORK (builds, default /tmp/stepgen-bench).
# Usage: bench/run.sh mpi
set -u
. "$(dirname "$0")/lib.sh"
reps=${REPS:-3}
mkdir -p "$out" "$work"
summary=$out/mpi-cuda-summary.txt
: > "$summary"
log() { echo "$*" | tee -a "$summary"; }

# ---- 1. the MPI there
if ! find_mpirun; then
  log "SKIPPED: no mpirun on this machine (the MPI + CUDA programs need an MPI runtime and mpicxx to build)"
  exit 0
fi
{
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
  nvidia-smi topo -m 2>/dev/null | head -12
  nvcc --version | tail -2
  cmake --version | head -1
} 2>&1 | tee "$out/mpi-cuda-machine.txt"
gpus=$(gpu_count)
log "mpirun: $(command -v mpirun), $(mpirun --version 2>&1 | head -1); $gpus GPU(s)"
if command -v ompi_info >/dev/null; then
  log "CUDA-aware Open MPI (ompi_info): $(ompi_info --parsable --all 2>/dev/null | awk -F: '/mpi_built_with_cuda_support:value/ {print $NF}' | head -1)"
fi
flags=(--oversubscribe --bind-to none ${MPIRUN_FLAGS:-})
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
export OMPI_MCA_mpi_yield_when_idle=1
# run_mpi N [VAR=VALUE...] -- PROGRAM ARGS...: N ranks, the variables exported to every rank.
run_mpi() {
  local n=$1; shift
  local envs=() xs=()
  while [ "$1" != "--" ]; do envs+=("$1"); xs+=(-x "${1%%=*}"); shift; done
  shift
  env "${envs[@]}" timeout 600 mpirun "${flags[@]}" "${xs[@]}" -np "$n" "$@"
}
if ! run_mpi 2 X=1 -- true > "$out/mpirun-check.log" 2>&1; then
  # Containers without a fabric: shared memory (with CUDA IPC) and TCP only.
  flags+=(--mca pml ob1 --mca btl self,vader,smcuda,tcp)
  if ! run_mpi 2 X=1 -- true >> "$out/mpirun-check.log" 2>&1; then
    log "FAIL: mpirun -np 2 true fails:"; tail -20 "$out/mpirun-check.log" | tee -a "$summary"; exit 1
  fi
fi
log "mpirun flags: ${flags[*]}"

# ---- 2. builds
build_references || log "FAIL: the serial references do not build (ref-build.log)"
start=$SECONDS
# The MPI programs of mpi-cuda/ and the one-process programs of the same names (not the others).
for t in "$gen"/mpi-cuda/*/; do
  t=${t%/}
  for name in "mpi-${t##*/}" "${t##*/}"; do
    [ -n "$(cuda_tree "$name")" ] || { log "FAIL: no generated tree for $name (run bench/run.sh generate here)"; continue; }
    while [ "$(jobs -rp | wc -l)" -ge 4 ]; do wait -n; done
    build_cuda "$name" 4 &
  done
done
wait
log "built in $((SECONDS - start)) s"
mpi_prog() { echo "$work/build-mpi-$1/$1"; }
one_prog() { echo "$work/build-$1/$1"; }

# ms/step of the time loop (kernels + exchange, GPU time) from a report; "?" without one.
loop_ms() {
  awk '/ for [0-9]+ steps/ {steps = $5} /^  kernels:/ {k = $2} /^  exchange:/ {x = $2}
       END {if (steps > 0) printf "%.4f", 1000 * (k + x) / steps; else print "?"}' "$1"
}
# compare RUN REF [OTHER]: "bit-exact", or what differs
compare() {
  local run=$1 ref=$2 other=${3:-} v=bit-exact f
  for f in "$ref"/*.raw; do
    cmp -s "$f" "$run/$(basename "$f")" || { v="DIFFERS-from-ref($(basename "$f" .raw))"; break; }
    if [ -n "$other" ] && ! cmp -s "$other/$(basename "$f")" "$run/$(basename "$f")"; then
      v="DIFFERS-from-1proc($(basename "$f" .raw))"; break
    fi
  done
  echo "$v"
}

# ---- 3. every example
rows=()
# mpi_case EX LABEL RANKS REF ONEPROC VAR=VALUE... -- ARGS...: one MPI run, its verdict
mpi_case() {
  local ex=$1 label=$2 n=$3 ref=$4 oneproc=$5; shift 5
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local run=$work/run/$ex-$label saves=() f v
  rm -rf "$run"; mkdir -p "$run"
  for f in "$ref"/*.raw; do saves+=(--save "$(basename "$f" .raw)=$run/$(basename "$f")"); done
  run_mpi "$n" X=1 "${envs[@]}" -- "$(mpi_prog "$ex")" "$@" "${saves[@]}" > "$run/log" 2>&1
  local status=$?
  cp "$run/log" "$out/mpi-$ex-$label.log"
  if [ $status -eq 124 ]; then v="FAIL(timeout)"
  elif grep -q "can be split into only" "$run/log"; then v="n/a(grid)"
  elif [ $status -ne 0 ]; then v="FAIL(exit-$status)"
  else
    v=$(compare "$run" "$ref" "$oneproc")
    grep -q "verify: FAILED" "$run/log" && v="$v,verify-FAILED"
    if [[ " $* " == *" --verify "* ]] && ! grep -q "verify: OK" "$run/log"; then v="$v,no-verify-OK"; fi
  fi
  echo "$v"
}
share_2=()
[ "$gpus" -lt 2 ] && share_2=(STEPGEN_MPI_SHARE_DEVICES=1)
for dir in "$root"/examples/*/; do
  ex=$(basename "$dir")
  [ -x "$work/ref/reference_$ex" ] || continue
  if [ ! -x "$(mpi_prog "$ex")" ] || [ ! -x "$(one_prog "$ex")" ]; then
    rows+=("$(printf '%-15s FAIL(build: see build-mpi-%s.log / build-%s.log)' "$ex" "$ex" "$ex")")
    continue
  fi
  ref=$work/ref-out/$ex
  rm -rf "$ref"; mkdir -p "$ref"
  "$work/ref/reference_$ex" --out "$ref" > /dev/null
  one=$work/run/$ex-1proc
  rm -rf "$one"; mkdir -p "$one"
  saves=()
  for f in "$ref"/*.raw; do saves+=(--save "$(basename "$f" .raw)=$one/$(basename "$f")"); done
  if "$(one_prog "$ex")" --devices 1 "${saves[@]}" > "$one/log" 2>&1; then v1=$(compare "$one" "$ref")
  else v1="FAIL(exit)"; fi
  cp "$one/log" "$out/cuda-$ex-1gpu.log"
  r1=$(mpi_case "$ex" 1rank 1 "$ref" "$one" --)
  r2=$(mpi_case "$ex" 2ranks 2 "$ref" "$one" "${share_2[@]}" -- --verify)
  r2h=$(mpi_case "$ex" 2ranks-host 2 "$ref" "$one" "${share_2[@]}" STEPGEN_MPI_CUDA_AWARE=off -- --verify)
  r3=$(mpi_case "$ex" 3ranks-shared 3 "$ref" "$one" STEPGEN_MPI_SHARE_DEVICES=1 -- --verify)
  rows+=("$(printf '%-15s %-12s %-12s %-24s %-24s %-24s' "$ex" "$v1" "$r1" "$r2" "$r2h" "$r3")")
done
path_default=$(grep -h -m1 "^mpi:" "$out"/mpi-jacobi2d-2ranks.log 2>/dev/null | sed 's/.*messages, //; s/; times.*//')
path_host=$(grep -h -m1 "^mpi:" "$out"/mpi-jacobi2d-2ranks-host.log 2>/dev/null | sed 's/.*messages, //; s/; times.*//')
shared_line=$(grep -h -m1 "^gpus:" "$out"/mpi-jacobi2d-3ranks-shared.log 2>/dev/null)

# ---- 4. more ranks than GPUs, without the sharing aid
errors=()
j=$(mpi_prog jacobi2d)
if [ -x "$j" ]; then
  n=$((gpus + 1))
  run_mpi "$n" X=1 -- "$j" > "$out/too-many-ranks.log" 2>&1
  status=$?
  if [ $status -ne 0 ] && [ $status -ne 124 ] && grep -q "ranks run on node .* but only $gpus CUDA GPU(s) are there" "$out/too-many-ranks.log"; then
    errors+=("ok: $n ranks on $gpus GPU(s): exit $status: $(grep -m1 'ranks run on node' "$out/too-many-ranks.log")")
  else
    errors+=("FAIL: $n ranks on $gpus GPU(s): exit $status, no clear error (too-many-ranks.log)")
  fi
fi

# ---- 5. compute-sanitizer on every rank of a short 2-rank run, both paths
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
sanitizer="not run (no compute-sanitizer or no jacobi2d build)"
if [ -x "$j" ] && [ -x "$san" ]; then
  sanitizer=""
  for mode in default off; do
    envs=("${share_2[@]}")
    [ $mode = off ] && envs+=(STEPGEN_MPI_CUDA_AWARE=off)
    run_mpi 2 X=1 "${envs[@]}" -- "$san" --tool memcheck --error-exitcode 9 "$j" --steps 5 > "$out/sanitizer-$mode.log" 2>&1
    status=$?
    clean=$(grep -c "ERROR SUMMARY: 0 errors" "$out/sanitizer-$mode.log")
    if [ $status -eq 0 ] && [ "$clean" -eq 2 ]; then sanitizer+="$mode path: clean (2 ranks, 0 errors); "
    else sanitizer+="$mode path: FAIL (exit $status, $(grep -m1 'ERROR SUMMARY' "$out/sanitizer-$mode.log")); "; fi
  done
fi

# ---- 6. Jacobi 16384^2: 2 ranks against one process on 2 GPUs and 1 GPU
bench=()
jb=$(mpi_prog jacobi2d_16384) jo=$(one_prog jacobi2d_16384)
if [ "$gpus" -ge 2 ] && [ -x "$jb" ] && [ -x "$jo" ]; then
  declare -A med
  for cfg in 1gpu 2gpu mpi mpi-host; do
    ms=()
    for i in $(seq "$reps"); do
      f=$out/bench-$cfg-$i.log
      case $cfg in
        1gpu) "$jo" --devices 1 > "$f" 2>&1 ;;
        2gpu) "$jo" --devices 2 > "$f" 2>&1 ;;
        mpi) run_mpi 2 X=1 -- "$jb" > "$f" 2>&1 ;;
        mpi-host) run_mpi 2 STEPGEN_MPI_CUDA_AWARE=off -- "$jb" > "$f" 2>&1 ;;
      esac
      ms+=("$(loop_ms "$f")")
    done
    med[$cfg]=$(printf '%s\n' "${ms[@]}" | grep -v '?' | median)
    bench+=("$(printf '%-34s %s ms/step (median of %s: %s)' "$cfg" "${med[$cfg]:-?}" "$reps" "${ms[*]}")")
  done
  t1=${med[1gpu]:-0}
  for cfg in 2gpu mpi mpi-host; do
    bench+=("$(awk -v a="$t1" -v b="${med[$cfg]:-0}" -v c="$cfg" 'BEGIN {if (a > 0 && b > 0) printf "efficiency %-9s t1/(2 t2) = %.1f%%", c, 100 * a / (2 * b); else printf "efficiency %s: ?", c}')")
  done
  tail -14 "$out/bench-mpi-1.log"
else
  bench+=("Jacobi 16384^2 2 ranks vs one process: SKIPPED (needs 2 GPUs; $gpus here)")
fi

echo
log "== MPI + CUDA on $gpus GPU(s): arrays saved (MPI-IO) and compared with cmp against the serial reference and the one-process program on 1 GPU"
log "paths: default: ${path_default:-?} | STEPGEN_MPI_CUDA_AWARE=off: ${path_host:-?}"
log "3 ranks: ${shared_line:-?}; 2 ranks share GPUs: $([ ${#share_2[@]} -gt 0 ] && echo yes || echo no)"
log "$(printf '%-15s %-12s %-12s %-24s %-24s %-24s' example '1proc 1GPU' 'MPI 1 rank' '2 ranks default +verify' '2 ranks host +verify' '3 ranks shared +verify')"
for r in "${rows[@]}"; do log "$r"; done
for e in "${errors[@]}"; do log "$e"; done
log "compute-sanitizer memcheck, jacobi2d 5 steps, 2 ranks: $sanitizer"
log "== Jacobi 16384^2 floats, 1000 steps, time loop (kernels + exchange, GPU time) ms/step"
for b in "${bench[@]}"; do log "$b"; done
