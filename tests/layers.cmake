# The runtime's layers (plan/: standard library only; description/: plan/ and itself) and the
# generator including nothing from exec/ (tests/layers/layers_test.py; docs/architecture.md).
add_test(NAME "layers: plan/ is the standard library only, the generator includes no exec/"
         COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/layers/layers_test.py ${PROJECT_SOURCE_DIR})
