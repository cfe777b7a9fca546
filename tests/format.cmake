# Generated host code is clang-formatted (needs clang-format).
find_program(CLANG_FORMAT clang-format)
if(CLANG_FORMAT)
  add_test(NAME "format: generated opencl code"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/format_check.sh $<TARGET_FILE:stepgen> ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/format)
endif()
