#!/usr/bin/env bash
# Old name, kept for a while: `unseen_gpu.sh generate` is `bench/run.sh unseen-generate`,
# `unseen_gpu.sh run` is `bench/run.sh unseen` (bench/phases/unseen.sh).
case ${1:-} in
  generate) exec bash "$(dirname "$0")/run.sh" unseen-generate ;;
  run) exec bash "$(dirname "$0")/run.sh" unseen ;;
  *) echo "usage: $0 generate|run   (now: bench/run.sh unseen-generate | unseen)" >&2; exit 2 ;;
esac
