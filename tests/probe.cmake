# The kernel probe end to end (tests/probe/halo_removed_test.sh): examples of every kernel shape
# (2D and 3D, radius 1 and 2, one-sided, two kernels, periodic frames: jacobi2d heat3d advect
# twostage seismic grayscott; each program build costs CI ~10 s) with one halo point removed
# from its spec must stop before the time loop with the probe's error naming the
# kernel, the array and the offset; --probe off runs. OpenCL programs on PoCL.
find_package(OpenCL QUIET)
if(OpenCL_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/examples/CMakeLists.txt)
  add_test(NAME "probe: a halo declared too small stops the examples"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/probe/halo_removed_test.sh $<TARGET_FILE:stepgen>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/probe
                   jacobi2d heat3d advect twostage seismic grayscott)
  set_tests_properties("probe: a halo declared too small stops the examples" PROPERTIES
                       TIMEOUT 900 LABELS probe ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2")
endif()
