#!/usr/bin/env bash
# Phase `check` (GPU machine): builds the CUDA programs of bench/generated/cuda-<name>/ (the
# `generate` phase) and the serial references (examples/CMakeLists.txt), then for every example:
#   - 1 GPU (--devices 1), every array the reference writes saved and compared with `cmp`;
#   - all GPUs, peer copies where possible, the same comparison, plus --verify;
#   - all GPUs with STEPGEN_CUDA_PEER=off (every exchange through pinned host memory), same;
# then compute-sanitizer (memcheck) on a short jacobi2d run over all GPUs, the error paths, the
# 16384^2 Jacobi benchmark on 1 and all GPUs, and a short table last. Logs go to $OUT.
# Usage: bench/run.sh check   (CUDA_ARCH=90 to compile for a given architecture, not native)
set -u
. "$(dirname "$0")/lib.sh"
mkdir -p "$out" "$work"
{
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
  nvidia-smi topo -m 2>/dev/null | head -12
  nvcc --version | tail -2
  cmake --version | head -1
} 2>&1 | tee "$out/machine.txt"
gpus=$(gpu_count)

# References (plain C++, runtime/include only).
build_references || { echo "references failed to build"; tail -30 "$out/ref-build.log"; exit 1; }

# The generated programs, 4 builds at a time.
start=$SECONDS
for tree in "$gen"/cuda-*/; do
  tree=${tree%/}
  while [ "$(jobs -rp | wc -l)" -ge 4 ]; do wait -n; done
  build_cuda "${tree##*/cuda-}" 4 &
done
wait
echo "built in $((SECONDS - start)) s"

# The time loop per step, kernels + exchange (GPU time of the busiest GPU; upload, gather and
# host work outside the loop excluded), then the exchange alone: "0.123/0.045".
loop_ms() {
  awk '/ for [0-9]+ steps/ {steps = $5} /^  kernels:/ {k = $2} /^  exchange:/ {x = $2}
       END {if (steps > 0) printf "%.3f/%.3f", 1000 * (k + x) / steps, 1000 * x / steps; else print "?"}' "$1"
}

rows=()
check_run() {  # check_run EXAMPLE LABEL REFDIR ENV... -- ARGS...: runs, compares, prints a verdict
  local ex=$1 label=$2 ref=$3; shift 3
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local run=$work/run/$ex-$label
  rm -rf "$run"; mkdir -p "$run"
  local saves=()
  for f in "$ref"/*.raw; do local a; a=$(basename "$f" .raw); saves+=(--save "$a=$run/$a.raw"); done
  local verdict
  if env "${envs[@]}" "$work/build-$ex/$ex" "$@" "${saves[@]}" >"$run/log" 2>&1; then
    verdict=bit-exact
    for f in "$ref"/*.raw; do cmp -s "$f" "$run/$(basename "$f")" || verdict="DIFFERS($(basename "$f" .raw))"; done
    grep -q "verify: FAILED" "$run/log" && verdict="$verdict,verify-FAILED"
  else
    verdict="FAILED"
  fi
  cp "$run/log" "$out/run-$ex-$label.log"
  echo "$verdict $(loop_ms "$run/log")"
}

for tree in "$gen"/cuda-*/; do
  tree=${tree%/}
  ex=${tree##*/cuda-}
  [ -x "$work/ref/reference_$ex" ] || continue  # the benchmark has no reference
  if [ ! -x "$work/build-$ex/$ex" ]; then
    rows+=("$(printf '%-15s %s' "$ex" "BUILD FAILED (see build-$ex.log)")")
    tail -20 "$out/build-$ex.log"
    continue
  fi
  ref=$work/ref-out/$ex
  rm -rf "$ref"; mkdir -p "$ref"
  "$work/ref/reference_$ex" --out "$ref" >/dev/null
  read -r v1 m1 <<<"$(check_run "$ex" 1gpu "$ref" X=1 -- --devices 1)"
  read -r vn mn <<<"$(check_run "$ex" all "$ref" X=1 -- --verify)"
  read -r vh mh <<<"$(check_run "$ex" all-host "$ref" STEPGEN_CUDA_PEER=off -- --verify)"
  paths=$(grep -c "GPU to GPU" "$out/run-$ex-all.log")
  rows+=("$(printf '%-15s %-12s %-11s | %-26s %-11s | %-26s %-11s | %s peer pairs' "$ex" "$v1" "$m1" "$vn" "$mn" "$vh" "$mh" "$paths")")
done

# compute-sanitizer: memcheck over a short multi-GPU run (peer path) and the staged path.
san=compute-sanitizer
command -v $san >/dev/null || san=/usr/local/cuda/bin/compute-sanitizer
sanitizer="not run"
if [ -x "$work/build-jacobi2d/jacobi2d" ] && command -v $san >/dev/null; then
  if $san --tool memcheck --error-exitcode 9 "$work/build-jacobi2d/jacobi2d" --steps 5 >"$out/sanitizer.log" 2>&1 &&
     STEPGEN_CUDA_PEER=off $san --tool memcheck --error-exitcode 9 "$work/build-jacobi2d/jacobi2d" --steps 5 \
       >>"$out/sanitizer.log" 2>&1; then
    sanitizer="clean ($(grep -m1 -o 'ERROR SUMMARY: [0-9]* errors' "$out/sanitizer.log"))"
  else
    sanitizer="ERRORS (see sanitizer.log): $(grep -m1 'ERROR SUMMARY' "$out/sanitizer.log")"
  fi
fi

# Error paths on a real GPU machine: a clear message and exit status 1.
errors=()
expect_error() {  # expect_error "MESSAGE PART" ARGS...
  local want=$1; shift
  "$work/build-jacobi2d/jacobi2d" "$@" >"$work/err.txt" 2>&1
  local status=$?
  if [ $status -eq 1 ] && grep -qF -- "$want" "$work/err.txt"; then errors+=("ok: $* -> $(head -1 "$work/err.txt")")
  else errors+=("FAIL: $* exited $status: $(head -2 "$work/err.txt" | tr '\n' ' ')"); fi
}
if [ -x "$work/build-jacobi2d/jacobi2d" ]; then
  expect_error "asked for 99 devices but only $gpus CUDA device(s) are present" --devices 99
  expect_error "the CUDA backend runs on GPUs only" --device-type cpu
  expect_error "no CUDA device matches (platform 'AMD')" --platform AMD
  expect_error "--weights gives 3 weights for $gpus devices" --weights 1,2,3
fi

# The 16384^2 Jacobi benchmark (1000 steps): 1 GPU and all GPUs, median of 3.
bench=()
if [ -x "$work/build-jacobi2d_16384/jacobi2d_16384" ]; then
  for devs in 1 "$gpus"; do
    ms=()
    for i in 1 2 3; do
      "$work/build-jacobi2d_16384/jacobi2d_16384" --devices "$devs" >"$out/bench-$devs-gpu-run$i.log" 2>&1
      ms+=("$(loop_ms "$out/bench-$devs-gpu-run$i.log" | cut -d/ -f1)")
    done
    bench+=("$(printf 'jacobi2d 16384^2, 1000 steps, %s GPU(s): time loop %s ms/step (median of %s)' "$devs" \
      "$(printf '%s\n' "${ms[@]}" | median)" "${ms[*]}")")
  done
  tail -12 "$out/bench-$gpus-gpu-run1.log"
fi

echo
echo "== CUDA backend on $gpus GPU(s): arrays saved and compared with cmp against the serial references"
echo "(ms/step: the time loop, kernels+exchange / the exchange alone, GPU time of the busiest GPU)"
printf '%-15s %-12s %-11s | %-26s %-11s | %-26s %-11s\n' example "1 GPU" ms/step "all GPUs (peer) +verify" ms/step \
  "all GPUs (host staging)" ms/step
printf '%s\n' "${rows[@]}"
printf '%s\n' "${errors[@]}"
echo "compute-sanitizer memcheck, jacobi2d 5 steps on all GPUs (peer, then staged): $sanitizer"
printf '%s\n' "${bench[@]}"
