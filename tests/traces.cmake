# Sources and receivers (<inject>, <record>) on examples/seismic: traces and fields bit-exact
# against the serial reference in core on 1-4 devices (slabs and 2D splits), out of core
# (k = 1, 4), MPI on 2-3 ranks, and the CUDA programs on the CPU emulation
# (tests/traces/traces_test.sh says which runs).
find_package(OpenCL QUIET)
find_package(MPI QUIET COMPONENTS CXX)
find_program(STEPGEN_MPIRUN mpirun)
if(NOT TARGET reference_seismic)
  return()
endif()
set(traces_modes cuda-emu)
if(OpenCL_FOUND)
  list(APPEND traces_modes opencl)
  if(MPI_CXX_FOUND AND STEPGEN_MPIRUN)
    list(APPEND traces_modes mpi)
  endif()
endif()
if(MPI_CXX_FOUND AND STEPGEN_MPIRUN)
  list(APPEND traces_modes cuda-emu-mpi)
endif()
foreach(mode IN LISTS traces_modes)
  add_test(NAME "traces: seismic ${mode}"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/traces/traces_test.sh $<TARGET_FILE:stepgen>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/traces
                   $<TARGET_FILE:reference_seismic> ${mode})
  set_tests_properties("traces: seismic ${mode}" PROPERTIES TIMEOUT 600 LABELS traces
                       ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2;CXX=${CMAKE_CXX_COMPILER}")
endforeach()
# The OpenCL mode runs the program the e2e XML test of examples/seismic built (tests/e2e.cmake).
if(TEST "traces: seismic opencl" AND TEST "e2e: opencl seismic xml")
  set_tests_properties("traces: seismic opencl" PROPERTIES FIXTURES_REQUIRED "e2e-program-seismic"
    ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2;CXX=${CMAKE_CXX_COMPILER};TRACES_PROGRAM=${CMAKE_CURRENT_BINARY_DIR}/e2e/seismic-xml/build/seismic")
endif()
