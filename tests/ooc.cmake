# Out-of-core end to end: every example's OpenCL program forced out of core on 1-2 PoCL
# devices, k in {1, 2, 5}, region sharing on and off, compared bit for bit with its reference.
find_package(OpenCL QUIET)
if(OpenCL_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/examples/CMakeLists.txt)
  file(GLOB example_dirs LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/examples/*)
  foreach(dir IN LISTS example_dirs)
    get_filename_component(example ${dir} NAME)
    if(NOT EXISTS ${dir}/reference.cpp OR NOT EXISTS ${dir}/${example}.xml)
      continue()
    endif()
    add_test(NAME "ooc: opencl ${example}"
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ooc/ooc_test.sh $<TARGET_FILE:stepgen>
                     ${PROJECT_SOURCE_DIR} ${example} ${CMAKE_CURRENT_BINARY_DIR}/ooc
                     $<TARGET_FILE:reference_${example}>
                     ${CMAKE_CURRENT_BINARY_DIR}/e2e/${example}-xml/build/${example})
    # In the example's folder, where its file() initial values are (tests/e2e.cmake). It runs
    # the program the e2e XML test built (its fixture, tests/e2e.cmake): ctest -R ooc runs
    # that test first.
    set_tests_properties("ooc: opencl ${example}" PROPERTIES TIMEOUT 600 LABELS ooc
                         ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2" WORKING_DIRECTORY ${dir}
                         FIXTURES_REQUIRED "e2e-program-${example}")
  endforeach()
endif()
