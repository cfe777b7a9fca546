# Regeneration: --check, write-if-changed, merges of hand edits, --force, custom templates
# (tests/regen/regen_test.sh), hostile and damaged folders, every file stepgen writes, concurrent
# runs and kill -9 (tests/regen/regen_safety_test.sh), and the installed CMake package building examples/cmake_project
# (tests/regen/cmake_package_test.sh; needs OpenCL and PoCL to build and run the program).
add_test(NAME "regen: check, merges, force, templates"
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/regen/regen_test.sh $<TARGET_FILE:stepgen> ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/regen)
add_test(NAME "regen: links, binary edits, special files, concurrent runs, kill -9"
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/regen/regen_safety_test.sh $<TARGET_FILE:stepgen> ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/regen-safety)
set_tests_properties("regen: links, binary edits, special files, concurrent runs, kill -9" PROPERTIES TIMEOUT 300)
find_package(OpenCL QUIET)
if(OpenCL_FOUND)
  add_test(NAME "regen: cmake package and example project"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/regen/cmake_package_test.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/cmake-package)
  set_tests_properties("regen: cmake package and example project" PROPERTIES TIMEOUT 600)
endif()
