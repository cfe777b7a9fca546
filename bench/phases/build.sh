#!/usr/bin/env bash
# Phase `build` (GPU machine, after the `generate` phase here; carry bench/generated): builds, in
# parallel, every carried CUDA program (bench/generated/cuda-*, bench/*, mpi-cuda/*) into
# $WORK/build-NAME (MPI: build-mpi-NAME), the serial references into $WORK/ref and the hand-
# written CUDA baselines into $WORK/hand, so that the phases after it in the same machine session
# only run (each builds what it lacks otherwise). Prints what failed last.
# Usage: bench/run.sh build   (CUDA_ARCH: default native)
set -u
. "$(dirname "$0")/lib.sh"
mkdir -p "$out" "$work"
start=$SECONDS
names=()
for t in "$gen"/cuda-*/ "$gen"/bench/cuda-*/; do [ -d "$t" ] && { t=${t%/}; names+=("${t##*/cuda-}"); }; done
for t in "$gen"/mpi-cuda/*/; do [ -d "$t" ] && { t=${t%/}; names+=("mpi-${t##*/}"); }; done
[ ${#names[@]} -gt 0 ] || { echo "build: no generated trees in $gen (run bench/run.sh generate here)"; exit 1; }
(build_references || echo "FAILED: the serial references (ref-build.log)") &
(JOBS=4 bash "$root/bench/cuda/build.sh" "$work/hand" "${CUDA_ARCH:-native}" >"$out/build-handwritten.log" 2>&1 &&
  touch "$work/hand/complete") &
slots=$(($(nproc) / 2))
[ "$slots" -ge 2 ] || slots=2
for name in "${names[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$slots" ]; do wait -n; done
  build_cuda "$name" 2 &
done
wait
failed=()
for name in "${names[@]}"; do
  [ -x "$work/build-$name/${name#mpi-}" ] || failed+=("$name")
done
echo
echo "== built ${#names[@]} generated programs, the references and the hand-written baselines in $((SECONDS - start)) s"
grep -h FAILED "$out/build-handwritten.log" 2>/dev/null
for name in "${failed[@]}"; do echo "BUILD FAILED: $name"; tail -5 "$out/build-$name.log"; done
[ ${#failed[@]} -eq 0 ]
