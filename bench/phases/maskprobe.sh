#!/usr/bin/env bash
# Phases `maskprobe-generate` and `maskprobe`: the kernel probe on a kernel with a land/sea mask,
# on the GPU (CUDA). bench/unseen/maskprobe/sw.xml (a user test's 2D shallow-water kernel: cells
# whose uchar mask is not 0 are copied, the others read their four neighbours of h, hu, hv) and
# a copy whose halo of h lacks (0,-1) and (0,1). The probe fills integer arrays with 1..7, so
# it never took the sea branch and let that copy run, silently wrong on several devices; it now
# runs such kernels again with integer arrays at 0 (runtime probe.hpp). CI checks it on PoCL
# (tests/runtime/probe_test.cpp); the CUDA programs probe on the GPU at start-up, seen here.
#
#   bench/run.sh maskprobe-generate   HERE: both CUDA trees and the OpenCL program's run on PoCL
#                                     (h, hu, hv: the expected bits) into bench/generated/maskprobe
#   bench/run.sh maskprobe            ON THE GPU MACHINE: builds both; the undersized copy must
#                                     stop at start-up naming h's offsets (0,-1) and (0,1); the
#                                     right one, in core and out of core, must save PoCL's bits
set -u
. "$(dirname "$0")/lib.sh"
gen=$gen/maskprobe
src=$root/bench/unseen/maskprobe

if [ "${1:-}" = generate ]; then
  set -e
  stepgen=$(find_stepgen)
  rm -rf "$gen"
  mkdir -p "$gen/good" "$gen/bad" "$gen/pocl"
  cp "$src"/sw.xml "$src"/sw.cl "$src"/sw.cu "$gen/good/"
  cp "$src"/sw.cl "$src"/sw.cu "$gen/bad/"
  sed 's|<arg array="h"  access="read" halo="-1,0 1,0 0,-1 0,1"/>|<arg array="h"  access="read" halo="-1,0 1,0"/>|' \
    "$src/sw.xml" >"$gen/bad/sw.xml"
  ! cmp -s "$gen/good/sw.xml" "$gen/bad/sw.xml"
  "$stepgen" generate "$gen/good/sw.xml" --target cuda -o "$gen/cuda-good" >/dev/null
  "$stepgen" generate "$gen/bad/sw.xml" --target cuda -o "$gen/cuda-bad" >/dev/null
  "$stepgen" generate "$gen/good/sw.xml" --target opencl -o "$gen/ocl" >/dev/null
  cmake -S "$gen/ocl" -B "$gen/ocl/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$gen/ocl/build" -j 2 >/dev/null
  (cd "$gen/pocl" && POCL_DEVICES=pthread "$gen/ocl/build/sw" --device-type cpu --save h=h.raw \
     --save hu=hu.raw --save hv=hv.raw >log.txt 2>&1)
  rm -rf "$gen/ocl"
  echo "generated $gen"
  exit 0
fi

mkdir -p "$out"
w=$work/maskprobe
rm -rf "$w"
mkdir -p "$w"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
status=0
rows=()
build_cuda_tree "$gen/cuda-good" "$w/good" &
build_cuda_tree "$gen/cuda-bad" "$w/bad" &
wait
# The undersized halo: refused at start-up, naming both offsets.
mkdir -p "$w/run-bad"
(cd "$w/run-bad" && "$w/bad/sw" >log.txt 2>&1)
rc=$?
cp "$w/run-bad/log.txt" "$out/bad.log" 2>/dev/null
if [ $rc -ne 0 ] && grep -q "reads array 'h' at offsets (0,-1) and (0,1), outside its declared halo" "$w/run-bad/log.txt"; then
  rows+=("| bad halo (h lacks (0,-1), (0,1)) | refused at start-up (exit $rc), both offsets named |")
else
  rows+=("| bad halo (h lacks (0,-1), (0,1)) | FAIL: exit $rc, not refused as expected |"); status=1
fi
# The right halo: in core and out of core, PoCL's bits.
for mode in incore ooc; do
  args=()
  [ $mode = ooc ] && args=(--out-of-core on --ooc-chunks 3 --steps-per-pass 1)
  d=$w/run-$mode
  mkdir -p "$d"
  (cd "$d" && "$w/good/sw" "${args[@]}" --save h=h.raw --save hu=hu.raw --save hv=hv.raw >log.txt 2>&1)
  rc=$?
  cp "$d/log.txt" "$out/$mode.log" 2>/dev/null
  same=yes
  for a in h hu hv; do cmp -s "$d/$a.raw" "$gen/pocl/$a.raw" || same=no; done
  if [ $rc -eq 0 ] && [ $same = yes ]; then
    rows+=("| right halo, $mode | exit 0, h hu hv PoCL's bits; $(grep -o 'stopped at step [0-9]*' "$d/log.txt" || echo 'ran every step') |")
  else
    rows+=("| right halo, $mode | FAIL: exit $rc, bits as PoCL's: $same |"); status=1
  fi
done
echo
echo "| run (CUDA) | result |"
echo "| --- | --- |"
printf '%s\n' "${rows[@]}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
exit $status
