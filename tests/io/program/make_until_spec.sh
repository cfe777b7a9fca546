#!/usr/bin/env bash
# Makes the `until` variant of wave.xml: the same program stopped by an `until` after step 8 (a
# reduction `n`, linf of p2, computed every step, and `step >= 8`), for the io program test
# (tests/io/program_test.sh) and the GPU phase `untilstop` (bench/phases/untilstop.sh).
# Usage: make_until_spec.sh SPEC_DIR OUT_DIR   (SPEC_DIR: wave.xml, its kernels and data/)
set -euo pipefail
from=$1 to=$2
mkdir -p "$to"
cp -r "$from"/. "$to"/
sed -e 's|<iterate steps="14">|<iterate steps="14" until="n \&gt; 0 \&amp;\&amp; step \&gt;= 8">|' \
    -e 's|    <rotate arrays="p0 p1 p2"/>|    <reduce name="n" op="linf" array="p2"/>\n    <rotate arrays="p0 p1 p2"/>|' \
    "$from/wave.xml" >"$to/wave.xml"
grep -q 'until=' "$to/wave.xml" && grep -q '<reduce name="n"' "$to/wave.xml" ||
  { echo "make_until_spec: the until spec was not made from $from/wave.xml" >&2; exit 1; }
