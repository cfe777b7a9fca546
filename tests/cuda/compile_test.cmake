# One CUDA compile test: generate SPEC for CUDA into OUT and build it for sm_90 (-Werror on).
# Usage: cmake -DSTEPGEN=... -DSPEC=... -DOUT=... -DNVCC=... -P compile_test.cmake
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${STEPGEN} generate ${SPEC} --target cuda -o ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "stepgen generate --target cuda failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${OUT} -B ${OUT}/build -DCMAKE_BUILD_TYPE=Release
                        -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_COMPILER=${NVCC}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the generated CUDA program failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${OUT}/build RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the generated CUDA program failed (${rc})")
endif()
