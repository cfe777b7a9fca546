# Sourced by the tests that build a generated OpenCL program with its own CMakeLists.txt.
#   build_program GEN_DIR [CMAKE_ARGS...]: configures GEN_DIR/build and builds it (-j 2).
# The host code builds at -O0: 10 s against 23 s at Release's -O3 for one program on CI's
# cores, and these tests run their kernels on PoCL, which compiles them itself, so the host
# code's optimisation changes no result and little time. STEPGEN_TEST_CXX_OPT names other
# flags: tests/e2e.cmake and tests/mpi.cmake give a few examples "-O3 -DNDEBUG" (Release's), so
# the warnings only the optimiser finds (maybe-uninitialized) stay checked with -Werror. The
# CUDA programs on the emulation build with tests/cuda_emu/build.sh (their kernels run as host
# code there, at -O1).
build_program() {
  local gen=$1
  shift
  cmake -S "$gen" -B "$gen/build" -DCMAKE_BUILD_TYPE=None \
    "-DCMAKE_CXX_FLAGS=${STEPGEN_TEST_CXX_OPT:--O0}" "$@" >/dev/null &&
    cmake --build "$gen/build" -j 2 >/dev/null
}
