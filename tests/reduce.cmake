# Exact reductions on the devices (stepgen/exec/reduce_opencl.hpp, stepgen/exec/reduce_cuda.hpp). The
# OpenCL test is part of opencl_runtime_tests (tests/opencl_runtime/reduce_opencl_test.cpp, on
# PoCL). Here: the CUDA reducer on the CPU emulation (2 devices, both stream orders; the cases
# of tests/reduce/device_cases.hpp), and the CUDA kernels compiled by nvcc for sm_90 with
# warnings as errors (bench/reduce/reduce_cuda.cu instantiates every type and op), since CI has
# no GPU.
add_executable(cuda_emu_reduce_test ${CMAKE_CURRENT_SOURCE_DIR}/cuda_emu/reduce_cuda_test.cpp
                                    ${CMAKE_CURRENT_SOURCE_DIR}/runtime/main.cpp)
target_include_directories(cuda_emu_reduce_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cuda_emu/include)
target_link_libraries(cuda_emu_reduce_test PRIVATE stepgen_runtime doctest::doctest)
target_compile_options(cuda_emu_reduce_test PRIVATE ${STEPGEN_WARNINGS} -ffp-contract=off
                                                    -include stepgen_cuda_emu.hpp)
foreach(order issue deferred)
  add_test(NAME "cuda-emu: exact device reductions, ${order} order" COMMAND cuda_emu_reduce_test)
  set_tests_properties("cuda-emu: exact device reductions, ${order} order" PROPERTIES LABELS cuda-emu
                       ENVIRONMENT "STEPGEN_CUDA_EMULATE=2;STEPGEN_CUDA_EMULATE_ORDER=${order}")
endforeach()

# The CUDA kernels under nvcc (CI has no GPU): the benchmark instantiates every type and op.
if(CMAKE_CUDA_COMPILER)
  set(STEPGEN_REDUCE_NVCC ${CMAKE_CUDA_COMPILER})
else()
  find_program(STEPGEN_REDUCE_NVCC nvcc HINTS ENV CUDA_PATH PATH_SUFFIXES bin PATHS /usr/local/cuda/bin)
endif()
if(STEPGEN_REDUCE_NVCC)
  add_test(NAME "reduce: the CUDA reduction kernels compile (nvcc, sm_90)"
           COMMAND ${STEPGEN_REDUCE_NVCC} -O3 -std=c++17 -arch=sm_90 --fmad=false
                   -I ${PROJECT_SOURCE_DIR}/runtime/include -Xcompiler=-Wall,-Wextra,-Werror
                   -Werror all-warnings ${PROJECT_SOURCE_DIR}/bench/reduce/reduce_cuda.cu
                   -o ${CMAKE_CURRENT_BINARY_DIR}/reduce_cuda_sm90)
  set_tests_properties("reduce: the CUDA reduction kernels compile (nvcc, sm_90)" PROPERTIES
                       TIMEOUT 300 LABELS "cuda-compile;reduce" RESOURCE_LOCK nvcc)
endif()

# The OpenCL benchmark, small, on PoCL: it runs, and its checks against the host pass.
find_package(OpenCL QUIET)
if(OpenCL_FOUND)
  add_executable(reduce_opencl_bench ${PROJECT_SOURCE_DIR}/bench/reduce/reduce_opencl.cpp)
  target_link_libraries(reduce_opencl_bench PRIVATE stepgen_runtime)  # the headers and kernels
  target_link_libraries(reduce_opencl_bench PRIVATE OpenCL::OpenCL)
  target_compile_options(reduce_opencl_bench PRIVATE ${STEPGEN_WARNINGS})
  add_test(NAME "reduce: the OpenCL benchmark on PoCL (small)" COMMAND reduce_opencl_bench 300 200 24 1)
  set_tests_properties("reduce: the OpenCL benchmark on PoCL (small)" PROPERTIES TIMEOUT 120 LABELS reduce
                       ENVIRONMENT "DEVICE_TYPE=cpu;POCL_MAX_PTHREAD_COUNT=2"
                       PASS_REGULAR_EXPRESSION "check double sum against the host: same bits"
                       FAIL_REGULAR_EXPRESSION "DIFFERENT")
endif()

# Reductions, until and the monitor end to end (tests/reduce/reduce_test.sh): every op against
# Python's math.fsum and exact min/max, the same bits on 1-4 devices, out of core and MPI, a
# Jacobi stopped by until at the same step everywhere, the monitor's CSV. One test per mode.
find_package(OpenCL QUIET)
find_package(Python3 QUIET COMPONENTS Interpreter)
find_program(STEPGEN_MPIRUN mpirun)
find_program(STEPGEN_MPICXX mpicxx)
find_package(MPI QUIET COMPONENTS CXX)
if(NOT Python3_Interpreter_FOUND)
  message(STATUS "reduce tests skipped: needs python3")
  return()
endif()
set(reduce_modes cuda-emu)
if(STEPGEN_MPICXX AND STEPGEN_MPIRUN)
  list(APPEND reduce_modes cuda-emu-mpi)
endif()
if(OpenCL_FOUND)
  list(APPEND reduce_modes opencl)
  if(MPI_CXX_FOUND AND STEPGEN_MPIRUN)
    list(APPEND reduce_modes mpi)
  endif()
endif()
foreach(mode IN LISTS reduce_modes)
  add_test(NAME "reduce: ${mode}"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/reduce/reduce_test.sh $<TARGET_FILE:stepgen>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/reduce ${mode})
  set_tests_properties("reduce: ${mode}" PROPERTIES TIMEOUT 600 LABELS reduce
                       ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2;CXX=${CMAKE_CXX_COMPILER}")
endforeach()
