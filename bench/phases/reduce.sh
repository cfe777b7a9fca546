#!/usr/bin/env bash
# Phase `reduce` (GPU machine; for the OpenCL half, after `prepare` here, carry bench/generated):
# the cost of one exact device reduction (stepgen/exec/reduce_cuda.hpp, stepgen/exec/reduce_opencl.hpp),
# every op over 16384^2 floats, alone and as B - A (Jacobi's residual), and over 1160^3 doubles,
# against a plain (non-exact) sum reading the same bytes and the time to read them at the card's
# peak bandwidth; then the share of a Jacobi 16384^2 run (about 1.1 ms/step) that l2 of B - A
# every 100 steps costs (issue 24: <= 2%). Each program also checks a few results against the
# host's rt::Reduction, bit for bit (CHECK=0: skip). The float sum and l2 kernels are run in
# each way they can reach a value's class (STEPGEN_REDUCE_FLOAT: 0 the compare over the classes
# for every value, 1 the hot class then the compare, 3 the default: sum as 1, l2 through an
# exponent window; REDUCE_MODES, default "3 0"): CUDA built once per mode, OpenCL
# with the variable set. Prints a table last.
# Usage: bench/run.sh reduce [NX NY N3 REPS]   (default 16384 16384 1160 20)
set -u
. "$(dirname "$0")/lib.sh"
mkdir -p "$out" "$work/reduce"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>&1 | tee "$out/machine.txt"
status=0
# A mode may name the blocks per multiprocessor the CUDA kernels are built for: 3:10.
modes=${REDUCE_MODES:-3 0}
for mode in $modes; do
  bin=$work/reduce/reduce_cuda_$mode
  blocks=
  [[ $mode == *:* ]] && blocks=-DSTEPGEN_REDUCE_BLOCKS_PER_SM=${mode#*:}
  if [ ! -x "$bin" ]; then
    # shellcheck disable=SC2086
    nvcc -O3 -std=c++17 -arch="${CUDA_ARCH:-native}" --fmad=false -DSTEPGEN_REDUCE_FLOAT="${mode%%:*}" $blocks \
      -I "$root/runtime/include" -Xcompiler=-Wall,-Wextra,-Werror -Werror all-warnings \
      "$root/bench/reduce/reduce_cuda.cu" -o "$bin" >"$out/build-reduce_cuda_$mode.log" 2>&1 ||
      { echo "reduce: reduce_cuda (mode $mode) did not build"; tail -20 "$out/build-reduce_cuda_$mode.log"; exit 1; }
  fi
done
logs=()
for mode in $modes; do
  "$work/reduce/reduce_cuda_$mode" "$@" >"$out/reduce_cuda_mode$mode.log" 2>&1 || status=1
  logs+=("$out/reduce_cuda_mode$mode.log")
done
peak=$(awk '/peak bandwidth/ {for (i = 1; i < NF; i++) if ($i == "bandwidth") print $(i + 1)}' "${logs[0]}" | head -1)
ocl=$gen/opencl/bin/reduce_opencl
if [ -x "$ocl" ]; then
  export LD_LIBRARY_PATH=$gen/opencl/lib:${LD_LIBRARY_PATH:-}
  register_nvidia_opencl
  for mode in $modes; do
    [[ $mode == *:* ]] && continue
    STEPGEN_REDUCE_FLOAT=$mode PEAK_GBS=$peak "$ocl" "$@" >"$out/reduce_opencl_mode$mode.log" 2>&1 || status=1
    logs+=("$out/reduce_opencl_mode$mode.log")
  done
else
  echo "(no $ocl: run bench/run.sh prepare here first for the OpenCL half)" >"$out/reduce_opencl.log"
  logs+=("$out/reduce_opencl.log")
fi
# The table: both programs' rows, one block (bench/run.sh's table prints from the last empty line).
echo
for f in "${logs[@]}"; do
  echo "== $(basename "$f" .log)"
  grep -v '^RESULT' "$f" | grep -v '^$'
done
exit "$status"
