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
  if (cd "$out" && clang-format --dry-run --Werror "$name.cpp"); then
    echo "ok: $name.cpp is clang-formatted"
  else
    status=1
  fi
done
exit $status
