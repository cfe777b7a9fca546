# The kernel probe end to end (tests/probe/halo_removed_test.sh): examples of every kernel shape
# (2D and 3D, radius 1 and 2, one-sided, two kernels, periodic frames: jacobi2d heat3d advect
# twostage seismic grayscott; each program build costs CI ~10 s) with one halo point removed
# from its spec must stop before the time loop with the probe's error naming the
# kernel, the array and the offset; --probe off runs. OpenCL programs on PoCL.
find_package(OpenCL QUIET)
if(OpenCL_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/examples/CMakeLists.txt)
  add_test(NAME "probe: a halo declared too small stops the examples"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/probe/halo_removed_test.sh $<TARGET_FILE:stepgen>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/probe
                   jacobi2d heat3d advect twostage seismic grayscott)
  set_tests_properties("probe: a halo declared too small stops the examples" PROPERTIES
                       TIMEOUT 900 LABELS probe ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2")
endif()

# A kernel that wraps its buffer periodically (tests/probe/wrap: (x + 1) % nx), right on one
# device only: `stepgen check --probe` refuses it at its <arg>, naming the cells; with
# STEPGEN_PROBE_EDGES=0 it passes (the check is that pass's). The CUDA twin runs on the GPU
# (bench phase vecwrap).
if(OpenCL_FOUND)
  add_test(NAME "probe: a kernel that wraps its buffer periodically is refused at check"
           COMMAND sh -c "! $<TARGET_FILE:stepgen> check --probe ${CMAKE_CURRENT_SOURCE_DIR}/probe/wrap/wrap.xml 2>&1 | tee /dev/stderr | grep -q 'wrap.xml:8:5: error: kernel .jacobi. reads array .A. across its buffer: on a 24x24 buffer, cell (23,12) of .B. changes when cell (0,12) of .A. does' && exit 1; STEPGEN_PROBE_EDGES=0 $<TARGET_FILE:stepgen> check --probe ${CMAKE_CURRENT_SOURCE_DIR}/probe/wrap/wrap.xml")
  set_tests_properties("probe: a kernel that wraps its buffer periodically is refused at check"
                       PROPERTIES LABELS probe)
endif()

# A kernel reading a whole line (tests/probe/zscan: a z-scan launched over x and y, looping
# over z) declared with a halo as wide as half the line: refused at check by the probe's edge
# cells, since it would run wrong on 2 devices with exit 0; with the whole line as its halo
# it passes (every buffer then holds the line).
if(OpenCL_FOUND)
  add_test(NAME "probe: a whole-line kernel with a halo of half its line is refused at check"
           COMMAND sh -c "! $<TARGET_FILE:stepgen> check --probe ${CMAKE_CURRENT_SOURCE_DIR}/probe/zscan/zscan_half.xml 2>&1 | tee /dev/stderr | grep -q \"zscan_half.xml:9:5: error: kernel 'zscan' reads array 'U' along z as far as its buffer goes: on a 16x12x30 buffer, cell (8,6,15) of 'V' changes when cell (8,6,0) of 'U' does\" && exit 1; $<TARGET_FILE:stepgen> check --probe ${CMAKE_CURRENT_SOURCE_DIR}/probe/zscan/zscan_full.xml")
  set_tests_properties("probe: a whole-line kernel with a halo of half its line is refused at check"
                       PROPERTIES LABELS probe)
endif()

# A kernel with the grid's size fixed in it (tests/probe/fixed: #define NX 64) writes past the
# probe's 24x24 buffer: the guard zone after each buffer makes that an error at the kernel
# (it crashed PoCL before). tests/runtime/probe_test.cpp checks the guard's size and message.
if(OpenCL_FOUND)
  add_test(NAME "probe: a kernel writing past its buffer (a size fixed in it) is refused at check"
           COMMAND sh -c "$<TARGET_FILE:stepgen> check --probe ${CMAKE_CURRENT_SOURCE_DIR}/probe/fixed/fixed.xml 2>&1 | tee /dev/stderr | grep -q \"fixed.xml:7:17: error: kernel 'jacobi' writes past the end of its buffer of array 'B': run on a 24x24 buffer (the kernel probe's), it changed element 577, 2 past its last\"")
  set_tests_properties("probe: a kernel writing past its buffer (a size fixed in it) is refused at check"
                       PROPERTIES LABELS probe)
endif()

# Kernels ported from the docs alone whose too-small halos the probe used to miss (wrong results,
# exit 0): a D2Q9 lattice-Boltzmann step with a solid mask != 0 (tests/probe/lbm: every probe
# cell was solid), PolyBench seidel-2d as a wavefront (tests/probe/seidel: nothing written at step
# 0 in the probe's box, or one cell taken for a rim), PolyBench adi's line recurrences
# (tests/probe/adi: a column halo one short of the line). Right halos equal the serial references
# on 1 and 3 devices and out of core; too-small ones are refused at check and at start-up.
if(OpenCL_FOUND)
  foreach(case lbm seidel40 seidel20 adi data)
    add_test(NAME "probe: kernels the probe could not see into (${case}) are checked"
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/probe/real_kernels_test.sh $<TARGET_FILE:stepgen>
                     ${CMAKE_CURRENT_BINARY_DIR}/probe ${case})
    set_tests_properties("probe: kernels the probe could not see into (${case}) are checked"
                         PROPERTIES TIMEOUT 600 LABELS probe ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2")
  endforeach()
endif()

# The same kernels' CUDA twins on the CPU emulation (tests/cuda_emu): the CUDA program's start-up
# probe refuses the too-small halos, and the right ones equal the serial references.
foreach(case lbm seidel40 adi data)
  add_test(NAME "cuda-emu: kernels the probe could not see into (${case}) are checked"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/probe/real_kernels_test.sh $<TARGET_FILE:stepgen>
                   ${CMAKE_CURRENT_BINARY_DIR}/probe ${case} cuda-emu)
  set_tests_properties("cuda-emu: kernels the probe could not see into (${case}) are checked"
                       PROPERTIES TIMEOUT 600 LABELS "probe;cuda-emu")
endforeach()

# Rims wider than the halos that leave fewer parts than the devices asked for stop the run
# (tests/probe/guard), as the MPI program refuses fewer parts than ranks; --devices 2 runs.
if(OpenCL_FOUND)
  add_test(NAME "probe: widened ghosts that leave fewer parts stop the run, not the device count"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/probe/guard_test.sh $<TARGET_FILE:stepgen>
                   ${CMAKE_CURRENT_BINARY_DIR}/probe)
  set_tests_properties("probe: widened ghosts that leave fewer parts stop the run, not the device count"
                       PROPERTIES TIMEOUT 300 LABELS probe ENVIRONMENT "POCL_MAX_PTHREAD_COUNT=2")
endif()
