# "sanitize: ...": scripts/sanitize.sh builds the generator and its unit tests in a build tree of
# their own with -fsanitize=address,undefined -fno-sanitize-recover=all, and runs against it the
# unit tests (the error suite and the golden files included), the regeneration tests and a short
# fuzz (scripts/fuzz.sh, sharing the "fuzz: readers" build tree, then its corpus through the
# sanitized `stepgen check`). Any sanitizer report fails it. Label `sanitize`
# (`ctest -L sanitize`); it builds on two cores, so it counts as two processors.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  return()  # -fsanitize=address,undefined: GCC and Clang
endif()
add_test(NAME "sanitize: unit tests, error suite, regeneration, fuzz (ASan + UBSan)"
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/sanitize.sh ${CMAKE_BINARY_DIR}/sanitize-build
                 ${CMAKE_BINARY_DIR}/fuzz-build 10)
set_tests_properties("sanitize: unit tests, error suite, regeneration, fuzz (ASan + UBSan)" PROPERTIES
                     TIMEOUT 900 LABELS sanitize PROCESSORS 2 RESOURCE_LOCK fuzz-build)
