# Writes OUT_DIR/stepgen/exec/kernels/NAME_cl.hpp for each of the runtime's OpenCL kernels
# (runtime/include/stepgen/exec/kernels/NAME.cl), the header a generated program's build makes from
# its copy: the same script (templates/common/embed_kernels.cmake.mustache), rendered here.
# For what builds against runtime/include directly: this project's CMakeLists.txt (at configure
# time), tests/prebuilt/prebuilt.sh and bench/phases/prepare.sh:
#   cmake -DOUT_DIR=DIR -P cmake/runtime_kernels.cmake   then compile with -I DIR
get_filename_component(root ${CMAKE_CURRENT_LIST_DIR} DIRECTORY)
file(READ ${root}/templates/common/embed_kernels.cmake.mustache script)
string(REPLACE "{{cmake_header_comment}}" "# Rendered by cmake/runtime_kernels.cmake." script "${script}")
file(WRITE ${OUT_DIR}/embed_kernels.cmake.tmp "${script}")  # atomically: a temporary, renamed
file(RENAME ${OUT_DIR}/embed_kernels.cmake.tmp ${OUT_DIR}/embed_kernels.cmake)
file(GLOB kernels ${root}/runtime/include/stepgen/exec/kernels/*.cl)
foreach(path IN LISTS kernels)
  get_filename_component(k ${path} NAME_WE)
  execute_process(COMMAND ${CMAKE_COMMAND} -DOUT=${OUT_DIR}/stepgen/exec/kernels/${k}_cl.hpp
                          -DFILES=stepgen/exec/kernels/${k}.cl -DNAME=stepgen_runtime_kernel_${k}
                          -P ${OUT_DIR}/embed_kernels.cmake
                  WORKING_DIRECTORY ${root}/runtime/include RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "embedding ${path} failed")
  endif()
endforeach()
