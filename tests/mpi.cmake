# MPI: every example generated with --distribution mpi, built with -Werror, run with
# mpirun -np 1, 2 and 3 on PoCL CPU devices (one per rank), its saved arrays (MPI-IO) compared
# bit for bit with the serial reference and the 1-rank run; runs split in slabs must overlap the
# exchange with the interior; out of core per rank (tests/mpi/mpi_ooc.sh). The jacobi2d case also
# checks the MPI program's error paths (tests/mpi/mpi_errors.sh).
find_package(OpenCL QUIET)
find_program(STEPGEN_MPIRUN mpirun)
find_package(MPI QUIET COMPONENTS CXX)
# The MPI runtime's unit test (runtime/include/stepgen/exec/mpi.hpp), on 3 ranks (a rank with two
# neighbours), 1 (none: the exchange does nothing, its guards still hold) and 4 (two such ranks).
if(MPI_CXX_FOUND AND STEPGEN_MPIRUN)
  add_executable(mpi_runtime_test ${CMAKE_CURRENT_SOURCE_DIR}/mpi/mpi_runtime_test.cpp)
  target_link_libraries(mpi_runtime_test PRIVATE stepgen_runtime MPI::MPI_CXX)
  target_compile_options(mpi_runtime_test PRIVATE ${STEPGEN_WARNINGS})
  foreach(ranks 3 1 4)
    add_test(NAME "mpi: runtime on ${ranks} ranks"
             COMMAND bash -c "source '${CMAKE_CURRENT_SOURCE_DIR}/mpi/mpirun.sh' && stepgen_mpirun ${ranks} \"$0\""
                     $<TARGET_FILE:mpi_runtime_test>)
    set_tests_properties("mpi: runtime on ${ranks} ranks" PROPERTIES TIMEOUT 180 LABELS mpi)
  endforeach()
endif()
if(OpenCL_FOUND AND MPI_CXX_FOUND AND STEPGEN_MPIRUN AND EXISTS ${PROJECT_SOURCE_DIR}/examples/CMakeLists.txt)
  file(GLOB example_dirs LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/examples/*)
  foreach(dir IN LISTS example_dirs)
    get_filename_component(example ${dir} NAME)
    if(NOT EXISTS ${dir}/reference.cpp OR NOT EXISTS ${dir}/${example}.xml)
      continue()
    endif()
    add_test(NAME "mpi: opencl ${example}"
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/mpi/mpi_test.sh $<TARGET_FILE:stepgen> ${PROJECT_SOURCE_DIR}
                     ${example} ${CMAKE_CURRENT_BINARY_DIR}/mpi $<TARGET_FILE:reference_${example}>)
    # In the example's folder, where its file() initial values are (tests/e2e.cmake).
    set_tests_properties("mpi: opencl ${example}" PROPERTIES TIMEOUT 600 LABELS mpi
                         WORKING_DIRECTORY ${dir})
    # Built at -O0 but stepocl_jacobi (the largest grid, whose runs' host side at -O0 costs more
    # than the 3 s of compiling it optimised, tests/e2e.cmake): CI time (tests/build_program.sh).
    # Its build is also the check of the MPI host code with Release's flags and the default
    # compiler (GCC, whose optimiser finds warnings -O0 does not: maybe-uninitialized), with
    # -Werror: the runtime's MPI side and one program's own file (jacobi2d's did it as well
    # until 2026-11-29, with one more -O3 program build in CI).
    if(example STREQUAL "stepocl_jacobi")
      set_tests_properties("mpi: opencl ${example}" PROPERTIES ENVIRONMENT "STEPGEN_TEST_CXX_OPT=-O3 -DNDEBUG;STEPGEN_TEST_CXX=")
    endif()
  endforeach()
  add_test(NAME "mpi: opencl file and value inits"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/mpi/mpi_inits_test.sh $<TARGET_FILE:stepgen> ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/mpi-inits $<TARGET_FILE:reference_jacobi2d>)
  set_tests_properties("mpi: opencl file and value inits" PROPERTIES TIMEOUT 600 LABELS mpi)
elseif(EXISTS ${PROJECT_SOURCE_DIR}/examples/CMakeLists.txt)
  message(STATUS "MPI tests skipped: needs OpenCL, MPI (libopenmpi-dev) and mpirun (openmpi-bin)")
endif()
