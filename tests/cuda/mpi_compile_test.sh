#!/usr/bin/env bash
# MPI + CUDA programs, compile only (CI has no GPU): examples generated with --target cuda
# --distribution mpi (from XML; the YAML spec must give the same tree), clang-formatted, and
# built with their generated CMakeLists.txt (find_package(MPI), CUDAToolkit) by nvcc for one
# architecture (sm_90), host and device warnings as errors. Where no GPU is present the programs
# also run: --help (MPI singleton), and for jacobi2d `mpirun -np 2` ends with each rank's "no
# CUDA device found" and MPI_Abort (no hang), and an option error (a bad --out-of-core value) is
# printed once.
# Usage: mpi_compile_test.sh STEPGEN SOURCE_DIR WORK_DIR NVCC [JOBS] [EXAMPLES...]
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
mpirun_flags=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && mpirun_flags+=(--allow-run-as-root)
export OMPI_MCA_mpi_yield_when_idle=1

one() {  # one EXAMPLE: generate, compare with YAML, format, build, run
  local ex=$1 out="$work/$1" log="$work/$1.log" t0=$SECONDS
  rm -rf "$out" "$out-yaml"
  {
    "$stepgen" generate "$src/examples/$ex/$ex.xml" --target cuda --distribution mpi -o "$out" >/dev/null || return 1
    "$stepgen" generate "$src/examples/$ex/$ex.yaml" --target cuda --distribution mpi -o "$out-yaml" >/dev/null || return 1
    # The same tree but for the spec's file name and the header's hash, which covers the spec's bytes.
    grep -rl "$ex\.yaml" "$out-yaml" | xargs -r sed -i "s/$ex\.yaml/$ex.xml/g"
    grep -rlE "templates hash [0-9a-f]{16}" "$out" "$out-yaml" | xargs -r sed -i -E "s/templates hash [0-9a-f]{16}/templates hash H/"
    diff -r -x manifest "$out" "$out-yaml" || { echo "the XML and YAML specs give different trees"; return 1; }
    grep -q "rt::Ranks<Backend" "$out/$ex.cu" || { echo "$ex.cu is not the MPI program"; return 1; }
    if command -v clang-format >/dev/null; then
      (cd "$out" && clang-format --style=file --dry-run --Werror "$ex.cu") || return 1
    fi
    # ctest (build type None): against the runtime's shared build (tests/prebuilt/prebuilt.sh).
    prebuilt_cuda_configure "$out" "$build_type" "$nvcc" || return 1
    cmake --build "$out/build" || return 1
    local prog=$out/build/$ex
    timeout 60 "$prog" --help > "$out/help.txt" 2>&1 || { cat "$out/help.txt"; return 1; }
    grep -q "CUDA backend" "$out/help.txt" && grep -q "STEPGEN_MPI_CUDA_AWARE" "$out/help.txt" ||
      { echo "--help lacks the CUDA or MPI notes"; cat "$out/help.txt"; return 1; }
    if [ $gpu = no ] && [ "$ex" = jacobi2d ] && command -v mpirun >/dev/null; then
      timeout 120 mpirun "${mpirun_flags[@]}" -np 2 "$prog" > "$out/run.txt" 2>&1
      local status=$?
      # The first rank to abort may end the other before it prints: one message is enough.
      if [ $status -eq 0 ] || [ $status -eq 124 ] ||
         ! grep -q "error: rank [01] of 2 on .*: no CUDA device found" "$out/run.txt"; then
        echo "without a GPU, 2 ranks: exit $status, expected a rank's 'no CUDA device found' and MPI_Abort:"
        cat "$out/run.txt"; return 1
      fi
      # The out-of-core flags are the program's (out of core per rank): a bad value is a usage
      # error, printed once by rank 0, and every rank exits with status 2.
      timeout 120 mpirun "${mpirun_flags[@]}" -np 2 "$prog" --out-of-core sometimes > "$out/ooc.txt" 2>&1
      status=$?
      if [ $status -ne 2 ] || [ "$(grep -c "out-of-core expects on, off or auto, got 'sometimes'" "$out/ooc.txt")" -ne 1 ]; then
        echo "--out-of-core sometimes, 2 ranks: exit $status, expected 2 and the error printed once:"
        cat "$out/ooc.txt"; return 1
      fi
    fi
    echo "built in $((SECONDS - t0)) s"
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
    echo "ok: ${names[$i]}: generated for cuda + MPI, built with nvcc (sm_90, -Werror all-warnings), $(tail -1 "$work/${names[$i]}.log")"
  else
    echo "FAIL: ${names[$i]}:"; sed 's/^/  /' "$work/${names[$i]}.log"; status=1
  fi
done
echo "${#names[@]} MPI example(s) in $((SECONDS - start)) s (GPU present: $gpu)"
exit $status
