#!/usr/bin/env bash
# `stepgen schema`: the JSON Schema validates every example's and test's YAML spec with Python's
# jsonschema (what yaml-language-server also reads), the XSD every XML spec with xmllint --schema;
# the specs in tests/schema/invalid/ (one mistake each, named by the file) are rejected by both
# the schema and stepgen check.
# Usage: schema_test.sh STEPGEN SOURCE_DIR WORK_DIR
set -euo pipefail
stepgen=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$stepgen" schema --format json -o "$work/stepgen.schema.json"
"$stepgen" schema --format xsd -o "$work/stepgen.xsd"
"$stepgen" schema --format xsd | cmp - "$work/stepgen.xsd"

shopt -s nullglob
valid_yaml=("$src"/examples/*/*.yaml "$src"/tests/reduce/*.yaml "$src"/tests/tune/*.yaml)
valid_xml=("$src"/examples/*/*.xml "$src"/specs/stepocl_listing.xml "$src"/tests/reduce/*.xml)
invalid_yaml=("$src"/tests/schema/invalid/*.yaml)
invalid_xml=("$src"/tests/schema/invalid/*.xml)
((${#valid_yaml[@]} >= 12 && ${#valid_xml[@]} >= 12 && ${#invalid_yaml[@]} >= 3 && ${#invalid_xml[@]} >= 3))

python3 - "$work/stepgen.schema.json" "${#valid_yaml[@]}" "${valid_yaml[@]}" "${invalid_yaml[@]}" <<'PY'
import json, sys
import jsonschema, yaml
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
validator = jsonschema.Draft7Validator(schema)
n_valid = int(sys.argv[2])
failed = 0
for i, path in enumerate(sys.argv[3:]):
    errors = list(validator.iter_errors(yaml.safe_load(open(path))))
    if i < n_valid and errors:
        print(f"FAIL: {path}: the schema rejects a valid spec: {errors[0].message}")
        failed += 1
    elif i >= n_valid and not errors:
        print(f"FAIL: {path}: the schema accepts an invalid spec")
        failed += 1
    else:
        print(f"ok: {path}" + (f" (rejected: {errors[0].message[:80]})" if errors else ""))
sys.exit(1 if failed else 0)
PY

for f in "${valid_xml[@]}"; do
  xmllint --noout --schema "$work/stepgen.xsd" "$f" 2>"$work/out" || { cat "$work/out"; echo "FAIL: $f"; exit 1; }
  echo "ok: $f"
done
for f in "${invalid_xml[@]}"; do
  if xmllint --noout --schema "$work/stepgen.xsd" "$f" 2>"$work/out"; then
    echo "FAIL: $f: the XSD accepts an invalid spec"; exit 1
  fi
  echo "ok: $f (rejected: $(grep -m1 -v 'fails to validate' "$work/out" | cut -c1-120))"
done
# stepgen check rejects each invalid spec as well (exit 1: spec errors).
for f in "${invalid_yaml[@]}" "${invalid_xml[@]}"; do
  rc=0; "$stepgen" check --no-signature-check "$f" >"$work/out" 2>&1 || rc=$?
  [ "$rc" = 1 ] || { cat "$work/out"; echo "FAIL: stepgen check $f exited $rc"; exit 1; }
done
echo "schema: ${#valid_yaml[@]} YAML and ${#valid_xml[@]} XML specs valid, ${#invalid_yaml[@]} + ${#invalid_xml[@]} invalid rejected"
