#!/usr/bin/env bash
# Where the fixed cost of an in-core run goes (issue 26: whole run against kernels + bytes / link
# misses 5% on the 0.07-0.11 s runs by a fixed 3-10 ms). Per program and backend, the report's
# `time:` and `kernels:` for --steps 0 (buffers, initial values made on the devices, frames, no
# step), 1, 2 and N (median of REPS runs), and the same with CUDA_MODULE_LOADING=EAGER (CUDA: the
# kernels loaded at start-up, not at their first launch inside the timed run). Programs from
# `bench/run.sh tts-generate` (bench/generated/tts).
# Usage: bench/run.sh setupcost
set -u
. "$(dirname "$0")/lib.sh"
mkdir -p "$out" "$work"
reps=${REPS:-3}
export LD_LIBRARY_PATH=$gen/tts/opencl/lib:$gen/opencl/lib:${LD_LIBRARY_PATH:-}
register_nvidia_opencl
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
build_cuda jacobi2d_16384 8 &
build_cuda acoustic_512 8 &
build_cuda wave2k_512 8 &
wait
rows=()
# one BACKEND NAME STEPS [ENV...]: the medians of time: and kernels: over REPS runs.
one() {
  local be=$1 n=$2 steps=$3 bin i log ts=() ks=() t k
  shift 3
  if [ "$be" = cuda ]; then bin=$work/build-$n/$n; else bin=$gen/tts/opencl/bin/$n; fi
  [ -x "$bin" ] || { echo "- -"; return; }
  for i in $(seq "$reps"); do
    log=$out/setup-$be-$n-$steps-$i${1:+-env}.log
    env "$@" "$bin" --device-type gpu --steps "$steps" --out-of-core off >"$log" 2>&1 || { echo "FAILED -"; return; }
    ts+=("$(awk '/^time:/ {print $2; exit}' "$log")")
    ks+=("$(awk '/^  kernels:/ {print $2; exit}' "$log")")
  done
  t=$(printf '%s\n' "${ts[@]}" | median)
  k=$(printf '%s\n' "${ks[@]}" | median)
  echo "$t $k"
}
for be in cuda opencl; do
  for spec in "jacobi2d_16384 100" "wave2k_512 40" "acoustic_512 500"; do
    read -r n steps <<<"$spec"
    one "$be" "$n" 2 >/dev/null  # warm: caches, first-run effects
    row="| $be | $n |"
    for s in 0 1 2 "$steps"; do
      read -r t k <<<"$(one "$be" "$n" "$s")"
      row+=" $t ($k) |"
    done
    if [ "$be" = cuda ]; then
      read -r t k <<<"$(one "$be" "$n" 0 CUDA_MODULE_LOADING=EAGER)"
      row+=" $t |"
      read -r t k <<<"$(one "$be" "$n" "$steps" CUDA_MODULE_LOADING=EAGER)"
      row+=" $t ($k) |"
    else
      row+=" - | - |"
    fi
    rows+=("$row")
  done
done
cp "$out"/setup-cuda-jacobi2d_16384-100-1.log "$out"/setup-opencl-jacobi2d_16384-100-1.log "$out/" 2>/dev/null
echo "setup cost: the report's time: s (kernels: s), median of $reps"
echo "| backend | program | --steps 0 | 1 | 2 | N | EAGER --steps 0 | EAGER N |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
