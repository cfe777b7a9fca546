# The I/O runtime (runtime/include/stepgen/io/): checkpoints (standard library only: always),
# snapshots (HDF5 + XDMF: only when HDF5 is found; serial and parallel HDF5 are never linked
# into one executable).
add_executable(io_checkpoint_tests ${CMAKE_CURRENT_SOURCE_DIR}/io/checkpoint_test.cpp
                                   ${CMAKE_CURRENT_SOURCE_DIR}/io/main.cpp)
target_link_libraries(io_checkpoint_tests PRIVATE stepgen_runtime doctest::doctest)
target_compile_options(io_checkpoint_tests PRIVATE ${STEPGEN_WARNINGS})
doctest_discover_tests(io_checkpoint_tests TEST_PREFIX "io: checkpoint: " PROPERTIES LABELS io)

add_executable(io_checkpoint_loop ${CMAKE_CURRENT_SOURCE_DIR}/io/checkpoint_loop.cpp)
target_link_libraries(io_checkpoint_loop PRIVATE stepgen_runtime)
target_compile_options(io_checkpoint_loop PRIVATE ${STEPGEN_WARNINGS})
add_test(NAME "io: kill -9 during a checkpoint leaves the previous one intact"
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/io/checkpoint_kill.sh $<TARGET_FILE:io_checkpoint_loop>
                 ${CMAKE_CURRENT_BINARY_DIR}/io-kill)
set_tests_properties("io: kill -9 during a checkpoint leaves the previous one intact"
                     PROPERTIES LABELS io TIMEOUT 120)
