#!/usr/bin/env bash
# Builds a program generated with `stepgen generate SPEC --target cuda` for the CPU emulation
# of the CUDA runtime (tests/cuda_emu/include/stepgen_cuda_emu.hpp): NAME.cu, which #includes
# its kernels (kernels/*.cu), is compiled as C++ by the host compiler, no nvcc and no CUDA
# toolkit needed, with the warnings of the generated CMakeLists.txt as errors and without FMA
# contraction (as --fmad=false), so the results are bit-equal to the serial references.
# Run it with STEPGEN_CUDA_EMULATE=N (N virtual devices).
# Usage: build.sh GENERATED_DIR OUTPUT_BINARY [--mpi]
#   --mpi: a program generated with --distribution mpi (built with mpicxx).
# CXX (default g++) picks the compiler, STEPGEN_CUDA_EMU_OPT the optimisation (default -O1: the
# generated host code compiles in a third less time than at -O2, and the kernels run as fast
# here); ccache is used when present. STEPGEN_CUDA_EMU_FLAGS: more compiler and linker flags
# (a program with an .h5 output: -DSTEPGEN_HDF5 and HDF5's include folder and library).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gen=$1 binary=$2 mode=${3:-}
[ -d "$gen" ] || { echo "build.sh: no folder '$gen'" >&2; exit 2; }
# The program is the .cu file at the top of the generated folder (its kernels are in kernels/).
mapfile -t sources < <(cd "$gen" && ls ./*.cu 2>/dev/null)
[ "${#sources[@]}" -eq 1 ] || { echo "build.sh: expected one .cu file in '$gen', found ${#sources[@]}" >&2; exit 2; }
cxx=${CXX:-g++}
if [ "$mode" = --mpi ]; then
  command -v mpicxx >/dev/null || { echo "build.sh: --mpi needs mpicxx (libopenmpi-dev)" >&2; exit 2; }
  export OMPI_CXX=$cxx MPICH_CXX=$cxx
  cxx=mpicxx
elif [ -n "$mode" ]; then
  echo "build.sh: unknown option '$mode'" >&2; exit 2
fi
extra=()
read -r -a extra <<< "${STEPGEN_CUDA_EMU_FLAGS:-}"
launcher=()
command -v ccache >/dev/null && launcher=(ccache)
# -Wno-unknown-pragmas: kernels may carry nvcc's `#pragma unroll`.
flags=(-std=c++17 "${STEPGEN_CUDA_EMU_OPT:--O1}" -ffp-contract=off -Wall -Wextra -Werror -Wno-unknown-pragmas -pthread)
compile_extra=() link_extra=()
for f in "${extra[@]}"; do
  case $f in -l* | -L*) link_extra+=("$f") ;; *) compile_extra+=("$f") ;; esac
done
flags+=("${compile_extra[@]}")

# STEPGEN_CUDA_EMU_CACHE (a folder; the tests set it, tests/CMakeLists.txt): the runtime's side
# of the program is compiled once per compiler, flags and runtime, and shared (prebuilt.hpp:
# its entry points instantiated by prebuilt.cpp, its headers precompiled). A program then builds
# in about a third of the time. Only when the program's runtime/ equals this checkout's (the
# program is compiled against this checkout's headers, found first); otherwise, or without the
# variable, the whole program is compiled here.
repo_runtime=$(cd "$here/../../runtime/include" && pwd)
same_runtime() {
  [ -d "$gen/runtime/stepgen" ] || return 1
  local f
  while IFS= read -r -d '' f; do
    cmp -s "$gen/runtime/$f" "$repo_runtime/$f" || return 1
  done < <(cd "$gen/runtime" && find . -type f -print0)
}
cache=${STEPGEN_CUDA_EMU_CACHE:-}
if [ -n "$cache" ] && same_runtime; then
  variant=()
  [ "$mode" = --mpi ] && variant=(-DSTEPGEN_EMU_PREBUILT_MPI)
  key=$( {
    printf '%s\n' "$cxx" "${flags[@]}" "${variant[@]}"
    "$cxx" --version 2>&1
    [ "$mode" = --mpi ] && mpicxx --showme 2>&1
    cd "$repo_runtime" && find . -type f -print0 | sort -z | xargs -0 cat
    cat "$here/prebuilt.hpp" "$here/prebuilt.cpp" "$here/include/stepgen_cuda_emu.hpp"
  } | sha256sum | cut -c1-16)
  dir=$cache/$key
  mkdir -p "$cache"
  exec 9>"$dir.lock"
  flock 9
  if [ ! -f "$dir/done" ]; then
    rm -rf "$dir" && mkdir -p "$dir"
    cp "$here/prebuilt.hpp" "$here/prebuilt.cpp" "$dir/"
    common=("${flags[@]}" "${variant[@]}" -I "$here/include" -iquote "$repo_runtime")
    "${launcher[@]}" "$cxx" "${common[@]}" -x c++-header -c "$dir/prebuilt.hpp" -o "$dir/prebuilt.hpp.gch"
    "${launcher[@]}" "$cxx" "${common[@]}" -x c++ -c "$dir/prebuilt.cpp" -o "$dir/prebuilt.o"
    touch "$dir/done"
  fi
  flock -u 9
  # --allow-multiple-definition: the runtime's __global__ functions (not inline: one .cu file
  # on a GPU) are defined in both objects, from the same headers.
  "${launcher[@]}" "$cxx" "${flags[@]}" "${variant[@]}" -I "$here/include" -iquote "$repo_runtime" \
    -I "$gen" -I "$gen/runtime" -include "$dir/prebuilt.hpp" -x c++ "$gen/${sources[0]#./}" \
    -x none "$dir/prebuilt.o" -o "$binary" -Wl,--allow-multiple-definition "${link_extra[@]}"
  exit 0
fi
"${launcher[@]}" "$cxx" "${flags[@]}" -x c++ -I "$here/include" -I "$gen" -I "$gen/runtime" \
  -include stepgen_cuda_emu.hpp "$gen/${sources[0]#./}" -o "$binary" "${link_extra[@]}"
