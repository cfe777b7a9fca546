# Boundaries (<boundary>): periodic, mirror, copy and value(v) frames past the grid's edge, in
# core on 1-4 PoCL devices and out of core with 1-4 steps per pass against a serial reference
# with the frames' mapping (tests/boundary/kinds_test.sh; also a CUDA program on the CPU
# emulation and, where mpirun is found, an MPI program on 2 ranks, out of core). The periodic worked example, examples/grayscott, runs in the
# e2e, MPI and CUDA emulation suites with the other examples.
find_package(OpenCL QUIET)
add_executable(boundary_reference ${CMAKE_CURRENT_SOURCE_DIR}/boundary/reference.cpp)
target_include_directories(boundary_reference PRIVATE ${PROJECT_SOURCE_DIR}/runtime/include)
target_compile_options(boundary_reference PRIVATE -O2 -ffp-contract=off -Wall -Wextra -Werror)
if(OpenCL_FOUND)
  add_test(NAME "boundary: opencl mirror, copy, value and periodic frames against a reference"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/boundary/kinds_test.sh $<TARGET_FILE:stepgen>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/boundary
                   $<TARGET_FILE:boundary_reference>)
  set_tests_properties("boundary: opencl mirror, copy, value and periodic frames against a reference"
                       PROPERTIES TIMEOUT 600 LABELS e2e ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2")
endif()
# Arrays whose kinds differ along one dimension (a periodic array beside mirror, copy and
# value(v) ones, written and read-only; 2D and 3D), out of core with 1-4 steps per pass on
# OpenCL (1 and 2 devices; MPI ranks where mpirun is found) and on the CUDA emulation, bit for
# bit against the run in core (tests/boundary/mixed_test.sh).
if(OpenCL_FOUND)
  add_test(NAME "boundary: mixed kinds along a dimension out of core, opencl and cuda emulation"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/boundary/mixed_test.sh $<TARGET_FILE:stepgen>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/boundary_mixed)
  set_tests_properties("boundary: mixed kinds along a dimension out of core, opencl and cuda emulation"
                       PROPERTIES TIMEOUT 600 LABELS e2e ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2")
endif()
