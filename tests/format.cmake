# clang-format (the project's .clang-format) over what the generator writes and over our own
# sources (tests/format_check.sh; needs clang-format). Failing files are named with clang-format's
# complaints; `clang-format -i FILE` fixes a source file, a template change fixes generated code.
find_program(CLANG_FORMAT clang-format)
if(CLANG_FORMAT)
  add_test(NAME "format: generated CUDA and OpenCL programs, one-process and MPI (every golden case)"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/format_check.sh generated $<TARGET_FILE:stepgen>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/format)
  add_test(NAME "format: our sources (generator, runtime, tests, examples, bench)"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/format_check.sh sources ${PROJECT_SOURCE_DIR})
  set_tests_properties("format: generated CUDA and OpenCL programs, one-process and MPI (every golden case)"
                       "format: our sources (generator, runtime, tests, examples, bench)"
                       PROPERTIES LABELS format TIMEOUT 300)
endif()

# The sizes the code is kept to (scripts/check_sizes.py): no file of runtime/ or generator/ over
# 800 lines, no function over 150; the checker itself refused a made-up tree over each.
add_test(NAME "sizes: no file over 800 lines, no function over 150 (runtime, generator)"
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/sizes_test.sh ${PROJECT_SOURCE_DIR})
set_tests_properties("sizes: no file over 800 lines, no function over 150 (runtime, generator)"
                     PROPERTIES LABELS format TIMEOUT 120)
