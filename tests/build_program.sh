# Sourced by the tests that build a generated OpenCL program with its own CMakeLists.txt.
#   build_program GEN_DIR [CMAKE_ARGS...]: configures GEN_DIR/build and builds it (-j 2).
# The host code builds at -O0: 10 s against 23 s at Release's -O3 for one program on CI's
# cores, and these tests run their kernels on PoCL, which compiles them itself, so the host
# code's optimisation changes no result and little time. STEPGEN_TEST_CXX_OPT names other
# flags: tests/e2e.cmake and tests/mpi.cmake give a few examples "-O3 -DNDEBUG" (Release's), so
# the warnings only the optimiser finds (maybe-uninitialized) stay checked with -Werror. The
# CUDA programs on the emulation build with tests/cuda_emu/build.sh (their kernels run as host
# code there, at -O1).
#
# With STEPGEN_PREBUILT_CACHE (every ctest), the program compiles against one shared build of the
# runtime's side (tests/prebuilt/prebuilt.sh: 23 s -> 6 s a program, configures included), still
# with its own CMakeLists.txt and flags.
source "$(dirname "${BASH_SOURCE[0]}")/prebuilt/prebuilt.sh"
build_program() {
  local gen=$1
  shift
  local opt=${STEPGEN_TEST_CXX_OPT:--O0} status=0 compiler=()
  [ -n "${STEPGEN_TEST_CXX:-}" ] && compiler=("-DCMAKE_CXX_COMPILER=$STEPGEN_TEST_CXX")
  prebuilt_cmake "$gen" build None CXX opencl "" "-DCMAKE_CXX_FLAGS=$opt" "${compiler[@]}" "$@" || status=$?
  if [ $status -eq 3 ]; then  # not for this program: the whole program
    status=0
    cmake -S "$gen" -B "$gen/build" -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_FLAGS=$opt" "${compiler[@]}" "$@" >/dev/null || status=1
  fi
  [ $status -eq 0 ] && cmake --build "$gen/build" -j 2 >/dev/null
}
