#!/usr/bin/env bash
# Generates every example for the CUDA backend and compiles it with nvcc for sm_90 (no GPU
# needed), with -Werror all-warnings and -Xcompiler=-Wall,-Wextra,-Werror (the generated
# CMakeLists.txt's defaults). Where no GPU is present the programs also run: --help, and the
# "no CUDA device found" error with exit status 1.
# Usage: compile_test.sh STEPGEN SOURCE_DIR WORK_DIR NVCC [JOBS] [EXAMPLES...]
set -uo pipefail
source "$(dirname "$0")/../prebuilt/prebuilt.sh"
# CUDA_COMPILE_BUILD_TYPE: the programs' build type (default Release; ctest: None, no -O flags:
# the test is about nvcc accepting the code, warnings as errors, and an optimized host build costs
# CI twice the time; the host code's flow-sensitive warnings are checked at -O1 by tests/cuda_emu).
build_type=${CUDA_COMPILE_BUILD_TYPE:-Release}
stepgen=$1 src=$2 work=$3 nvcc=$4 jobs=${5:-2}
shift 5 2>/dev/null || shift $#
examples=("$@")
if [ ${#examples[@]} -eq 0 ]; then
  for spec in "$src"/examples/*/*.xml; do examples+=("$(basename "$spec" .xml)"); done
fi
mkdir -p "$work"
gpu=no
nvidia-smi -L >/dev/null 2>&1 && gpu=yes

one() {  # one EXAMPLE: generate, compare with YAML, format, configure, build, run
  local ex=$1 out="$work/$1" log="$work/$1.log"
  rm -rf "$out" "$out-yaml"
  {
    "$stepgen" generate "$src/examples/$ex/$ex.xml" --target cuda -o "$out" >/dev/null || return 1
    "$stepgen" generate "$src/examples/$ex/$ex.yaml" --target cuda -o "$out-yaml" >/dev/null || return 1
    # The same tree but for the spec's file name.
    grep -rl "$ex\.yaml" "$out-yaml" | xargs -r sed -i "s/$ex\.yaml/$ex.xml/g"
    # ... and the header's hash, which covers the spec's bytes.
    grep -rlE "templates hash [0-9a-f]{16}" "$out" "$out-yaml" | xargs -r sed -i -E "s/templates hash [0-9a-f]{16}/templates hash H/"
    diff -r -x manifest "$out" "$out-yaml" || { echo "the XML and YAML specs give different trees"; return 1; }
    if command -v clang-format >/dev/null; then
      (cd "$out" && clang-format --style=file --dry-run --Werror "$ex.cu") || return 1
    fi
    # ctest (build type None): against the runtime's shared build (tests/prebuilt/prebuilt.sh).
    prebuilt_cuda_configure "$out" "$build_type" "$nvcc" || return 1
    cmake --build "$out/build" || return 1
    "$out/build/$ex" --help | grep -q "CUDA backend" || { echo "--help lacks the CUDA note"; return 1; }
    if [ $gpu = no ]; then
      "$out/build/$ex" > "$out/run.txt" 2>&1
      local status=$?
      if [ $status -ne 1 ] || ! grep -q "error: no CUDA device found" "$out/run.txt"; then
        echo "without a GPU: exit $status, expected 1 and 'no CUDA device found':"; cat "$out/run.txt"; return 1
      fi
    fi
  } > "$log" 2>&1
}

start=$SECONDS
pids=() names=()
status=0
for ex in "${examples[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  one "$ex" &
  pids+=($!) names+=("$ex")
done
for i in "${!pids[@]}"; do
  if wait "${pids[$i]}"; then
    echo "ok: ${names[$i]}: generated for cuda, built with nvcc (sm_90, -Werror all-warnings)"
  else
    echo "FAIL: ${names[$i]}:"; sed 's/^/  /' "$work/${names[$i]}.log"; status=1
  fi
done
echo "${#names[@]} example(s) in $((SECONDS - start)) s (GPU present: $gpu)"
exit $status
