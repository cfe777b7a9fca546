# "sanitize: ...": scripts/sanitize.sh builds the generator and its unit tests in a build tree of
# their own (clang++ where installed) with -fsanitize=address,undefined -fno-sanitize-recover=all,
# and runs against it the unit tests (the error suite and the golden files included), the
# regeneration tests and a fuzz of the readers (scripts/fuzz.sh: clang's libFuzzer, ASan + UBSan,
# 20 s a reader, in the build tree's fuzz-build/; then its corpus through the sanitized `stepgen check`).
# Any sanitizer report fails it. Label `sanitize` (`ctest -L sanitize`). (A separate 30-s
# "fuzz: readers" test ran the same fuzz targets on the same build tree alone at the end of CI:
# folded in here. For longer fuzzing: scripts/fuzz.sh BUILD SECONDS.)
# It builds on two cores but counts as one processor, so that ctest starts it first (the highest
# COST, tests/CMakeLists.txt) beside the other tests: as two processors it waited for both
# slots to be free, which in CI was only at the end, where it then ran alone.
# Its limit, 1800 s: on a fresh machine (no ccache) with the other tests on the same 2 cores,
# the sanitized build alone took 696 s and its runs about 300 s more, past the 900 s it had;
# 1800 s leaves that room twice over and still ends a hung run inside CI's 30 minutes. The
# build is only what the runs need (stepgen, stepgen_tests, runtime_tests).
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  return()  # -fsanitize=address,undefined: GCC and Clang
endif()
add_test(NAME "sanitize: unit tests, error suite, regeneration, fuzz (ASan + UBSan)"
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/sanitize.sh ${CMAKE_BINARY_DIR}/sanitize-build
                 ${CMAKE_BINARY_DIR}/fuzz-build 20)
set_tests_properties("sanitize: unit tests, error suite, regeneration, fuzz (ASan + UBSan)" PROPERTIES
                     TIMEOUT 1800 LABELS sanitize)
