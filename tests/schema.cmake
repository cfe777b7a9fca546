# `stepgen schema`: its JSON Schema and XSD validate every example's spec and reject invalid ones
# (tests/schema/schema_test.sh; Python's jsonschema and xmllint, which scripts/setup.sh installs).
add_test(NAME "schema: JSON Schema and XSD validate the examples, reject invalid specs"
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/schema/schema_test.sh $<TARGET_FILE:stepgen> ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/schema)
