# The GPU benchmarks' pieces that run without a GPU (`bench/run.sh local`): the bandwidth-
# efficient Jacobi kernel emulated on the CPU, the OpenMP acoustic baseline against its serial
# reference, and (where nvcc is present) the hand-written CUDA baselines compiled for sm_90.
add_test(NAME "bench: jacobi2d_fast CUDA kernel emulated on the CPU"
         COMMAND ${PROJECT_SOURCE_DIR}/bench/run.sh local emulate ${CMAKE_CURRENT_BINARY_DIR}/bench-emulate)
set_tests_properties("bench: jacobi2d_fast CUDA kernel emulated on the CPU" PROPERTIES TIMEOUT 300 LABELS bench)
if(TARGET reference_acoustic)
  add_test(NAME "bench: acoustic_omp equals the serial reference"
           COMMAND ${PROJECT_SOURCE_DIR}/bench/run.sh local acoustic-omp
                   ${CMAKE_CURRENT_BINARY_DIR}/bench-omp $<TARGET_FILE:reference_acoustic>)
  set_tests_properties("bench: acoustic_omp equals the serial reference" PROPERTIES TIMEOUT 300 LABELS bench)
endif()
if(CMAKE_CUDA_COMPILER)
  set(STEPGEN_BENCH_NVCC ${CMAKE_CUDA_COMPILER})
else()
  find_program(STEPGEN_BENCH_NVCC nvcc HINTS ENV CUDA_PATH PATH_SUFFIXES bin PATHS /usr/local/cuda/bin)
endif()
if(STEPGEN_BENCH_NVCC)
  add_test(NAME "bench: hand-written CUDA baselines compile (nvcc, sm_90)"
           COMMAND ${PROJECT_SOURCE_DIR}/bench/run.sh local nvcc ${CMAKE_CURRENT_BINARY_DIR}/bench-nvcc
                   ${STEPGEN_BENCH_NVCC})
  set_tests_properties("bench: hand-written CUDA baselines compile (nvcc, sm_90)" PROPERTIES TIMEOUT 900 LABELS bench)
endif()
# The tables of the time-to-solution phases (oocauto, localsweep, sim's output cadence) from
# stand-in programs printing the reports' lines: the bound, the ratios, the best shape, the rates.
add_test(NAME "bench: oocauto, localsweep and output cadence tables"
         COMMAND ${PROJECT_SOURCE_DIR}/bench/run.sh local tables ${CMAKE_CURRENT_BINARY_DIR}/bench-tables)
set_tests_properties("bench: oocauto, localsweep and output cadence tables" PROPERTIES TIMEOUT 120 LABELS bench)
