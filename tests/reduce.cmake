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
