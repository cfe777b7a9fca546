#!/usr/bin/env bash
# Rewrites tests/errors/NAME.expected from the stepgen binary as it is now: the exact stderr of
# `stepgen check tests/errors/NAME.xml` (or .yaml, .yml) run from the repository root.
# Regenerating is an explicit act: read `git diff tests/errors` before committing the result.
# Usage: scripts/update-errors.sh [SPEC...]     (default: every spec in tests/errors)
#   STEPGEN=path/to/stepgen   the binary (default: $BUILD_DIR/stepgen, else build/stepgen)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${STEPGEN:-${BUILD_DIR:-$root/build}/stepgen}
[ -x "$bin" ] || { echo "update-errors: no stepgen at $bin (build first, or set STEPGEN)" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

cd "$root"
shopt -s nullglob
specs=("$@")
((${#specs[@]})) || specs=(tests/errors/*.xml tests/errors/*.yaml tests/errors/*.yml)

# NAME.expected belongs to one spec: two formats of one NAME would overwrite each other.
declare -A first=() shared=()
for spec in tests/errors/*.xml tests/errors/*.yaml tests/errors/*.yml; do
  name=${spec%.*}
  [ -n "${first[$name]:-}" ] && shared[$name]="${first[$name]} and $spec"
  first[$name]=$spec
done

changed=0
status=0
for spec in "${specs[@]}"; do
  spec=${spec#./}
  case $spec in
    *.xml | *.yaml | *.yml) ;;
    *) continue ;;  # NAME.expected and kernels given by a glob
  esac
  name=${spec%.*}
  if [ -n "${shared[$name]:-}" ]; then
    echo "update-errors: ${shared[$name]} share $name.expected; rename one (skipped)" >&2
    status=1
    continue
  fi
  new=$(mktemp)
  "$bin" check "$spec" >/dev/null 2>"$new" || true
  if ! cmp -s "$new" "$name.expected"; then
    cat "$new" >"$name.expected"
    echo "updated $name.expected"
    changed=$((changed + 1))
  fi
  rm -f "$new"
done
echo "update-errors: $changed file(s) changed"
exit $status
