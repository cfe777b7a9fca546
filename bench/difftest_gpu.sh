#!/usr/bin/env bash
# Old name, kept for a while: `difftest_gpu.sh generate N SEED [NOCL] [NMPI]` is
# `bench/run.sh difftest-generate N SEED [NOCL] [NMPI]`, `difftest_gpu.sh run` is
# `bench/run.sh difftest` (bench/phases/difftest.sh).
case ${1:-} in
  generate) shift; exec bash "$(dirname "$0")/run.sh" difftest-generate "$@" ;;
  run) exec bash "$(dirname "$0")/run.sh" difftest ;;
  *) echo "usage: $0 generate N SEED [NOCL] [NMPI] | run   (now: bench/run.sh difftest-generate ... | difftest)" >&2; exit 2 ;;
esac
