# "fuzz: readers": builds the libFuzzer targets of fuzz/ in a build tree of their own (clang,
# ASan, UBSan) and runs each reader for 30 seconds over the seed specs (scripts/fuzz.sh).
# Registered only where clang++ is found; skipped (exit 77) where it cannot link libFuzzer.
find_program(STEPGEN_CLANGXX NAMES clang++ clang++-14)
if(STEPGEN_CLANGXX)
  add_test(NAME "fuzz: readers"
           COMMAND ${PROJECT_SOURCE_DIR}/scripts/fuzz.sh ${CMAKE_BINARY_DIR}/fuzz-build 30)
  set_tests_properties("fuzz: readers" PROPERTIES
                       TIMEOUT 600 RUN_SERIAL TRUE SKIP_RETURN_CODE 77 LABELS fuzz RESOURCE_LOCK fuzz-build
                       ENVIRONMENT "CXX_FUZZ=${STEPGEN_CLANGXX}")
endif()
