#!/usr/bin/env bash
# clang-format checks (clang-format --dry-run --Werror with the project's .clang-format):
#   format_check.sh generated STEPGEN SOURCE_DIR WORK_DIR
#       every golden case (tests/golden/CASE: spec, target, optional distribution), generated
#       afresh with STEPGEN: the CUDA and OpenCL programs, one-process and MPI. Every C++ or
#       CUDA file the generator writes is checked with the .clang-format it writes beside the
#       program, which must be the project's own. kernels/ (the user's kernels, copied as they
#       are) and runtime/ (a copy of runtime/include, checked as our sources) are left out.
#   format_check.sh sources SOURCE_DIR
#       our own C++ and CUDA sources under generator/, runtime/, tests/, examples/ and bench/,
#       except what we did not write by hand: tests/golden/ (generated; checked above),
#       tests/difftest/regressions/ (random programs as the tester wrote them),
#       tests/kernels_unseen/ and bench/unseen/ (kernels written elsewhere, kept as they came),
#       bench/generated/ (build outputs).
# Prints every failing file with clang-format's first complaints; exits 1 when any fails.
set -euo pipefail
mode=${1:?usage: format_check.sh generated STEPGEN SOURCE_DIR WORK_DIR | sources SOURCE_DIR}
status=0
checked=0
check() {  # check DIR FILE: FILE (relative to DIR) against the .clang-format found from DIR
  checked=$((checked + 1))
  if ! (cd "$1" && clang-format --style=file --dry-run --Werror "$2" >"$tmp" 2>&1); then
    echo "error: $1/$2 is not clang-formatted (clang-format -i it):" >&2
    head -6 "$tmp" >&2
    status=1
  fi
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
case $mode in
  generated)
    stepgen=${2:?STEPGEN} src=${3:?SOURCE_DIR} work=${4:?WORK_DIR}
    mkdir -p "$work"
    cases=0
    for dir in "$src"/tests/golden/*/; do
      dir=${dir%/}
      [ -f "$dir/spec" ] && [ -f "$dir/target" ] || continue
      case_=$(basename "$dir")
      args=(--target "$(head -n 1 "$dir/target")")
      [ -f "$dir/distribution" ] && args+=(--distribution "$(head -n 1 "$dir/distribution")")
      out=$work/format-$case_
      rm -rf "$out"
      if ! "$stepgen" generate "$src/$(head -n 1 "$dir/spec")" "${args[@]}" -o "$out" >"$tmp" 2>&1; then
        echo "error: stepgen generate failed for the golden case $case_:" >&2
        head -6 "$tmp" >&2
        status=1
        continue
      fi
      cases=$((cases + 1))
      # The .clang-format shipped with the program is the project's own.
      if ! cmp -s "$out/.clang-format" "$src/.clang-format"; then
        echo "error: $out/.clang-format differs from $src/.clang-format" >&2
        status=1
      fi
      while IFS= read -r -d '' f; do
        check "$out" "${f#"$out"/}"
      done < <(find "$out" \( -path "$out/kernels" -o -path "$out/runtime" -o -path "$out/.stepgen" \) -prune -o \
                 -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print0 | sort -z)
    done
    [ "$cases" -ge 4 ] || { echo "error: only $cases golden cases found under $src/tests/golden" >&2; status=1; }
    echo "checked $checked generated files of $cases golden cases"
    ;;
  sources)
    src=${2:?SOURCE_DIR}
    while IFS= read -r -d '' f; do
      check "$src" "${f#"$src"/}"
    done < <(cd "$src" && find generator runtime tests examples bench \
               \( -path tests/golden -o -path tests/difftest/regressions -o -path tests/kernels_unseen \
                  -o -path bench/unseen -o -path bench/generated \) -prune -o \
               -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) \
               -print0 | sort -z | sed -z "s|^|$src/|")
    [ "$checked" -ge 50 ] || { echo "error: only $checked source files found under $src" >&2; status=1; }
    echo "checked $checked source files"
    ;;
  *)
    echo "format_check.sh: unknown mode '$mode'" >&2
    exit 2
    ;;
esac
exit $status
