#!/usr/bin/env bash
# Phase `blocks` (GPU machine): the launch geometry of the unmodified acoustic kernel
# (bench/cuda/acoustic_blocks.cu: block shapes swept in core, each checked bit for bit against
# the first), built with the hand-written baselines into $WORK/hand.
# Usage: bench/run.sh blocks [NX NY NZ STEPS REPS] [BXxBYxBZ...]   (default 1160^3, 24 steps, 3 reps)
set -u
. "$(dirname "$0")/lib.sh"
mkdir -p "$out" "$work"
if [ ! -x "$work/hand/acoustic_blocks" ]; then
  JOBS=4 bash "$root/bench/cuda/build.sh" "$work/hand" "${CUDA_ARCH:-native}" >"$out/build-handwritten.log" 2>&1
  [ -x "$work/hand/acoustic_blocks" ] || { echo "blocks: acoustic_blocks did not build"; tail -20 "$out/build-handwritten.log"; exit 1; }
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee "$out/machine.txt"
echo
"$work/hand/acoustic_blocks" "$@" | tee "$out/blocks.log"
