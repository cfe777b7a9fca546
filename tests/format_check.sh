#!/usr/bin/env bash
# The generated host code of every example is clang-formatted (with the .clang-format stepgen
# writes beside it). Usage: format_check.sh STEPGEN SOURCE_DIR WORK_DIR
set -euo pipefail
stepgen=$1 src=$2 work=$3
status=0
for spec in "$src"/examples/*/*.xml; do
  name=$(basename "$spec" .xml)
  out="$work/format-$name"
  rm -rf "$out"
  "$stepgen" generate "$spec" --target opencl -o "$out" >/dev/null
  # The .clang-format shipped with the program is the project's own.
  if ! cmp -s "$out/.clang-format" "$src/.clang-format"; then
    echo "error: $out/.clang-format differs from $src/.clang-format" >&2
    status=1
  fi
  if (cd "$out" && clang-format --style=file --dry-run --Werror "$name.cpp"); then
    echo "ok: $name.cpp is clang-formatted"
  else
    status=1
  fi
done
exit $status
