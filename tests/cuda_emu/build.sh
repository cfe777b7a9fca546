#!/usr/bin/env bash
# Builds a program generated with `stepgen generate SPEC --target cuda` for the CPU emulation
# of the CUDA runtime (tests/cuda_emu/include/stepgen_cuda_emu.hpp): NAME.cu, which #includes
# its kernels (kernels/*.cu), is compiled as C++ by the host compiler, no nvcc and no CUDA
# toolkit needed, with the warnings of the generated CMakeLists.txt as errors and without FMA
# contraction (as --fmad=false), so the results are bit-equal to the serial references.
# Run it with STEPGEN_CUDA_EMULATE=N (N virtual devices).
# Usage: build.sh GENERATED_DIR OUTPUT_BINARY [--mpi]
#   --mpi: a program generated with --distribution mpi (built with mpicxx).
# STEPGEN_TEST_CXX (ctest: clang++ where installed), else CXX (default g++), picks the
# compiler, STEPGEN_CUDA_EMU_OPT the optimisation (default -O1: the generated host code
# compiles in a third less time than at -O2, and the kernels run as fast here); ccache is used
# when present. STEPGEN_CUDA_EMU_FLAGS: more compiler and linker flags
# (a program with an .h5 output: -DSTEPGEN_HDF5 and HDF5's include folder and library).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gen=$1 binary=$2 mode=${3:-}
[ -d "$gen" ] || { echo "build.sh: no folder '$gen'" >&2; exit 2; }
# The program is the .cu file at the top of the generated folder (its kernels are in kernels/).
mapfile -t sources < <(cd "$gen" && ls ./*.cu 2>/dev/null)
[ "${#sources[@]}" -eq 1 ] || { echo "build.sh: expected one .cu file in '$gen', found ${#sources[@]}" >&2; exit 2; }
cxx=${STEPGEN_TEST_CXX:-${CXX:-g++}}
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

# STEPGEN_PREBUILT_CACHE (every ctest): the program compiles against one shared build of the
# runtime's side (tests/prebuilt/prebuilt.sh: 28 s -> 7-9 s a program at -O1).
source "$here/../prebuilt/prebuilt.sh"
if prebuilt_same_runtime "$gen"; then
  variant=()
  [ "$mode" = --mpi ] && variant=(-DSTEPGEN_PREBUILT_MPI)
  args=("$cxx" "${flags[@]}" "${variant[@]}" -I "$here/include")
  dir=$(prebuilt_build cuda-emu "${args[@]}")
  # shellcheck disable=SC2046  # prebuilt_flags: words
  "${launcher[@]}" "${args[@]}" $(prebuilt_flags cuda-emu "$dir") -I "$gen" -I "$gen/runtime" \
    -x c++ "$gen/${sources[0]#./}" -x none "$dir/prebuilt.o" -o "$binary" "${link_extra[@]}"
  exit 0
fi
"${launcher[@]}" "$cxx" "${flags[@]}" -x c++ -I "$here/include" -I "$gen" -I "$gen/runtime" \
  -include stepgen_cuda_emu.hpp "$gen/${sources[0]#./}" -o "$binary" "${link_extra[@]}"
