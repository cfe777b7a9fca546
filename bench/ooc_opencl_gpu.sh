#!/usr/bin/env bash
# Runs ON THE GPU MACHINE (H100 or H200), from the repository root, after bench/prepare_gpu.sh
# (the OpenCL programs, built here: carry .gpu) and scripts/gen-gpu-trees.sh (the CUDA trees:
# carry bench/generated). Out of core through NVIDIA's OpenCL, and the budget question of the
# OpenMP target. PHASE picks what runs (default: opencl):
#   opencl  0. checks: every example forced out of core on the GPU (2 chunks, k = 2) and the
#              acoustic example at k = 1, 2, 5, region sharing off, the naive scheme and
#              pageable host arrays (--pinned off): saved arrays equal the serial reference bit
#              for bit; acoustic 1160^3 under 8 GiB with --verify (the in-core run on the GPU);
#           1. acoustic 1160^3 (23.3 GiB of host data), 24 steps, --device-memory 8GiB: the
#              model's choice with page-locked host arrays (direct mapping), with every step
#              over the whole load window (--trapezoid off) and with pageable host arrays,
#              REPS runs each (median); the naive scheme; the in-core run.
#   big     acoustic 1750^3 (85.8 GB of host data, more than the GPU's memory), budget auto:
#           the model's choice and k = 4 (chunks by the model), with the share of the link bound.
#   budget  the model's choice at budgets 8, 12, 16 and 20 GiB (all force chunks: the data is
#           23.3 GiB), CUDA and OpenCL, and the 16-thread OpenMP CPU version at 1160^3.
# Prints a table last; logs go to $OUT (default /tmp/out).
# Usage: PHASE=opencl|big|budget REPS=2 bash bench/ooc_opencl_gpu.sh
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
g=$root/.gpu
out=${OUT:-/tmp/out}
work=${WORK:-/tmp/stepgen-ooc-cl}
reps=${REPS:-2}
phase=${PHASE:-opencl}
mkdir -p "$out" "$work"
export LD_LIBRARY_PATH=$g/lib:${LD_LIBRARY_PATH:-}
export PATH=$PATH:/usr/local/cuda/bin
. "$root/bench/opencl_icd.sh"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader
  free -g | head -2
} 2>&1 | tee "$out/machine-$phase.txt"

rows=()
one() {  # one NAME BINARY ARGS...: run once, log to $out/NAME.log, echo ms/step
  local name=$1 bin=$2; shift 2
  timeout 240 "$bin" --device-type gpu --steps 24 "$@" >"$out/$name.log" 2>&1
  grep -m1 -o 'time: [0-9.]* s for [0-9]* steps ([0-9.]*' "$out/$name.log" | sed 's/.*(//'
}
row() {  # row NAME BINARY ARGS...: REPS runs, the median, and what the last report says
  local name=$1 bin=$2; shift 2
  local times=() r t
  for r in $(seq 1 "$reps"); do
    t=$(one "$name-$r" "$bin" "$@"); times+=("${t:-FAIL}")
  done
  local med log=$out/$name-$reps.log
  med=$(printf '%s\n' "${times[@]}" | grep -v FAIL | sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "FAIL"}')
  [ "$med" = FAIL ] && tail -3 "$log"
  rows+=("$(printf '%-22s %9s ms/step (runs: %s); %s; host %s; %s; %s; %s' "$name" "$med" "${times[*]}" \
    "$(grep -m1 -o '[0-9]* chunk(s)[^,]*, [0-9]* step(s) per pass[^,]*' "$log")" \
    "$(grep -m1 -o 'host arrays [a-z]*' "$log" | sed 's/host arrays //'), $(grep -m1 -o 'trapezoid [a-z]*' "$log")" \
    "$(grep -m1 -o 'h2d [0-9.]* GB/s, d2h [0-9.]* GB/s, bidirectional [0-9.]* GB/s' "$log")" \
    "$(grep -m1 -o 'predicted [0-9.]* s' "$log")" "$(grep -m1 -o 'link bound.*' "$log")")")
}

if [ "$phase" = opencl ]; then
  checks=()
  verdict() {  # verdict EXAMPLE ARGS...: out of core on the GPU, saved arrays against the reference
    local ex=$1; shift
    local ref=$work/ref/$ex run=$work/run/$ex
    [ -d "$ref" ] || { mkdir -p "$ref"; "$g/ref/reference_$ex" --out "$ref" >/dev/null; }
    rm -rf "$run"; mkdir -p "$run"
    local saves=() f v=bit-exact
    for f in "$ref"/*.raw; do saves+=(--save "$(basename "$f" .raw)=$run/$(basename "$f")"); done
    if timeout 120 "$g/bin/$ex" --device-type gpu --out-of-core on "$@" "${saves[@]}" >"$run/log" 2>&1; then
      for f in "$ref"/*.raw; do cmp -s "$f" "$run/$(basename "$f")" || v="DIFFERS ($(basename "$f"))"; done
      grep -q '^out-of-core: on' "$run/log" || v="NOT OUT OF CORE"
    else
      v="FAILED: $(tail -1 "$run/log")"
    fi
    checks+=("$(printf '%-15s %-62s %s (host %s)' "$ex" "$*" "$v" "$(grep -m1 -o 'host arrays [a-z]*' "$run/log" | sed 's/host arrays //')")")
  }
  for prog in "$g"/ref/reference_*; do
    verdict "${prog##*/reference_}" --ooc-chunks 2 --steps-per-pass 2
  done
  for args in "--ooc-chunks 4 --steps-per-pass 1" "--ooc-chunks 2 --steps-per-pass 5" \
    "--ooc-chunks 4 --steps-per-pass 2 --region-sharing off" \
    "--ooc-chunks 3 --steps-per-pass 1 --region-sharing off --overlap off" \
    "--ooc-chunks 4 --steps-per-pass 2 --pinned off"; do
    verdict acoustic $args
  done
  printf '%s\n' "${checks[@]}" | tee "$out/checks.txt"
  bin=$g/bin/acoustic_1160
  timeout 300 "$bin" --device-type gpu --steps 24 --device-memory 8GiB --verify >"$out/1160-verify.log" 2>&1
  big="acoustic 1160^3, 8 GiB, model, --verify: $(grep -m1 -o 'verify: [A-Z]*' "$out/1160-verify.log" || echo "RUN FAILED: $(tail -1 "$out/1160-verify.log")")"
  echo "$big"
  row 1160-cl-model "$bin" --device-memory 8GiB
  row 1160-cl-whole-window "$bin" --device-memory 8GiB --trapezoid off
  row 1160-cl-pageable "$bin" --device-memory 8GiB --pinned off
  reps=1
  row 1160-cl-naive "$bin" --device-memory 8GiB --ooc-chunks 16 --steps-per-pass 1 --region-sharing off --overlap off
  row 1160-cl-in-core "$bin" --out-of-core off
  echo
  echo "== OpenCL ($(grep -m1 -o 'on device 0 ([^)]*)' "$out/1160-cl-model-1.log")), out of core on the GPU, against the serial references"
  printf '%s\n' "${checks[@]}"
  echo "$big"
  echo "== acoustic 1160^3, 24 steps (model rows: median of ${REPS:-2})"
  printf '%s\n' "${rows[@]}" | tee "$out/table-opencl.txt"
fi

if [ "$phase" = big ]; then
  reps=1
  row 1750-cl-model "$g/bin/acoustic_1750"
  row 1750-cl-k4 "$g/bin/acoustic_1750" --steps-per-pass 4
  echo
  echo "== acoustic 1750^3, 24 steps, OpenCL, budget auto (one run each)"
  printf '%s\n' "${rows[@]}" | tee "$out/table-big.txt"
fi

if [ "$phase" = budget ]; then
  cmake -S "$root/bench/generated/cuda-acoustic_1160" -B "$work/build-cuda" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-native}" >"$out/build.log" 2>&1 &&
    cmake --build "$work/build-cuda" -j 16 >>"$out/build.log" 2>&1 || { echo "BUILD FAILED"; tail -20 "$out/build.log"; }
  g++ -O3 -march=native -fopenmp -I"$root/runtime/include" "$root/bench/cpu/acoustic_omp.cpp" -o "$work/acoustic_omp" \
    >"$out/build-omp.log" 2>&1 || { echo "OpenMP build failed"; cat "$out/build-omp.log"; }
  reps=1
  for budget in ${BUDGETS:-8 12 16 20}; do
    row "1160-cuda-${budget}GiB" "$work/build-cuda/acoustic_1160" --device-memory "${budget}GiB"
    row "1160-cl-${budget}GiB" "$g/bin/acoustic_1160" --device-memory "${budget}GiB"
  done
  "$work/acoustic_omp" 1160 1160 1160 3 16 | tee "$out/cpu.log"
  echo
  echo "== acoustic 1160^3, 24 steps, the model's choice by budget (one run each)"
  printf '%s\n' "${rows[@]}" | tee "$out/table-budget.txt"
  echo "cpu 16-thread OpenMP: $(sed -nE 's/.* s_per_step=([0-9.]+).*/\1/p' "$out/cpu.log") s/step"
fi
