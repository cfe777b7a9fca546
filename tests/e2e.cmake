# End-to-end: every example, generated for OpenCL from XML, built with -Werror, run on 1-4 PoCL
# CPU devices and compared bit for bit with its serial reference; from YAML, the same tree.
find_package(OpenCL QUIET)
if(OpenCL_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/examples/CMakeLists.txt)
  file(GLOB example_dirs LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/examples/*)
  foreach(dir IN LISTS example_dirs)
    get_filename_component(example ${dir} NAME)
    if(NOT EXISTS ${dir}/reference.cpp OR NOT EXISTS ${dir}/${example}.xml)
      continue()
    endif()
    foreach(format xml yaml)
      add_test(NAME "e2e: opencl ${example} ${format}"
               COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/example_test.sh $<TARGET_FILE:stepgen>
                       ${PROJECT_SOURCE_DIR} ${example} ${format} ${CMAKE_CURRENT_BINARY_DIR}/e2e
                       $<TARGET_FILE:reference_${example}>)
      # In the example's folder: file() initial values (examples/tables' coef.raw) are found
      # there whether they are read relative to the working directory or to the spec.
      # Built at -O0 but four examples (Release's flags, -O3: the warnings only the optimiser
      # finds, with -Werror): CI time (tests/build_program.sh). stepocl_jacobi, the largest
      # grid, is one of them for the out-of-core test that runs this build (tests/ooc.cmake): its
      # host side at -O0 (the model's choice of chunks and k above all) made that test 46.6 s
      # against 31.1 s at -O1 here, for 3.2 s more of compiling.
      set(opt "")
      if(example MATCHES "^(jacobi2d|acoustic|tables|stepocl_jacobi)$")
        set(opt ";STEPGEN_TEST_CXX_OPT=-O3 -DNDEBUG")
      endif()
      # The default compiler, GCC on Debian (the other tests' programs build with clang++ where
      # installed: tests/CMakeLists.txt, STEPGEN_TEST_CXX).
      set_tests_properties("e2e: opencl ${example} ${format}" PROPERTIES TIMEOUT 600 LABELS e2e
                           ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2${opt};STEPGEN_TEST_CXX=" WORKING_DIRECTORY ${dir})
    endforeach()
    # Its program is the one the out-of-core test runs (tests/ooc.cmake).
    set_tests_properties("e2e: opencl ${example} xml" PROPERTIES FIXTURES_SETUP "e2e-program-${example}")
  endforeach()
endif()
if(OpenCL_FOUND)
  # Kernel sources of one file name in two folders (issue 21, item 6): both reach the program.
  add_test(NAME "e2e: opencl kernel sources of one name in two folders"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/kernel_folders_test.sh $<TARGET_FILE:stepgen>
                   ${CMAKE_CURRENT_BINARY_DIR}/e2e)
  set_tests_properties("e2e: opencl kernel sources of one name in two folders" PROPERTIES
                       TIMEOUT 600 LABELS e2e ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2")
endif()

if(OpenCL_FOUND)
  # Floating-point contraction off without the kernel file's pragma (cl::build_kernel_files).
  add_test(NAME "e2e: opencl contraction off without the kernel's pragma"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/fp_contract_test.sh $<TARGET_FILE:stepgen>
                   ${CMAKE_CURRENT_BINARY_DIR}/e2e)
  set_tests_properties("e2e: opencl contraction off without the kernel's pragma" PROPERTIES
                       TIMEOUT 600 LABELS e2e ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=1")
endif()

if(OpenCL_FOUND)
  # OpenCL kernels indexing with get_group_id() or sized by get_global_size() run whole (no slab
  # launches through a global offset): every mode equals one device.
  add_test(NAME "e2e: opencl kernels using get_group_id or get_global_size run whole"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/offset_blind_test.sh $<TARGET_FILE:stepgen>
                   ${CMAKE_CURRENT_BINARY_DIR}/e2e)
  set_tests_properties("e2e: opencl kernels using get_group_id or get_global_size run whole" PROPERTIES
                       TIMEOUT 600 LABELS e2e ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2")
  # Work-items computing several cells (global size extent(X, d) / 4, float4 views): parts cut
  # at multiples of 4, x not cut where ghosts are not, out of core refused along such a slowest
  # dimension; every run equals one device.
  add_test(NAME "e2e: kernels computing several cells per work-item are cut at their multiples"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/vector_items_test.sh $<TARGET_FILE:stepgen>
                   ${CMAKE_CURRENT_BINARY_DIR}/e2e)
  set_tests_properties("e2e: kernels computing several cells per work-item are cut at their multiples"
                       PROPERTIES TIMEOUT 600 LABELS e2e ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2")
endif()

if(OpenCL_FOUND)
  # Two kernel files defining one helper: check --probe builds the files as the program does, and
  # both name the second file's line.
  add_test(NAME "e2e: opencl kernel files built as one program, errors at their own lines"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/joined_test.sh $<TARGET_FILE:stepgen>
                   ${CMAKE_CURRENT_BINARY_DIR}/e2e)
  set_tests_properties("e2e: opencl kernel files built as one program, errors at their own lines" PROPERTIES
                       TIMEOUT 600 LABELS e2e ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2")
endif()

if(OpenCL_FOUND)
  # Math in a scalar argument (exp, cos, pi, abs, '^', step), per step on the host in double.
  add_test(NAME "e2e: opencl math in a scalar argument"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/math_scalar_test.sh $<TARGET_FILE:stepgen>
                   ${CMAKE_CURRENT_BINARY_DIR}/e2e)
  set_tests_properties("e2e: opencl math in a scalar argument" PROPERTIES
                       TIMEOUT 600 LABELS e2e ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2")
endif()

# The generated program's command line and files (bad flags, --load/--save targets checked
# before the run, atomic saves under kill -9 and write errors, no device found), on one build
# of jacobi2d with a 4096x4096 grid.
if(OpenCL_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/examples/jacobi2d/jacobi2d.xml)
  add_test(NAME "e2e: opencl program io"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/program_io_test.sh $<TARGET_FILE:stepgen>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/e2e/program-io)
  set_tests_properties("e2e: opencl program io" PROPERTIES TIMEOUT 300 LABELS e2e
                       ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2")
endif()

# Issue 26: in core, page-locked host arrays (or pageable with --pinned off, the same bits) and
# the report's host<->device GB/s against the link measured at start-up.
if(OpenCL_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/examples/jacobi2d/jacobi2d.xml)
  add_test(NAME "e2e: opencl report: page-locked host arrays and the link measured at start-up"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/pinned_report_test.sh $<TARGET_FILE:stepgen>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/e2e/pinned-report)
  set_tests_properties("e2e: opencl report: page-locked host arrays and the link measured at start-up"
                       PROPERTIES TIMEOUT 300 LABELS e2e ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2")
endif()

# The generated program builds with clang as well as with GCC (warnings as errors, as the
# generated CMakeLists sets them): clang 14 refused a variable set but never used in ooc.hpp
# that GCC let pass. One example (every program includes every runtime header of its
# backend), with NDEBUG (Release's: the variables only an assert reads) at -O0 (CI time: clang's
# warnings do not depend on the optimiser). The other tests' programs build with clang too where
# it is installed (tests/CMakeLists.txt, STEPGEN_TEST_CXX), without NDEBUG.
find_program(STEPGEN_CLANGXX clang++)
if(OpenCL_FOUND AND STEPGEN_CLANGXX AND EXISTS ${PROJECT_SOURCE_DIR}/examples/twostage/twostage.xml)
  add_test(NAME "e2e: opencl program builds with clang"
           COMMAND sh -c "rm -rf \"$1\" && \"$2\" generate \"$3\" -o \"$1/gen\" >/dev/null && cmake -S \"$1/gen\" -B \"$1/build\" -DCMAKE_CXX_COMPILER=\"$4\" -DCMAKE_BUILD_TYPE=None \"-DCMAKE_CXX_FLAGS=-O0 -DNDEBUG\" >/dev/null && cmake --build \"$1/build\""
                   sh ${CMAKE_CURRENT_BINARY_DIR}/e2e/clang $<TARGET_FILE:stepgen>
                   ${PROJECT_SOURCE_DIR}/examples/twostage/twostage.xml ${STEPGEN_CLANGXX})
  set_tests_properties("e2e: opencl program builds with clang" PROPERTIES TIMEOUT 300 LABELS e2e)
endif()

# <local size="auto"/>: the work-group shape tuned at start-up; results equal the serial
# reference whatever it picks (tests/tune/heat3d_auto.xml and .yaml).
if(OpenCL_FOUND AND TARGET reference_heat3d)
  add_test(NAME "e2e: opencl local size auto"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/local_auto_test.sh $<TARGET_FILE:stepgen>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/e2e
                   $<TARGET_FILE:reference_heat3d>)
  # Its host side optimised (the out-of-core runs' model search), with the -O3 examples' compiler
  # and flags above: their shared build of the runtime's side (tests/prebuilt), not one of its own.
  set_tests_properties("e2e: opencl local size auto" PROPERTIES
                       TIMEOUT 600 LABELS e2e
                       ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2;STEPGEN_TEST_CXX_OPT=-O3 -DNDEBUG;STEPGEN_TEST_CXX=")
endif()
