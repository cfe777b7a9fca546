# CUDA backend, compile only (CI has no GPU): every example generated with --target cuda (from
# XML; the YAML spec must give the same tree), clang-formatted, configured for sm_90 (no GPU
# needed) and built with nvcc, host and device warnings as errors; then the program's --help and
# its "no CUDA device" error are checked where no GPU is present. One ctest, 2 builds at a time.
if(CMAKE_CUDA_COMPILER)
  set(STEPGEN_NVCC ${CMAKE_CUDA_COMPILER})
else()
  find_program(STEPGEN_NVCC nvcc HINTS ENV CUDA_PATH PATH_SUFFIXES bin PATHS /usr/local/cuda/bin)
endif()
if(STEPGEN_NVCC AND EXISTS ${PROJECT_SOURCE_DIR}/examples/CMakeLists.txt)
  add_test(NAME "cuda-compile: every example"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cuda/compile_test.sh $<TARGET_FILE:stepgen>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cuda-compile ${STEPGEN_NVCC})
  # The nvcc builds take both cores of CI for minutes: the nvcc tests never run together.
  set_tests_properties("cuda-compile: every example" PROPERTIES TIMEOUT 900 LABELS cuda-compile RESOURCE_LOCK nvcc
                                                                ENVIRONMENT "CUDA_COMPILE_BUILD_TYPE=None")
endif()

# The MPI + CUDA programs (--target cuda --distribution mpi), compile only: an example's MPI file
# differs from its one-process file (built above) in four lines (the MPI headers and main's call
# and main's distribution, rt::Ranks), so three examples cover the MPI engine's instantiations
# under nvcc: jacobi2d (2D, and run with mpirun), grayscott (boundaries), seismic (3D, sources,
# receivers, rotation). (Six before: tables, twostage and heat3d added 87 s of CI and nothing
# the one-process builds above and the emulated MPI programs, tests/cuda_emu, do not build.)
# Each built with its CMakeLists (build type None, as above: one shared build of the runtime's
# side, tests/prebuilt) by nvcc for sm_90 with MPI, run where no GPU is present (--help, the
# abort of every rank without a GPU). Labels cuda-compile (all nvcc builds) and
# mpi-cuda, not mpi (the OpenCL MPI runs on PoCL).
find_package(MPI QUIET COMPONENTS CXX)
if(STEPGEN_NVCC AND MPI_CXX_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/examples/CMakeLists.txt)
  add_test(NAME "cuda-compile: every example, MPI"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cuda/mpi_compile_test.sh $<TARGET_FILE:stepgen>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cuda-mpi-compile ${STEPGEN_NVCC}
                   2
                   jacobi2d grayscott seismic)
  set_tests_properties("cuda-compile: every example, MPI" PROPERTIES TIMEOUT 900 LABELS "cuda-compile;mpi-cuda"
                                                                      RESOURCE_LOCK nvcc
                                                                      ENVIRONMENT "CUDA_COMPILE_BUILD_TYPE=None")
elseif(STEPGEN_NVCC)
  message(STATUS "MPI + CUDA compile test skipped: needs MPI (libopenmpi-dev)")
endif()
