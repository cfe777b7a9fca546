# The kernel probe end to end (tests/probe/halo_removed_test.sh): every example with one halo
# point removed from its spec must stop before the time loop with the probe's error naming the
# kernel, the array and the offset; --probe off runs. OpenCL programs on PoCL.
find_package(OpenCL QUIET)
if(OpenCL_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/examples/CMakeLists.txt)
  add_test(NAME "probe: a halo declared too small stops every example"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/probe/halo_removed_test.sh $<TARGET_FILE:stepgen>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/probe)
  set_tests_properties("probe: a halo declared too small stops every example" PROPERTIES
                       TIMEOUT 900 LABELS probe ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2")
endif()
