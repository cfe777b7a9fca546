#!/usr/bin/env bash
# scripts/check_sizes.py over the checkout (no file of runtime/ or generator/ over 800 lines, no
# function over 150), and over made-up trees that must fail: a function of 151 lines (braces in
# comments, strings and default arguments not counted), a file of 801.
set -euo pipefail
root=$1
check=$root/scripts/check_sizes.py
python3 "$check" "$root"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/runtime"
function_of() {  # a function of $1 lines (its template line the first), with braces that are not blocks inside
  echo "namespace n {"
  echo "template <class T>"
  echo "int f$1(int a, const std::vector<int>& v = {}) {"
  for ((k = 0; k < $1 - 5; ++k)); do echo "  a += 1;  // } {"; done
  echo "  const char* s = \"}}\"; (void)s;"
  echo "  return a;"
  echo "}"
  echo "}  // namespace n"
}
function_of 150 > "$tmp/runtime/ok.hpp"
python3 "$check" "$tmp" > "$tmp/out" || { cat "$tmp/out"; echo "150 lines refused"; exit 1; }
function_of 151 > "$tmp/runtime/long.hpp"
if python3 "$check" "$tmp" > "$tmp/out"; then cat "$tmp/out"; echo "151 lines passed"; exit 1; fi
grep -q "runtime/long.hpp:2: f151 is 151 lines (at most 150)" "$tmp/out" || { cat "$tmp/out"; exit 1; }
rm "$tmp/runtime/long.hpp"
for ((k = 0; k < 801; ++k)); do echo "int v$k = $k;"; done > "$tmp/runtime/big.cpp"
if python3 "$check" "$tmp" > "$tmp/out"; then cat "$tmp/out"; echo "801 lines passed"; exit 1; fi
grep -q "runtime/big.cpp: 801 lines (at most 800)" "$tmp/out" || { cat "$tmp/out"; exit 1; }
echo "sizes: the checkout within the limits; 151-line function and 801-line file refused"
