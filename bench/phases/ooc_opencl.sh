#!/usr/bin/env bash
# Phase `ooc-opencl` (GPU machine: H100 or H200), after the `prepare` phase here (the OpenCL
# programs built here and the CUDA trees: carry bench/generated). Out of core through NVIDIA's
# OpenCL, and the budget question of the OpenMP target. The arguments (PARTs; default: opencl)
# pick what runs:
#   opencl  0. checks: every example forced out of core on the GPU (2 chunks, k = 2) and the
#              acoustic example at k = 1, 2, 3, 5, region sharing off, the naive scheme,
#              pageable host arrays (--pinned off) and --band-sharing off: saved arrays equal
#              the serial reference bit for bit; acoustic 1160^3 under 8 GiB (model) and 20 GiB
#              (k = 24, one pass) with --verify (the in-core run on the GPU);
#           1. acoustic 1160^3 (23.3 GiB of host data), 24 steps, --device-memory 8GiB: the
#              model's choice with page-locked host arrays (direct mapping), with every step
#              over the whole load window (--trapezoid off) and with pageable host arrays,
#              REPS runs each (median); the naive scheme; the in-core run.
#   big     acoustic 1750^3 (85.8 GB of host data, more than the GPU's memory), budget auto:
#           the model's choice and k = 4 (chunks by the model), with the share of the link bound,
#           OpenCL (BIG_CUDA_ONLY=1 skips it) and CUDA.
#   cuda    the same checks through the CUDA programs (built here from bench/generated), each
#           also with --trapezoid off, acoustic 1160^3 with --verify, and the 1160^3 model's
#           choice with the trapezoid and with every step over the whole window.
#           ROWS=0: the opencl and cuda phases run their checks only (no timed rows).
#   sweep   CUDA, 1160^3 at 20 GiB: the model's choice, 8, 10, 12 chunks at k = 24, and k = 16,
#           20 (chunks by the model). BIG_K12=1 adds k = 12 to the big phase.
#   incore  acoustic 1160^3 in core (--out-of-core off), CUDA and OpenCL, and --verify of the
#           model's choice at 20 GiB (against the in-core run on the GPU), both backends.
#   budget  the model's choice at budgets 8, 12, 16 and 20 GiB (all force chunks: the data is
#           23.3 GiB), CUDA and OpenCL, one pass of 24 steps at 20 GiB, CUDA at 16 GiB with the
#           whole window, and the 16-thread OpenMP CPU version at 1160^3; with NO_BANDS=1
#           (default) also k = 24 and CUDA at 12 GiB with --band-sharing off.
# Several PARTs run in this order (opencl big cuda sweep incore budget): ooc-opencl cuda budget.
# Prints a table last; logs go to $OUT (default /tmp/out).
# Usage: REPS=2 bench/run.sh ooc-opencl [opencl|big|cuda|sweep|incore|budget]...
# On the device tool, whose $OUT comes back with a few files only: PACK=1 bench/run.sh ... (or
# TAR_TO=$OUT OUT=/tmp/x: TAR_TO packs this phase's logs into TAR_TO/logs.tgz).
set -u
. "$(dirname "$0")/lib.sh"
g=$gen/opencl
reps=${REPS:-2}
phase=${*:-${PHASE:-opencl}}
mkdir -p "$out" "$work"
export LD_LIBRARY_PATH=$g/lib:${LD_LIBRARY_PATH:-}
register_nvidia_opencl
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader
  free -g | head -2
} 2>&1 | tee "$out/machine-${phase// /-}.txt"
has() { [[ " $phase " == *" $1 "* ]]; }
cuda_build() {  # cuda_build NAME: the generated CUDA program bench/generated/cuda-NAME, in $work
  build_cuda "$1" 16 || { echo "BUILD FAILED: $1"; tail -20 "$out/build-$1.log"; }
}

rows=()
one() {  # one NAME BINARY ARGS...: run once, log to $out/NAME.log, echo ms/step
  local name=$1 bin=$2; shift 2
  timeout "${RUN_TIMEOUT:-240}" "$bin" --device-type gpu --steps 24 "$@" >"$out/$name.log" 2>&1
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
    "$(grep -m1 -o 'host arrays [a-z]*' "$log" | sed 's/host arrays //'), $(grep -m1 -o 'trapezoid [a-z]*' "$log"), $(grep -m1 -o 'band sharing [a-z]*' "$log")" \
    "$(grep -m1 -o 'h2d [0-9.]* GB/s, d2h [0-9.]* GB/s, bidirectional [0-9.]* GB/s' "$log")" \
    "$(grep -m1 -o 'predicted [0-9.]* s' "$log")" "$(grep -m1 -o 'link bound.*' "$log")")")
}

checks=()
verdict() {  # verdict BIN_DIR EXAMPLE ARGS...: out of core on the GPU, saved arrays against the reference
  local bin=$1 ex=$2; shift 2
  local ref=$work/ref-out-cl/$ex run=$work/run-cl/$ex
  [ -d "$ref" ] || { mkdir -p "$ref"; "$g/ref/reference_$ex" --out "$ref" >/dev/null; }
  rm -rf "$run"; mkdir -p "$run"
  local saves=() f v=bit-exact
  for f in "$ref"/*.raw; do saves+=(--save "$(basename "$f" .raw)=$run/$(basename "$f")"); done
  if timeout 120 "$bin/$ex" --device-type gpu --out-of-core on "$@" "${saves[@]}" >"$run/log" 2>&1; then
    for f in "$ref"/*.raw; do cmp -s "$f" "$run/$(basename "$f")" || v="DIFFERS ($(basename "$f"))"; done
    grep -q '^out-of-core: on' "$run/log" || v="NOT OUT OF CORE"
  else
    v="FAILED: $(tail -1 "$run/log")"
  fi
  checks+=("$(printf '%-15s %-62s %s (host %s, %s, %s)' "$ex" "$*" "$v" "$(grep -m1 -o 'host arrays [a-z]*' "$run/log" | sed 's/host arrays //')" "$(grep -m1 -o 'trapezoid [a-z]*' "$run/log")" "$(grep -m1 -o 'band sharing [a-z]*' "$run/log")")")
}
acoustic_args=("--ooc-chunks 4 --steps-per-pass 1" "--ooc-chunks 2 --steps-per-pass 5"
  "--ooc-chunks 4 --steps-per-pass 2 --region-sharing off"
  "--ooc-chunks 3 --steps-per-pass 1 --region-sharing off --overlap off"
  "--ooc-chunks 4 --steps-per-pass 2 --pinned off"
  "--ooc-chunks 3 --steps-per-pass 3" "--ooc-chunks 3 --steps-per-pass 3 --band-sharing off")

if has opencl; then
  for prog in "$g"/ref/reference_*; do
    verdict "$g/bin" "${prog##*/reference_}" --ooc-chunks 2 --steps-per-pass 2
  done
  for args in "${acoustic_args[@]}"; do
    verdict "$g/bin" acoustic $args
  done
  printf '%s\n' "${checks[@]}" | tee "$out/checks.txt"
  bin=$g/bin/acoustic_1160
  timeout 300 "$bin" --device-type gpu --steps 24 --device-memory 8GiB --verify >"$out/1160-verify.log" 2>&1
  big="acoustic 1160^3, 8 GiB, model, --verify: $(grep -m1 -o 'verify: [A-Z]*' "$out/1160-verify.log" || echo "RUN FAILED: $(tail -1 "$out/1160-verify.log")")"
  timeout 300 "$bin" --device-type gpu --steps 24 --device-memory 20GiB --steps-per-pass 24 --verify >"$out/1160-verify-k24.log" 2>&1
  big="$big; 20 GiB, k = 24, --verify: $(grep -m1 -o 'verify: [A-Z]*' "$out/1160-verify-k24.log" || echo "RUN FAILED: $(tail -1 "$out/1160-verify-k24.log")") ($(grep -m1 -o 'band sharing [a-z]*' "$out/1160-verify-k24.log"))"
  echo "$big"
  if [ "${ROWS:-1}" = 1 ]; then
  row 1160-cl-model "$bin" --device-memory 8GiB
  row 1160-cl-whole-window "$bin" --device-memory 8GiB --trapezoid off
  row 1160-cl-pageable "$bin" --device-memory 8GiB --pinned off
  reps=1
  row 1160-cl-naive "$bin" --device-memory 8GiB --ooc-chunks 16 --steps-per-pass 1 --region-sharing off --overlap off
  row 1160-cl-in-core "$bin" --out-of-core off
  fi
  echo
  echo "== OpenCL ($(grep -m1 -o 'on device 0 ([^)]*)' "$out/1160-cl-model-1.log")), out of core on the GPU, against the serial references"
  printf '%s\n' "${checks[@]}"
  echo "$big"
  echo "== acoustic 1160^3, 24 steps (model rows: median of ${REPS:-2})"
  printf '%s\n' "${rows[@]}" | tee "$out/table-opencl.txt"
fi

if has big; then
  reps=1
  if [ -z "${BIG_CUDA_ONLY:-}" ]; then
    row 1750-cl-model "$g/bin/acoustic_1750"
    row 1750-cl-k4 "$g/bin/acoustic_1750" --steps-per-pass 4
  fi
  cuda_build acoustic_1750
  row 1750-cuda-model "$work/build-acoustic_1750/acoustic_1750"
  [ "${BIG_K12:-0}" = 1 ] && row 1750-cuda-k12 "$work/build-acoustic_1750/acoustic_1750" --steps-per-pass 12
  [ "${BIG_K4:-1}" = 1 ] && row 1750-cuda-k4 "$work/build-acoustic_1750/acoustic_1750" --steps-per-pass 4
  echo
  echo "== acoustic 1750^3, 24 steps, OpenCL and CUDA, budget auto (one run each)"
  printf '%s\n' "${rows[@]}" | tee "$out/table-big.txt"
fi

if has cuda; then
  checks=() rows=()
  exs=()
  for prog in "$g"/ref/reference_*; do exs+=("${prog##*/reference_}"); done
  for ex in "${exs[@]}" acoustic_1160; do cuda_build "$ex" & done
  wait
  cb=$work/cuda-bin
  mkdir -p "$cb"
  for ex in "${exs[@]}" acoustic_1160; do cp "$work/build-$ex/$ex" "$cb/" 2>/dev/null; done
  for ex in "${exs[@]}"; do
    verdict "$cb" "$ex" --ooc-chunks 2 --steps-per-pass 2
    verdict "$cb" "$ex" --ooc-chunks 3 --steps-per-pass 3 --trapezoid off
  done
  for args in "${acoustic_args[@]}"; do
    verdict "$cb" acoustic $args
  done
  timeout 300 "$cb/acoustic_1160" --steps 24 --device-memory 8GiB --verify >"$out/1160-cuda-verify.log" 2>&1
  big="acoustic 1160^3, 8 GiB, model, --verify: $(grep -m1 -o 'verify: [A-Z]*' "$out/1160-cuda-verify.log" || echo "RUN FAILED: $(tail -1 "$out/1160-cuda-verify.log")")"
  timeout 300 "$cb/acoustic_1160" --steps 24 --device-memory 20GiB --steps-per-pass 24 --verify >"$out/1160-cuda-verify-k24.log" 2>&1
  big="$big; 20 GiB, k = 24, --verify: $(grep -m1 -o 'verify: [A-Z]*' "$out/1160-cuda-verify-k24.log" || echo "RUN FAILED: $(tail -1 "$out/1160-cuda-verify-k24.log")") ($(grep -m1 -o 'band sharing [a-z]*' "$out/1160-cuda-verify-k24.log"))"
  if [ "${ROWS:-1}" = 1 ]; then
  row 1160-cuda-model "$cb/acoustic_1160" --device-memory 8GiB
  row 1160-cuda-whole-window "$cb/acoustic_1160" --device-memory 8GiB --trapezoid off
  row 1160-cuda-16GiB "$cb/acoustic_1160" --device-memory 16GiB
  row 1160-cuda-16GiB-whole "$cb/acoustic_1160" --device-memory 16GiB --trapezoid off
  fi
  echo
  echo "== CUDA ($(grep -m1 -o 'on device 0 ([^)]*)' "$out/1160-cuda-model-1.log")), out of core, against the serial references"
  printf '%s\n' "${checks[@]}" | tee "$out/checks-cuda.txt"
  echo "$big"
  echo "== acoustic 1160^3, 24 steps, CUDA (median of ${REPS:-2})"
  printf '%s\n' "${rows[@]}" | tee "$out/table-cuda.txt"
  rows=()
fi

if has sweep; then  # beside the model at 20 GiB (CUDA): other chunk counts at k = 24, other k
  [ -x "$work/build-acoustic_1160/acoustic_1160" ] || cuda_build acoustic_1160
  reps=1 rows=()
  b=$work/build-acoustic_1160/acoustic_1160
  row 1160-cuda-20GiB-model "$b" --device-memory 20GiB
  for n in 8 10 12; do row "1160-cuda-20GiB-n$n-k24" "$b" --device-memory 20GiB --ooc-chunks $n --steps-per-pass 24; done
  for k in 16 20; do row "1160-cuda-20GiB-k$k" "$b" --device-memory 20GiB --steps-per-pass $k; done
  echo
  echo "== acoustic 1160^3, 24 steps, CUDA, 20 GiB: the model and a sweep (one run each)"
  printf '%s\n' "${rows[@]}" | tee "$out/table-sweep.txt"
  rows=()
fi

if has incore; then  # the in-core runs of 1160^3 (both backends) and --verify at 20 GiB
  [ -x "$work/build-acoustic_1160/acoustic_1160" ] || cuda_build acoustic_1160
  reps=1 rows=()
  b=$work/build-acoustic_1160/acoustic_1160
  row 1160-cuda-in-core "$b" --out-of-core off
  row 1160-cl-in-core "$g/bin/acoustic_1160" --out-of-core off
  for v in "cuda $b" "cl $g/bin/acoustic_1160"; do
    set -- $v
    timeout 300 "$2" --device-type gpu --steps 24 --device-memory 20GiB --verify >"$out/1160-$1-verify-20.log" 2>&1
    echo "$1 acoustic 1160^3, 20 GiB, model, --verify: $(grep -m1 -o 'verify: [A-Z]*' "$out/1160-$1-verify-20.log" || echo "RUN FAILED: $(tail -1 "$out/1160-$1-verify-20.log")")"
  done | tee "$out/verify-20.txt"
  echo
  echo "== acoustic 1160^3, 24 steps, in core (one run each)"
  printf '%s\n' "${rows[@]}" | tee "$out/table-incore.txt"
  rows=()
fi

if has budget; then
  [ -x "$work/build-acoustic_1160/acoustic_1160" ] || cuda_build acoustic_1160
  g++ -O3 -march=native -fopenmp -I"$root/runtime/include" "$root/bench/cpu/acoustic_omp.cpp" -o "$work/acoustic_omp" \
    >"$out/build-omp.log" 2>&1 || { echo "OpenMP build failed"; cat "$out/build-omp.log"; }
  reps=1
  for budget in ${BUDGETS:-8 12 16 20}; do
    row "1160-cuda-${budget}GiB" "$work/build-acoustic_1160/acoustic_1160" --device-memory "${budget}GiB"
    row "1160-cl-${budget}GiB" "$g/bin/acoustic_1160" --device-memory "${budget}GiB"
  done
  # Beside the model: one pass of all 24 steps, and the whole window at 16 GiB.
  row 1160-cuda-20GiB-k24 "$work/build-acoustic_1160/acoustic_1160" --device-memory 20GiB --steps-per-pass 24
  row 1160-cl-20GiB-k24 "$g/bin/acoustic_1160" --device-memory 20GiB --steps-per-pass 24
  if [ "${NO_BANDS:-1}" = 1 ]; then  # the same without band sharing (the trapezoid alone)
    row 1160-cuda-20GiB-k24-nobands "$work/build-acoustic_1160/acoustic_1160" --device-memory 20GiB --steps-per-pass 24 --band-sharing off
    row 1160-cl-20GiB-k24-nobands "$g/bin/acoustic_1160" --device-memory 20GiB --steps-per-pass 24 --band-sharing off
    row 1160-cuda-12GiB-nobands "$work/build-acoustic_1160/acoustic_1160" --device-memory 12GiB --band-sharing off
  fi
  row 1160-cuda-16GiB-whole "$work/build-acoustic_1160/acoustic_1160" --device-memory 16GiB --trapezoid off
  "$work/acoustic_omp" 1160 1160 1160 3 16 | tee "$out/cpu.log"
  echo
  echo "== acoustic 1160^3, 24 steps, the model's choice by budget (one run each)"
  printf '%s\n' "${rows[@]}" | tee "$out/table-budget.txt"
  echo "cpu 16-thread OpenMP: $(sed -nE 's/.* s_per_step=([0-9.]+).*/\1/p' "$out/cpu.log") s/step"
fi

# The device tool brings back only a few files of $OUT: TAR_TO=DIR packs every log into one.
if [ -n "${TAR_TO:-}" ]; then
  tar czf "$TAR_TO/logs.tgz" -C "$(dirname "$out")" "$(basename "$out")" && echo "logs: $TAR_TO/logs.tgz"
fi
