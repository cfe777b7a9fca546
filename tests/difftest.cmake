# The differential tester (tests/difftest/, scripts/difftest.sh): a fixed set of random stencil
# programs, each generated, built and run in 6 modes (1-4 PoCL devices, split strategies, out of
# core with forced chunks and k, trapezoid, band and region sharing, overlap, pinned; MPI on 2-3
# ranks where MPI is installed), every saved array equal to the one-device in-core run bit for
# bit. The seeds cover 1D-3D, swap and rotate, deep halos, rims wider than halos, global
# boundaries, accumulators, float/double/int, a step-dependent writer, a line recurrence, <boundary>
# frames. Then every saved regression program
# (tests/difftest/regressions/*), each a failure the tester once found.
find_package(OpenCL QUIET)
find_package(Python3 QUIET COMPONENTS Interpreter)
find_program(STEPGEN_MPIRUN_DT mpirun)
if(OpenCL_FOUND AND Python3_FOUND)
  set(difftest_mpi 0.3)
  if(NOT STEPGEN_MPIRUN_DT)
    set(difftest_mpi 0)
  endif()
  # The programs are built without a configure each (DIFFTEST_BUILD=direct, the commands of one
  # configure of the same CMakeLists); seed 27 (OpenCL and MPI programs) is also built with its
  # CMakeLists and must give the same binaries (both), and the regressions are built direct too
  # (their 6 OpenCL and 4 OpenCL MPI programs configured once for each kind, not each: about
  # 30 s of CI, FindMPI's checks 6 s a configure).
  # Seed 55 has a step-dependent writer (tests/difftest/features.py), 333 a line recurrence
  # along x (whole-line halos) and periodic frames along y.
  foreach(seed 20 27 53 55 60 333)
    set(difftest_build direct)
    if(seed EQUAL 27)
      set(difftest_build both)
    endif()
    add_test(NAME "difftest: seed ${seed}"
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/difftest/difftest.sh 1 ${seed})
    set_tests_properties("difftest: seed ${seed}" PROPERTIES TIMEOUT 300 LABELS difftest
      ENVIRONMENT "STEPGEN=$<TARGET_FILE:stepgen>;DIFFTEST_WORK=${CMAKE_CURRENT_BINARY_DIR}/difftest/seed${seed};DIFFTEST_MODES=6;DIFFTEST_MPI=${difftest_mpi};DIFFTEST_BUILD=${difftest_build};POCL_MAX_PTHREAD_COUNT=1")
  endforeach()
  file(GLOB difftest_regressions LIST_DIRECTORIES true
       ${CMAKE_CURRENT_SOURCE_DIR}/difftest/regressions/*)
  list(FILTER difftest_regressions EXCLUDE REGEX "README")
  if(difftest_regressions)
    # Every mode of each program on PoCL (its OpenCL programs built with their CMakeLists), and
    # the same programs' CUDA programs on the CPU emulation of the CUDA runtime (tests/cuda_emu),
    # every mode against the OpenCL reference: CUDA MPI included (the emulation's virtual
    # devices, one per rank). One test: a separate OpenCL-only run built the same OpenCL
    # programs a second time (87 s of CI). cuda_mpi_overlap_widened differed here (and on the
    # H100) before the probe told a kernel's own rim from the grid's boundary. The emulated
    # CUDA programs build at the emulation's default -O1, as the cuda-emu tests' do: they share
    # its builds of the runtime's side (tests/prebuilt; at -O0 they needed two of their own,
    # 80 s of CI, for 1-2 s less a program).
    add_test(NAME "difftest: regressions"
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/difftest/difftest.sh --dir ${difftest_regressions})
    # Timeout: 510 s in a clean fresh-clone run on 2 cores (2026-11-28, a day when every label
    # took about twice the earlier CI run's time); 900 s was hit once with other builds beside it.
    set_tests_properties("difftest: regressions" PROPERTIES TIMEOUT 1500
      LABELS "difftest;cuda-emu"
      ENVIRONMENT "STEPGEN=$<TARGET_FILE:stepgen>;DIFFTEST_WORK=${CMAKE_CURRENT_BINARY_DIR}/difftest/regressions;DIFFTEST_BUILD=direct;DIFFTEST_CUDA=1;DIFFTEST_CUDA_EMU=1;DIFFTEST_MPI=${difftest_mpi};POCL_MAX_PTHREAD_COUNT=1;CXX=${CMAKE_CXX_COMPILER}")
    # The CUDA trees (and CUDA MPI trees where they have MPI modes) of the regressions that were
    # nvcc build failures (cuda_no_exchange, cuda_deep_halo, cuda_long_array: README.md) built
    # with nvcc for sm_90, warnings as errors: CI has no GPU, so DIFFTEST_CUDA=compile runs
    # nothing. (The others' host code runs under the emulation above; bench/phases/difftest.sh
    # builds and runs every regression with nvcc on the GPU.) Host code unoptimized (no -O flag,
    # CMAKE_CUDA_FLAGS_RELEASE empty): only the compile is checked here, at half the CI time, and
    # with the flags of tests/cuda.cmake's builds (build type None), so that their programs share
    # one build of the runtime's side (tests/prebuilt; -O0 made two more of them, 80 s of CI).
    set(difftest_nvcc_regressions)
    foreach(r cuda_no_exchange cuda_deep_halo cuda_long_array)
      if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/difftest/regressions/${r})
        list(APPEND difftest_nvcc_regressions ${CMAKE_CURRENT_SOURCE_DIR}/difftest/regressions/${r})
      endif()
    endforeach()
    find_program(STEPGEN_NVCC_DT nvcc HINTS ENV CUDA_PATH PATH_SUFFIXES bin PATHS /usr/local/cuda/bin)
    if(STEPGEN_NVCC_DT AND difftest_nvcc_regressions)
      add_test(NAME "difftest: regressions, CUDA compile"
               COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/difftest/difftest.sh --dir ${difftest_nvcc_regressions})
      set_tests_properties("difftest: regressions, CUDA compile" PROPERTIES TIMEOUT 1200
        LABELS "difftest;cuda-compile" RESOURCE_LOCK nvcc
        ENVIRONMENT "STEPGEN=$<TARGET_FILE:stepgen>;DIFFTEST_WORK=${CMAKE_CURRENT_BINARY_DIR}/difftest/regressions-cuda;DIFFTEST_CUDA=compile;DIFFTEST_CMAKE_ARGS=-DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS_RELEASE= -DCMAKE_CUDA_COMPILER=${STEPGEN_NVCC_DT}")
    endif()
  endif()
endif()
