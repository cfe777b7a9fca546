#!/usr/bin/env bash
# Phase `mpi-opencl` (a machine with 2+ GPUs, after the `prepare` phase here; carry
# bench/generated): the MPI OpenCL programs of bench/generated/opencl-mpi/ with one rank per GPU
# through NVIDIA's OpenCL platform.
#  1. What MPI there is: mpirun, its version, CUDA-awareness (ompi_info), whether the binaries
#     built here find their libraries; if they cannot run, they are rebuilt here with this
#     machine's MPI from the carried source trees (mpicxx/cmake needed).
#  2. Every example: 2 ranks (--verify: rank 0 reruns the grid on one GPU) against 1 rank and
#     the serial reference, bit for bit.
#  3. Jacobi 16384^2, 1000 steps: 2 ranks (MPI) against the one-process program on 2 GPUs,
#     median of 3 runs each.
# Prints a table last. Environment: MPIRUN_FLAGS (extra mpirun flags), OUT (logs; default /tmp/out);
# for a dry run without GPUs: DEVICE_TYPE=cpu POCL_DEVICES='pthread pthread' SKIP_BENCH=1.
# One GPU: RANKS=1 (rank counts of section 2, default "1 2"), OOC=1 (also 1 rank out of core),
# SKIP_BENCH=1.
# FORCE_REBUILD=1 rebuilds the MPI programs there even when the carried ones run.
# Usage: bench/run.sh mpi-opencl
set -u
. "$(dirname "$0")/lib.sh"
g=$gen/opencl-mpi
mkdir -p "$out"
export LD_LIBRARY_PATH=$g/lib:${LD_LIBRARY_PATH:-}
log() { echo "$*" | tee -a "$out/mpi-summary.txt"; }
type=${DEVICE_TYPE:-gpu}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)

# NVIDIA's OpenCL driver: register it with the ICD loader if the image has no vendors file.
[ "$type" = gpu ] && register_nvidia_opencl

# ---- 1. the MPI there
if ! find_mpirun; then
  log "no mpirun found on this machine: nothing to run (the MPI programs need an MPI runtime)"
  exit 1
fi
log "mpirun: $(command -v mpirun), $(mpirun --version 2>&1 | head -1)"
if command -v ompi_info >/dev/null; then
  log "CUDA-aware Open MPI: $(ompi_info --parsable --all 2>/dev/null | awk -F: '/mpi_built_with_cuda_support:value/ {print $NF}' | head -1) ($(ompi_info 2>/dev/null | grep -i -m3 cuda | tr -s ' ' | tr '\n' ';'))"
fi
flags=(--oversubscribe ${MPIRUN_FLAGS:-})
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
export OMPI_MCA_mpi_yield_when_idle=1
run_mpi() { local n=$1; shift; timeout 300 mpirun "${flags[@]}" -np "$n" "$@"; }
if ! run_mpi 2 true > "$out/mpirun-check.log" 2>&1; then
  # Containers without a fabric: shared memory and TCP only.
  flags+=(--mca pml ob1 --mca btl self,vader,tcp)
  run_mpi 2 true >> "$out/mpirun-check.log" 2>&1 || { log "mpirun -np 2 true fails:"; tail -20 "$out/mpirun-check.log"; exit 1; }
fi
log "mpirun flags: ${flags[*]}"
missing=$(ldd "$g/bin/jacobi2d" | grep "not found")
if [ -n "$missing" ] || [ -n "${FORCE_REBUILD:-}" ] || ! run_mpi 1 "$g/bin/jacobi2d" --help > "$out/help.log" 2>&1; then
  log "the MPI binaries built here do not run here (${missing:-$(tail -2 "$out/help.log" | tr '\n' ' ')}): rebuilding with $(command -v mpicxx || echo 'no mpicxx')"
  ln -sf libOpenCL.so.1 "$g/lib/libOpenCL.so"
  for src in "$g"/src/*/; do
    name=$(basename "$src")
    prog=$(sed -n 's/^project(\([A-Za-z0-9_]*\).*/\1/p' "$src/CMakeLists.txt")
    if cmake -S "$src" -B "/tmp/build-$name" -DCMAKE_BUILD_TYPE=Release -DOpenCL_INCLUDE_DIR="$g/include" \
         -DOpenCL_LIBRARY="$g/lib/libOpenCL.so" > "$out/rebuild.log" 2>&1 &&
       cmake --build "/tmp/build-$name" -j 8 >> "$out/rebuild.log" 2>&1; then
      cp "/tmp/build-$name/$prog" "$g/bin/$name"
    else
      log "rebuild of $name failed:"; tail -15 "$out/rebuild.log"; exit 1
    fi
  done
fi
log "libmpi used: $(ldd "$g/bin/jacobi2d" | awk '/libmpi/ {print $3}' | head -1)"

# ---- 2. every example: 2 ranks against 1 rank and the serial reference
rows=()
for prog in "$g"/ref/reference_*; do
  ex=${prog##*/reference_}
  ref=/tmp/mref/$ex
  rm -rf "$ref" /tmp/mrun/$ex; mkdir -p "$ref" /tmp/mrun/$ex/1 /tmp/mrun/$ex/2 /tmp/mrun/$ex/ooc
  "$prog" --out "$ref" >/dev/null
  verdict="bit-exact"
  ranks=(${RANKS:-1 2})
  last=${ranks[${#ranks[@]}-1]}
  for n in "${ranks[@]}"; do
    run=/tmp/mrun/$ex/$n
    saves=()
    for f in "$ref"/*.raw; do a=$(basename "$f" .raw); saves+=(--save "$a=$run/$a.raw"); done
    extra=(); [ "$n" -eq "$last" ] && extra=(--verify)
    if run_mpi "$n" "$g/bin/$ex" --device-type "$type" "${saves[@]}" "${extra[@]}" > "$run/log" 2>&1; then
      for f in "$ref"/*.raw; do
        cmp -s "$f" "$run/$(basename "$f")" || verdict="$n ranks: DIFFERS from reference ($(basename "$f"))"
        cmp -s "/tmp/mrun/$ex/1/$(basename "$f")" "$run/$(basename "$f")" || verdict="$n ranks: DIFFERS from 1 rank"
      done
    else
      verdict="$n ranks: FAILED: $(grep -m1 error "$run/log")"
    fi
    cp "$run/log" "$out/example-$ex-$n.log"
  done
  # OOC=1: also 1 rank out of core (2 chunks, k = 2; 1 chunk where 2 cannot be planned).
  if [ -n "${OOC:-}" ]; then
    run=/tmp/mrun/$ex/ooc
    saves=()
    for f in "$ref"/*.raw; do a=$(basename "$f" .raw); saves+=(--save "$a=$run/$a.raw"); done
    if run_mpi 1 "$g/bin/$ex" --device-type "$type" --out-of-core on --ooc-chunks 2 --steps-per-pass 2 "${saves[@]}" > "$run/log" 2>&1 ||
       run_mpi 1 "$g/bin/$ex" --device-type "$type" --out-of-core on --ooc-chunks 1 --steps-per-pass 2 "${saves[@]}" > "$run/log" 2>&1; then
      grep -q "^out-of-core: on" "$run/log" || verdict="out of core: not on"
      for f in "$ref"/*.raw; do
        cmp -s "$f" "$run/$(basename "$f")" || verdict="out of core: DIFFERS from reference ($(basename "$f"))"
      done
      [ "$verdict" = bit-exact ] && verdict="bit-exact (+ooc)"
    else
      verdict="out of core: FAILED: $(grep -m1 error "$run/log")"
    fi
    cp "$run/log" "$out/example-$ex-ooc.log"
  fi
  v=$(grep -o 'verify: [A-Z]*' /tmp/mrun/$ex/$last/log)
  ms1=$(awk '/ms\/step/ {gsub(/[()]/,""); print $7}' /tmp/mrun/$ex/1/log)
  ms2=$(awk '/ms\/step/ {gsub(/[()]/,""); print $7}' /tmp/mrun/$ex/$last/log)
  rows+=("$(printf '%-16s %-34s %-12s %s / %s ms/step' "$ex" "$verdict" "${v:-no verify}" "${ms1:-?}" "${ms2:-?}")")
done

# ---- 3. Jacobi 16384^2, 1000 steps: 2 ranks against one process on 2 GPUs
# time-loop ms/step = (kernels + exchange) / steps, from the report
loop_ms() { awk '/^time:/ {steps=$5} /kernels:/ {k=$2} /exchange:/ {x=$2} END {if (steps) printf "%.4f", 1000*(k+x)/steps}' "$1"; }
one=() mpi=() tot1=() totm=()
[ -n "${SKIP_BENCH:-}" ] || for i in 1 2 3; do
  "$g/bin/jacobi2d_16384" --device-type gpu --devices 2 > "$out/bench-1proc-$i.log" 2>&1
  one+=("$(loop_ms "$out/bench-1proc-$i.log")")
  tot1+=("$(awk '/ms\/step/ {gsub(/[()]/,""); print $7}' "$out/bench-1proc-$i.log")")
  run_mpi 2 "$g/bin/jacobi2d_16384_mpi" --device-type gpu > "$out/bench-mpi-$i.log" 2>&1
  mpi+=("$(loop_ms "$out/bench-mpi-$i.log")")
  totm+=("$(awk '/ms\/step/ {gsub(/[()]/,""); print $7}' "$out/bench-mpi-$i.log")")
done
m1=$(printf '%s\n' "${one[@]}" | median)
mm=$(printf '%s\n' "${mpi[@]}" | median)
echo
[ -f "$out/bench-mpi-1.log" ] && cat "$out/bench-mpi-1.log"
echo
log "== MPI OpenCL on $ngpu GPU(s) (device type $type): every example, 2 ranks (one GPU each) vs 1 rank and the serial reference"
log "$(printf '%-16s %-34s %-12s %s' example 'saved arrays' '--verify' 'ms/step 1 rank / 2 ranks (whole run)')"
for r in "${rows[@]}"; do log "$r"; done
log "== Jacobi 16384^2 floats, 1000 steps, time loop (kernels + exchange) ms/step, median of 3"
log "one process, 2 GPUs: ${one[*]} -> $m1 (whole run: ${tot1[*]})"
log "MPI, 2 ranks:        ${mpi[*]} -> $mm (whole run: ${totm[*]})"
awk -v a="$m1" -v b="$mm" 'BEGIN {if (a > 0 && b > 0) printf "MPI / one process: %.3f\n", b / a}' | tee -a "$out/mpi-summary.txt"
