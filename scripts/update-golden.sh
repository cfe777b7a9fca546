#!/usr/bin/env bash
# Regenerates the golden trees under tests/golden/ with the built stepgen. Regenerating is an
# explicit act: review `git diff tests/golden` before committing it.
# Each case folder is named TARGET-EXAMPLE and holds the tree generated from
# examples/EXAMPLE/EXAMPLE.xml for TARGET.
# Usage: scripts/update-golden.sh [STEPGEN]   (default: build/stepgen)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
stepgen=${1:-$root/build/stepgen}
for dir in "$root"/tests/golden/*/; do
  case=$(basename "$dir")
  target=${case%%-*}
  example=${case#*-}
  rm -rf "$dir"
  "$stepgen" generate "$root/examples/$example/$example.xml" --target "$target" -o "$dir" >/dev/null
  echo "regenerated tests/golden/$case"
done
