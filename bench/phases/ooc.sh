#!/usr/bin/env bash
# Phase `ooc` (GPU machine: H100 80 GB, 16 cores, 128 GB RAM): the out-of-core benchmarks of
# issue 6, with the CUDA programs of the `generate` phase (bench/generated/cuda-acoustic_1750 and
# cuda-acoustic_1160; carry bench/generated). Every run prints its own link
# bandwidths (h2d, d2h, both at once; pinned host memory, measured at start-up in the same
# run), the chunks and k the model chose, predicted and measured times and the share of the
# link bound max(in/h2d, out/d2h, (in+out)/bidir) reached.
#   1. acoustic 1750^3 (85.8 GB of host data, more than the GPU): out of core, budget auto.
#   2. acoustic 1160^3 (25 GB) with --device-memory 8GiB (forces chunks): the model's choice,
#      a small sweep of chunks x k, the naive scheme (region sharing off, k = 1, no overlap),
#      the in-core run on the H100, and the 16-thread OpenMP CPU version.
# Host memory: one program at a time (86 GB + pinning for the 1750^3 run). Total GPU time is
# about 6-8 minutes, mostly filling the host arrays. Logs go to $OUT (default /tmp/out); the
# table comes last.
# K1750 (default "4"): the k of the further 1750^3 runs; SWEEP_1160: the "chunks k" pairs.
# Usage: bench/run.sh ooc   (CUDA_ARCH=90 to force an architecture)
set -u
. "$(dirname "$0")/lib.sh"
mkdir -p "$out" "$work"
{
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,memory.free,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader
  free -g | head -2
  nproc
} 2>&1 | tee "$out/ooc-machine.txt"

for name in acoustic acoustic_1750 acoustic_1160; do
  build_cuda "$name" 8 || { echo "build of $name failed"; tail -30 "$out/build-$name.log"; exit 1; }
done
g++ -O3 -march=native -fopenmp -I"$root/runtime/include" "$root/bench/cpu/acoustic_omp.cpp" -o "$work/acoustic_omp" \
  >"$out/ooc-build-omp.log" 2>&1 || { echo "OpenMP build failed"; cat "$out/ooc-build-omp.log"; }

rows=()
field() {  # field LOG REGEX: the first match's group 1 (sed -E)
  sed -nE "s/$2/\1/p" "$1" | head -1
}
run() {  # run LABEL PROGRAM ARGS...: one run, one table row
  local label=$1 prog=$2; shift 2
  local log="$out/ooc-$label.log"
  echo "== $label: $prog $*"
  local start=$SECONDS
  timeout 420 "$work/build-$prog/$prog" "$@" >"$log" 2>&1
  local status=$?
  tail -8 "$log"
  local steps ms chunks k measured passes share h2d d2h bidir pred
  steps=$(field "$log" '^time: [0-9.]+ s for ([0-9]+) steps.*')
  ms=$(field "$log" '^time: .*\(([0-9.]+) ms\/step\).*')
  chunks=$(field "$log" '^  ([0-9]+) chunk\(s\).*')
  k=$(field "$log" '.* ([0-9]+) step\(s\) per pass.*')
  pred=$(field "$log" '.*predicted ([0-9.]+) s, measured.*')
  measured=$(field "$log" '.*measured ([0-9.]+) s \(.*')
  passes=$(field "$log" '.*ms\/step, ([0-9.]+) s\/pass.*')
  share=$(field "$log" '.*\(([0-9]+)% of it reached\).*')
  h2d=$(field "$log" '.*h2d ([0-9.]+) GB\/s, d2h.*')
  d2h=$(field "$log" '.*d2h ([0-9.]+) GB\/s, bidir.*')
  bidir=$(field "$log" '.*bidirectional ([0-9.]+) GB\/s.*')
  [ $status -eq 0 ] || ms="FAILED($status)"
  rows+=("$(printf '%-22s %6s %7s %4s %10s %10s %10s %6s %18s %6s' "$label" "${chunks:--}" "${k:--}" \
    "${steps:-?}" "${ms:-?}" "${passes:--}" "${pred:--}/${measured:--}" "${share:--}" \
    "${h2d:--}/${d2h:--}/${bidir:--}" $((SECONDS - start)))")
}

# 0. Correctness on the GPU first: the acoustic example forced out of core, compared bit for bit
#    with the in-core run (--verify), k = 1, 2, 5, region sharing on and off, naive.
checks=()
for args in "--ooc-chunks 4 --steps-per-pass 1" "--ooc-chunks 4 --steps-per-pass 2" \
  "--ooc-chunks 2 --steps-per-pass 5" "--ooc-chunks 4 --steps-per-pass 2 --region-sharing off" \
  "--ooc-chunks 3 --steps-per-pass 1 --region-sharing off --overlap off"; do
  log="$out/ooc-check-$(echo $args | tr ' ' '_' | tr -d '-').log"
  "$work/build-acoustic/acoustic" --out-of-core on $args --verify >"$log" 2>&1
  checks+=("$(grep -m1 -o 'verify: [A-Z]*' "$log" || echo 'verify: RUN FAILED'): $args")
done
printf '%s\n' "${checks[@]}"

# 1. Larger than the GPU: the budget is a share of the free memory, the model picks chunks/k.
run 1750-auto acoustic_1750 --steps 24
# The link bound favours few steps per pass (less redundant compute per byte moved); the model
# minimises the time per step instead. K1750 (default "4"): further runs with k fixed, chunks auto.
for k in ${K1750-4}; do
  run "1750-k$k" acoustic_1750 --steps 24 --steps-per-pass "$k"
done
# 2. 1160^3 with an 8 GiB budget: model, sweep, naive, in core.
run 1160-model acoustic_1160 --steps 24 --device-memory 8GiB
for ck in ${SWEEP_1160:-"16 1" "16 4" "16 8" "24 4" "32 4" "32 8" "24 12"}; do
  set -- $ck
  run "1160-c$1-k$2" acoustic_1160 --steps 24 --device-memory 8GiB --ooc-chunks "$1" --steps-per-pass "$2"
done
run 1160-naive acoustic_1160 --steps 24 --device-memory 8GiB --ooc-chunks 16 --steps-per-pass 1 \
  --region-sharing off --overlap off
run 1160-in-core acoustic_1160 --steps 24 --out-of-core off
cpu="?"
if [ -x "$work/acoustic_omp" ]; then
  echo "== cpu: acoustic_omp 1160 1160 1160 3 16"
  "$work/acoustic_omp" 1160 1160 1160 3 16 | tee "$out/ooc-cpu.log"
  cpu=$(sed -nE 's/.* s_per_step=([0-9.]+).*/\1/p' "$out/ooc-cpu.log")
fi

{
  echo
  echo "out-of-core, acoustic 25-point (float, 4 arrays), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  printf '%-22s %6s %7s %4s %10s %10s %10s %6s %18s %6s\n' run chunks k/pass steps ms/step s/pass \
    pred/meas_s bound% "h2d/d2h/bidir GB/s" wall_s
  for r in "${rows[@]}"; do echo "$r"; done
  echo "cpu 16-thread OpenMP 1160^3: ${cpu} s/step"
  printf 'GPU check (acoustic 64x56x48 out of core vs in core) %s\n' "${checks[@]}"
  echo "(bound% = link bound / measured time; ratios: naive ms/step over model ms/step, cpu s/step"
  echo " over model s/step, in-core over model; the sweep's best row against the model's choice)"
} | tee "$out/ooc-table.txt"
