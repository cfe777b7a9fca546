# The I/O runtime (runtime/include/stepgen/exec/io/): checkpoints (standard library only: always),
# snapshots (HDF5 + XDMF: only when HDF5 is found; serial and parallel HDF5 are never linked
# into one executable).
add_executable(io_checkpoint_tests ${CMAKE_CURRENT_SOURCE_DIR}/io/checkpoint_test.cpp
                                   ${CMAKE_CURRENT_SOURCE_DIR}/io/main.cpp)
target_link_libraries(io_checkpoint_tests PRIVATE stepgen_runtime doctest::doctest)
target_compile_options(io_checkpoint_tests PRIVATE ${STEPGEN_WARNINGS})
doctest_discover_tests(io_checkpoint_tests TEST_PREFIX "io: checkpoint: " PROPERTIES LABELS io)

add_executable(io_checkpoint_loop ${CMAKE_CURRENT_SOURCE_DIR}/io/checkpoint_loop.cpp)
target_link_libraries(io_checkpoint_loop PRIVATE stepgen_runtime)
target_compile_options(io_checkpoint_loop PRIVATE ${STEPGEN_WARNINGS})
add_test(NAME "io: kill -9 during a checkpoint leaves the previous one intact"
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/io/checkpoint_kill.sh $<TARGET_FILE:io_checkpoint_loop>
                 ${CMAKE_CURRENT_BINARY_DIR}/io-kill)
set_tests_properties("io: kill -9 during a checkpoint leaves the previous one intact"
                     PROPERTIES LABELS io TIMEOUT 120)

# A checkpoint written by MPI ranks (MPI only; no HDF5).
find_package(MPI QUIET COMPONENTS CXX)
find_program(STEPGEN_MPIRUN mpirun)
if(MPI_CXX_FOUND AND STEPGEN_MPIRUN)
  add_executable(io_checkpoint_mpi ${CMAKE_CURRENT_SOURCE_DIR}/io/checkpoint_mpi.cpp)
  target_link_libraries(io_checkpoint_mpi PRIVATE stepgen_runtime MPI::MPI_CXX)
  target_compile_options(io_checkpoint_mpi PRIVATE ${STEPGEN_WARNINGS})
  foreach(ranks 2 3)
    set(name "io: checkpoint written by ${ranks} MPI ranks equals the one-process file")
    add_test(NAME ${name}
             COMMAND bash -c "rm -rf \"$1\" && mkdir -p \"$1\" && source \"$2/mpirun.sh\" && stepgen_mpirun $3 \"$0\" \"$1\""
                     $<TARGET_FILE:io_checkpoint_mpi> ${CMAKE_CURRENT_BINARY_DIR}/io-checkpoint-mpi-${ranks}
                     ${CMAKE_CURRENT_SOURCE_DIR}/mpi ${ranks})
    set_tests_properties(${name} PROPERTIES LABELS "io;mpi" TIMEOUT 180)
  endforeach()
endif()

# Snapshots: serial HDF5 through CMake's FindHDF5 (Debian's h5cc is the serial one; FindHDF5
# compiles a C probe, hence C enabled here, where a C compiler exists).
include(CheckLanguage)
check_language(C)
if(CMAKE_C_COMPILER)
  enable_language(C)
  set(HDF5_PREFER_PARALLEL FALSE)
  find_package(HDF5 QUIET COMPONENTS C)
endif()
if(HDF5_FOUND AND NOT HDF5_IS_PARALLEL)
  add_executable(io_snapshot_tests ${CMAKE_CURRENT_SOURCE_DIR}/io/snapshot_test.cpp
                                   ${CMAKE_CURRENT_SOURCE_DIR}/io/main.cpp)
  add_executable(io_snapshot_write ${CMAKE_CURRENT_SOURCE_DIR}/io/snapshot_write.cpp)
  foreach(t io_snapshot_tests io_snapshot_write)
    target_include_directories(${t} PRIVATE ${HDF5_INCLUDE_DIRS})
    target_compile_definitions(${t} PRIVATE ${HDF5_DEFINITIONS})
    target_link_libraries(${t} PRIVATE stepgen_runtime ${HDF5_C_LIBRARIES})
    target_compile_options(${t} PRIVATE ${STEPGEN_WARNINGS})
  endforeach()
  target_link_libraries(io_snapshot_tests PRIVATE doctest::doctest)
  doctest_discover_tests(io_snapshot_tests TEST_PREFIX "io: snapshot: " PROPERTIES LABELS io)

  # ThreadSanitizer: a snapshot writer thread and the main thread save files at once.
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    add_executable(io_threads_tsan ${CMAKE_CURRENT_SOURCE_DIR}/io/threads_test.cpp)
    target_include_directories(io_threads_tsan PRIVATE ${HDF5_INCLUDE_DIRS})
    target_compile_definitions(io_threads_tsan PRIVATE ${HDF5_DEFINITIONS})
    target_link_libraries(io_threads_tsan PRIVATE stepgen_runtime ${HDF5_C_LIBRARIES})
    target_compile_options(io_threads_tsan PRIVATE ${STEPGEN_WARNINGS} -fsanitize=thread -g)
    target_link_options(io_threads_tsan PRIVATE -fsanitize=thread)
    add_test(NAME "io: a snapshot writer thread and checkpoints save files at once (ThreadSanitizer)"
             # Without address randomisation where setarch allows it: TSan's shadow memory
             # fails on kernels with many random mmap bits.
             COMMAND bash -c "rm -rf \"$1\" && mkdir -p \"$1\" && run=() && { ! setarch \"$(uname -m)\" -R true 2>/dev/null || run=(setarch \"$(uname -m)\" -R); } && \"\${run[@]}\" \"$0\" \"$1\""
                     $<TARGET_FILE:io_threads_tsan> ${CMAKE_CURRENT_BINARY_DIR}/io-threads)
    set_tests_properties("io: a snapshot writer thread and checkpoints save files at once (ThreadSanitizer)"
                         PROPERTIES LABELS io TIMEOUT 120 ENVIRONMENT "TSAN_OPTIONS=halt_on_error=1")
  endif()

  # h5py reads the files back: the first python3 that has it (Debian's python3-h5py is for
  # /usr/bin/python3, which another python3 on the PATH may hide).
  set(STEPGEN_H5PY_PYTHON "")
  find_program(STEPGEN_XMLLINT xmllint)
  foreach(candidate /usr/bin/python3 python3)
    if(NOT STEPGEN_H5PY_PYTHON)
      execute_process(COMMAND ${candidate} -c "import h5py, numpy" RESULT_VARIABLE h5py_missing
                      OUTPUT_QUIET ERROR_QUIET)
      if(h5py_missing EQUAL 0)
        set(STEPGEN_H5PY_PYTHON ${candidate})
      endif()
    endif()
  endforeach()
  if(STEPGEN_H5PY_PYTHON AND STEPGEN_XMLLINT)
    add_test(NAME "io: snapshot series read back with h5py, XDMF checked against the HDF5 files"
             COMMAND bash -c "rm -rf \"$2\" && mkdir -p \"$2\" && \"$0\" \"$2\" && \"$1\" \"$3\" \"$2\""
                     $<TARGET_FILE:io_snapshot_write> ${STEPGEN_H5PY_PYTHON} ${CMAKE_CURRENT_BINARY_DIR}/io-snapshots
                     ${CMAKE_CURRENT_SOURCE_DIR}/io/check_snapshots.py)
    set_tests_properties("io: snapshot series read back with h5py, XDMF checked against the HDF5 files"
                         PROPERTIES LABELS io TIMEOUT 120)
  else()
    message(STATUS "io: snapshot read-back test skipped: needs python3-h5py and xmllint (libxml2-utils)")
  endif()

  # Parallel HDF5 (Debian's libhdf5-openmpi-dev), through its pkg-config file: FindHDF5 finds one
  # HDF5 per configuration, and the serial and parallel libraries must not meet in one program.
  find_package(PkgConfig QUIET)
  find_package(MPI QUIET COMPONENTS C)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(STEPGEN_HDF5_MPI QUIET IMPORTED_TARGET hdf5-openmpi)
  endif()
  if(STEPGEN_HDF5_MPI_FOUND AND MPI_C_FOUND AND STEPGEN_MPIRUN AND STEPGEN_H5PY_PYTHON AND STEPGEN_XMLLINT)
    add_executable(io_snapshot_mpi ${CMAKE_CURRENT_SOURCE_DIR}/io/snapshot_mpi.cpp)
    target_link_libraries(io_snapshot_mpi PRIVATE stepgen_runtime PkgConfig::STEPGEN_HDF5_MPI MPI::MPI_C)
    target_compile_options(io_snapshot_mpi PRIVATE ${STEPGEN_WARNINGS})
    foreach(ranks 2 3)
      set(name "io: parallel HDF5 snapshot on ${ranks} ranks equals the serial write")
      add_test(NAME ${name}
               COMMAND bash -c "rm -rf \"$3\" && mkdir -p \"$3\" && \"$0\" \"$3\" && source \"$5/mpirun.sh\" && stepgen_mpirun $6 \"$1\" \"$3\" && \"$2\" \"$4\" --same \"$3/mpi.h5\" \"$3/same.h5\" && \"$2\" \"$4\" \"$3\""
                       $<TARGET_FILE:io_snapshot_write> $<TARGET_FILE:io_snapshot_mpi> ${STEPGEN_H5PY_PYTHON}
                       ${CMAKE_CURRENT_BINARY_DIR}/io-snapshots-mpi-${ranks} ${CMAKE_CURRENT_SOURCE_DIR}/io/check_snapshots.py
                       ${CMAKE_CURRENT_SOURCE_DIR}/mpi ${ranks})
      set_tests_properties(${name} PROPERTIES LABELS "io;mpi" TIMEOUT 180)
    endforeach()
  else()
    message(STATUS "io: parallel HDF5 test skipped: needs libhdf5-openmpi-dev, MPI, mpirun, python3-h5py, xmllint")
  endif()
else()
  message(STATUS "io: snapshot tests skipped: needs serial HDF5 (libhdf5-dev)")
endif()

# Output, checkpoint and restart in a generated program (tests/io/program_test.sh): OpenCL on
# PoCL, CUDA under the CPU emulation, OpenCL MPI ranks; needs serial HDF5, h5py and xmllint
# (found above), the MPI one parallel HDF5 and mpirun.
if(HDF5_FOUND AND NOT HDF5_IS_PARALLEL AND STEPGEN_H5PY_PYTHON AND STEPGEN_XMLLINT)
  find_package(OpenCL QUIET)
  set(io_program_targets cuda-emu)
  find_program(STEPGEN_MPICXX mpicxx)
  if(STEPGEN_HDF5_MPI_FOUND AND STEPGEN_MPICXX AND STEPGEN_MPIRUN)
    list(APPEND io_program_targets cuda-emu-mpi)
  endif()
  if(OpenCL_FOUND)
    list(PREPEND io_program_targets opencl)
    # MPI ranks: collective raw files and checkpoints, parallel HDF5 (found above).
    if(STEPGEN_HDF5_MPI_FOUND AND MPI_CXX_FOUND AND STEPGEN_MPIRUN)
      list(APPEND io_program_targets opencl-mpi)
    endif()
  endif()
  foreach(target IN LISTS io_program_targets)
    set(name "io: ${target} program: outputs equal --save, restart on other devices and out of core equals the straight run")
    add_test(NAME ${name}
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/io/program_test.sh $<TARGET_FILE:stepgen>
                     ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/io-program-${target}
                     ${STEPGEN_H5PY_PYTHON} ${target})
    set(labels io)
    if(target MATCHES "-mpi$")
      set(labels "io;mpi")
    endif()
    set_tests_properties(${name} PROPERTIES LABELS "${labels}" TIMEOUT 600
                         ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2")
  endforeach()
else()
  message(STATUS "io: generated-program output test skipped: needs serial HDF5, python3-h5py, xmllint")
endif()
