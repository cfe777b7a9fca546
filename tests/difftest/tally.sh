#!/usr/bin/env bash
# Tally of DIFFTEST_SUMMARY files (one line per program: NAME... PASS|FAIL MODE...):
# programs, passed, failed, modes run besides the references, modes refused as infeasible.
# Usage: tests/difftest/tally.sh SUMMARY...
awk '{
  for (i = 1; i <= NF; i++) if ($i == "PASS" || $i == "FAIL") break
  programs++; if ($i == "PASS") passed++; else failed++
  for (j = i + 1; j <= NF; j++) {
    if ($j == "ref") { refs++; continue }
    modes++
    if ($j ~ /\(skip\)$/) refused++
  }
} END {
  printf "programs %d (passed %d, failed %d), references %d, modes %d (refused as infeasible %d, compared %d)\n",
    programs, passed, failed, refs, modes, refused, modes - refused
}' "$@"
