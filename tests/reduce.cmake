# Exact reductions on the devices (stepgen/reduce_opencl.hpp, stepgen/reduce_cuda.hpp). The
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
