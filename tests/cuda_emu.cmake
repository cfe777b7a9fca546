# The CUDA programs run in CI, without a GPU: every example generated with --target cuda, built
# by the host compiler against a CPU emulation of the CUDA runtime (tests/cuda_emu/, no nvcc,
# no CUDA toolkit) and run on 1-4 virtual devices, in core and out of core, and the MPI CUDA
# program on 2 ranks; every saved array must equal the serial reference bit for bit.
# Label cuda-emu. tests/kernels_unseen/ holds specs of kernels written elsewhere (each with its
# serial reference.cpp, built here as reference_unseen_NAME like the examples' references).
file(GLOB unseen_references CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/kernels_unseen/*/reference.cpp)
foreach(source IN LISTS unseen_references)
  get_filename_component(dir ${source} DIRECTORY)
  get_filename_component(name ${dir} NAME)
  add_executable(reference_unseen_${name} ${source})
  target_include_directories(reference_unseen_${name} PRIVATE ${PROJECT_SOURCE_DIR}/examples
                                                               ${PROJECT_SOURCE_DIR}/runtime/include)
  target_compile_options(reference_unseen_${name} PRIVATE -O2 -ffp-contract=off -Wall -Wextra -Werror)
endforeach()

# The emulation itself against what a GPU does (3 devices of 1 MiB).
add_executable(cuda_emu_selftest ${CMAKE_CURRENT_SOURCE_DIR}/cuda_emu/selftest.cpp)
target_include_directories(cuda_emu_selftest PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cuda_emu/include
                                                     ${PROJECT_SOURCE_DIR}/runtime/include)
target_link_libraries(cuda_emu_selftest PRIVATE doctest::doctest)
target_compile_options(cuda_emu_selftest PRIVATE ${STEPGEN_WARNINGS})
foreach(order issue deferred)
  add_test(NAME "cuda-emu: the emulation's own checks, ${order} order" COMMAND cuda_emu_selftest)
  set_tests_properties("cuda-emu: the emulation's own checks, ${order} order" PROPERTIES LABELS cuda-emu
                       ENVIRONMENT "STEPGEN_CUDA_EMULATE=3;STEPGEN_CUDA_EMULATE_MEMORY=1048576;STEPGEN_CUDA_EMULATE_ORDER=${order}")
endforeach()
# devinit: initial values made on a GPU (stepgen/exec/init_cuda.hpp) equal the host's, on the emulation.
add_executable(cuda_emu_init_test ${CMAKE_CURRENT_SOURCE_DIR}/cuda_emu/init_cuda_test.cpp
                                  ${CMAKE_CURRENT_SOURCE_DIR}/runtime/main.cpp)
target_include_directories(cuda_emu_init_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cuda_emu/include)
target_link_libraries(cuda_emu_init_test PRIVATE stepgen_runtime doctest::doctest)
target_compile_options(cuda_emu_init_test PRIVATE ${STEPGEN_WARNINGS} -include stepgen_cuda_emu.hpp)
add_test(NAME "cuda-emu: initial values made on the device" COMMAND cuda_emu_init_test)
set_tests_properties("cuda-emu: initial values made on the device" PROPERTIES LABELS cuda-emu
                     ENVIRONMENT "STEPGEN_CUDA_EMULATE=2")
# A kernel that needs __shared__ memory and __syncthreads is refused at build, saying why.
add_test(NAME "cuda-emu: a kernel using __shared__ is refused at build"
         COMMAND ${CMAKE_CXX_COMPILER} -std=c++17 -fsyntax-only -x c++ -I ${CMAKE_CURRENT_SOURCE_DIR}/cuda_emu/include
                 -include stepgen_cuda_emu.hpp ${CMAKE_CURRENT_SOURCE_DIR}/cuda_emu/shared_kernel.cu)
set_tests_properties("cuda-emu: a kernel using __shared__ is refused at build" PROPERTIES LABELS cuda-emu
                     WILL_FAIL FALSE PASS_REGULAR_EXPRESSION
                     "kernels that use __shared__ memory cannot be emulated.*kernels that use __syncthreads")
# CUDA kernels in forms written for one device (a template kernel, a float4 view of a float
# grid) compile in the generated program and give the same bits on 1-4 devices and out of core.
add_test(NAME "cuda-emu: a template kernel and a float4 kernel, on 1-4 devices and out of core"
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cuda_emu/forms_test.sh $<TARGET_FILE:stepgen>
                 ${CMAKE_CURRENT_BINARY_DIR}/cuda-emu)
set_tests_properties("cuda-emu: a template kernel and a float4 kernel, on 1-4 devices and out of core"
                     PROPERTIES LABELS cuda-emu TIMEOUT 600)

if(NOT EXISTS ${PROJECT_SOURCE_DIR}/examples/CMakeLists.txt)
  return()
endif()
set(cuda_emu_test ${CMAKE_CURRENT_SOURCE_DIR}/cuda_emu/emu_test.sh)
set(cuda_emu_work ${CMAKE_CURRENT_BINARY_DIR}/cuda-emu)
# emulated_cuda_test(NAME SPEC REFERENCE_TARGET GROUPS): one ctest running emu_test.sh.
function(emulated_cuda_test name spec reference groups)
  add_test(NAME "cuda-emu: ${name}"
           COMMAND ${cuda_emu_test} $<TARGET_FILE:stepgen> ${spec} ${cuda_emu_work}
                   $<TARGET_FILE:${reference}> ${groups})
  # In the spec's folder, where its file() initial values are (tests/e2e.cmake).
  get_filename_component(spec_dir ${spec} DIRECTORY)
  set_tests_properties("cuda-emu: ${name}" PROPERTIES TIMEOUT 600 LABELS cuda-emu
                       ENVIRONMENT "CXX=${CMAKE_CXX_COMPILER}" WORKING_DIRECTORY ${spec_dir})
endfunction()

# Every example: in core on 1-4 devices (overlap on and off, peer and host-staged copies,
# min-exchange, --verify) and out of core (k 1 and 3, trapezoid on and off, band sharing on
# and off, region sharing off, pageable, a budget the model plans for), one build for both;
# and the MPI CUDA program on 2 ranks (a second build). The whole label (22 tests, builds
# included, no ccache) took 153 CPU-seconds: 5m21s with -j2 on a machine shared with 7 other
# jobs, so about 1.5 minutes on 2 free cores.
find_program(STEPGEN_MPICXX mpicxx)
find_program(STEPGEN_MPIRUN mpirun)
file(GLOB example_dirs LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/examples/*)
foreach(dir IN LISTS example_dirs)
  get_filename_component(example ${dir} NAME)
  if(NOT EXISTS ${dir}/reference.cpp OR NOT EXISTS ${dir}/${example}.xml)
    continue()
  endif()
  emulated_cuda_test(${example} ${dir}/${example}.xml reference_${example} incore,ooc)
  if(STEPGEN_MPICXX AND STEPGEN_MPIRUN)
    emulated_cuda_test("${example} mpi" ${dir}/${example}.xml reference_${example} mpi)
  endif()
endforeach()

# Issue 22's failing case: two launches per step, the second reading without a halo and
# skipping its buffer's rim (tests/kernels_unseen/wave2k). In core and out of core on the
# emulation, MPI on 2 ranks, and the exact reported setting (one device, --device-memory
# 400KiB, trapezoid on). They fail until CUDA's views keep a kernel's own guard from cutting
# cells (issue 22, point 1).
set(wave2k ${CMAKE_CURRENT_SOURCE_DIR}/kernels_unseen/wave2k/wave2k.xml)
emulated_cuda_test("wave2k (issue 22)" ${wave2k} reference_unseen_wave2k incore,ooc)
emulated_cuda_test("wave2k (issue 22) 400KiB out of core" ${wave2k} reference_unseen_wave2k repro)
if(STEPGEN_MPICXX AND STEPGEN_MPIRUN)
  emulated_cuda_test("wave2k (issue 22) mpi" ${wave2k} reference_unseen_wave2k mpi)
endif()

# The out-of-core runner over the CUDA operations (cuda::OocRunner), every part on its device and
# one MPI rank's share with its pass-boundary exchange, on 2 emulated devices in both orders.
add_executable(cuda_emu_ooc_runner_test ${CMAKE_CURRENT_SOURCE_DIR}/cuda_emu/ooc_runner_test.cpp
                                        ${CMAKE_CURRENT_SOURCE_DIR}/runtime/main.cpp)
target_include_directories(cuda_emu_ooc_runner_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cuda_emu/include)
target_link_libraries(cuda_emu_ooc_runner_test PRIVATE stepgen_runtime doctest::doctest)
target_compile_options(cuda_emu_ooc_runner_test PRIVATE ${STEPGEN_WARNINGS} -include stepgen_cuda_emu.hpp)
foreach(order issue deferred)
  add_test(NAME "cuda-emu: the out-of-core runner and an MPI rank's share, ${order} order"
           COMMAND cuda_emu_ooc_runner_test)
  set_tests_properties("cuda-emu: the out-of-core runner and an MPI rank's share, ${order} order"
                       PROPERTIES LABELS cuda-emu
                       ENVIRONMENT "STEPGEN_CUDA_EMULATE=2;STEPGEN_CUDA_EMULATE_ORDER=${order}")
endforeach()

# <local size="auto"/>: the tuner's launches over its own buffers, then the run with the chosen
# block shape (tests/tune/heat3d_auto.xml against examples/heat3d's reference).
emulated_cuda_test("heat3d local size auto" ${PROJECT_SOURCE_DIR}/tests/tune/heat3d_auto.xml
                   reference_heat3d incore)
# ... and with its block given at run time (--local, STEPGEN_LOCAL: tune.hpp).
set_property(TEST "cuda-emu: heat3d local size auto" APPEND PROPERTY ENVIRONMENT "EMU_LOCAL=heat=8x2x2")
