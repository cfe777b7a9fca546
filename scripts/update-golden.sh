#!/usr/bin/env bash
# Regenerates the golden trees under tests/golden/ with the built stepgen. Regenerating is an
# explicit act: review `git diff tests/golden` before committing it.
# Every example (examples/NAME/NAME.xml) gets a case TARGET-NAME for every backend and a case
# TARGET-mpi-NAME for its MPI program (the cases are created when missing); other cases (any
# folder with `spec` and `target`) are kept.
# Each case folder tests/golden/CASE/ holds `spec` (the spec's path from the source root),
# `target` (the backend), optionally `distribution` (`mpi`: --distribution mpi) and `tree/`
# (what `stepgen generate SPEC --target TARGET [--distribution D]` writes). The tree is deleted
# first, so files the generator no longer writes disappear too.
# Usage: scripts/update-golden.sh [STEPGEN]   (default: the first of build/stepgen,
#        build-gold/stepgen that exists)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
stepgen=${1:-}
if [[ -z $stepgen ]]; then
  for candidate in "$root/build/stepgen" "$root/build-gold/stepgen"; do
    if [[ -x $candidate ]]; then stepgen=$candidate; break; fi
  done
fi
if [[ -z $stepgen || ! -x $stepgen ]]; then
  echo "update-golden.sh: no stepgen binary (build it, or pass its path)" >&2
  exit 2
fi
targets=(opencl cuda)
for spec in "$root"/examples/*/*.xml; do
  name=$(basename "$spec" .xml)
  [[ $(basename "$(dirname "$spec")") == "$name" ]] || continue
  for target in "${targets[@]}"; do
    for dir in "$root/tests/golden/$target-$name" "$root/tests/golden/$target-mpi-$name"; do
      mkdir -p "$dir"
      echo "examples/$name/$name.xml" >"$dir/spec"
      echo "$target" >"$dir/target"
    done
    echo mpi >"$root/tests/golden/$target-mpi-$name/distribution"
  done
done
for dir in "$root"/tests/golden/*/; do
  dir=${dir%/}
  case=$(basename "$dir")
  spec=$(head -n 1 "$dir/spec")
  target=$(head -n 1 "$dir/target")
  distribution=()
  [[ -f $dir/distribution ]] && distribution=(--distribution "$(head -n 1 "$dir/distribution")")
  rm -rf "$dir/tree"
  (cd "$root" && "$stepgen" generate "$spec" --target "$target" "${distribution[@]}" -o "$dir/tree" >/dev/null)
  # runtime/ is a verbatim copy of runtime/include/stepgen: the test compares it with that.
  # .stepgen/ holds pristine copies (for merging hand edits): the same files again.
  rm -rf "$dir/tree/runtime" "$dir/tree/.stepgen"
  # A spec read from file() bakes its folder into the program: kept as @STEPGEN_SOURCE_DIR@
  # (tests/generator/golden_test.cpp compares so).
  { grep -rlF "$root" "$dir/tree" || true; } | while read -r f; do
    sed -i "s|$root|@STEPGEN_SOURCE_DIR@|g" "$f"
  done
  echo "regenerated tests/golden/$case ($spec, $target${distribution[1]:+, ${distribution[1]}})"
done
