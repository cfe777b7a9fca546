#!/usr/bin/env bash
# Phases `maskprobe-generate` and `maskprobe`: the kernel probe on kernels whose reads depend on
# the values, on the GPU (CUDA), each with its right spec and a copy whose halo lacks the
# points read only in the branch the probe's first values never take:
#   - mask: bench/unseen/maskprobe/sw.xml, a 2D shallow-water kernel written for one device; cells whose
#     uchar mask is not 0 are copied, the others read their four neighbours of h, hu, hv. The
#     copy's h lacks (0,-1) and (0,1). The probe fills integer arrays with 1..7, so it never took
#     the sea branch and let that copy run, silently wrong on several devices; it now runs such
#     kernels again with integer arrays at 0 (runtime probe.hpp).
#   - upwind: bench/unseen/upwind/up.xml, upwind advection along y by a velocity of both signs (u - 0.5);
#     the copy's q lacks (0,1). The probe's floating values are in [1, 2), every velocity was
#     positive; it now runs such kernels again with the floating values negated.
# CI checks both on PoCL (tests/runtime/probe_test.cpp); the CUDA programs probe on the GPU at
# start-up, seen here.
#
#   bench/run.sh maskprobe-generate   HERE: the CUDA trees and the OpenCL programs' runs on PoCL
#                                     (the expected bits) into bench/generated/maskprobe
#   bench/run.sh maskprobe            ON THE GPU MACHINE: builds them; each undersized copy must
#                                     stop at start-up naming the offsets it lacks; each right
#                                     one, in core and out of core, must save PoCL's bits
set -u
. "$(dirname "$0")/lib.sh"
gen=$gen/maskprobe
src=$root/bench/unseen/maskprobe

# The cases: name, folder under bench/unseen, spec, program, the halo attribute and its
# undersized copy, the error the probe must give, the arrays compared.
cases=(mask upwind)
declare -A dir=([mask]=maskprobe [upwind]=upwind)
declare -A spec=([mask]=sw [upwind]=up)
declare -A good=([mask]='<arg array="h"  access="read" halo="-1,0 1,0 0,-1 0,1"/>'
                 [upwind]='<arg array="q"  access="read" halo="0,-1 0,1"/>')
declare -A bad=([mask]='<arg array="h"  access="read" halo="-1,0 1,0"/>'
                [upwind]='<arg array="q"  access="read" halo="0,-1"/>')
declare -A error=([mask]="reads array 'h' at offsets (0,-1) and (0,1), outside its declared halo"
                  [upwind]="reads array 'q' at offset (0,1), outside its declared halo")
declare -A arrays=([mask]="h hu hv" [upwind]="q")

if [ "${1:-}" = generate ]; then
  set -e
  stepgen=$(find_stepgen)
  rm -rf "$gen"
  for c in "${cases[@]}"; do
    g=$gen/$c s=${spec[$c]}
    mkdir -p "$g/good" "$g/bad" "$g/pocl"
    cp "$root/bench/unseen/${dir[$c]}/$s".* "$g/good/"
    cp "$root/bench/unseen/${dir[$c]}/$s".cl "$root/bench/unseen/${dir[$c]}/$s".cu "$g/bad/"
    grep -qF "${good[$c]}" "$g/good/$s.xml"
    sed "s|${good[$c]}|${bad[$c]}|" "$g/good/$s.xml" >"$g/bad/$s.xml"
    ! cmp -s "$g/good/$s.xml" "$g/bad/$s.xml"
    "$stepgen" generate "$g/good/$s.xml" --target cuda -o "$g/cuda-good" >/dev/null
    "$stepgen" generate "$g/bad/$s.xml" --target cuda -o "$g/cuda-bad" >/dev/null
    "$stepgen" generate "$g/good/$s.xml" --target opencl -o "$g/ocl" >/dev/null
    cmake -S "$g/ocl" -B "$g/ocl/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$g/ocl/build" -j 2 >/dev/null
    saves=()
    for a in ${arrays[$c]}; do saves+=(--save "$a=$a.raw"); done
    (cd "$g/pocl" && POCL_DEVICES=pthread "$g/ocl/build/$s" --device-type cpu "${saves[@]}" >log.txt 2>&1)
    rm -rf "$g/ocl"
  done
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
for c in "${cases[@]}"; do
  mkdir -p "$w/$c"
  build_cuda_tree "$gen/$c/cuda-good" "$w/$c/good" &
  build_cuda_tree "$gen/$c/cuda-bad" "$w/$c/bad" &
done
wait
for c in "${cases[@]}"; do
  s=${spec[$c]}
  # The undersized halo: refused at start-up, naming the offsets.
  mkdir -p "$w/$c/run-bad"
  (cd "$w/$c/run-bad" && "$w/$c/bad/$s" >log.txt 2>&1)
  rc=$?
  cp "$w/$c/run-bad/log.txt" "$out/$c-bad.log" 2>/dev/null
  if [ $rc -ne 0 ] && grep -qF "${error[$c]}" "$w/$c/run-bad/log.txt"; then
    rows+=("| $c, bad halo (${bad[$c]//|/}) | refused at start-up (exit $rc): ${error[$c]} |")
  else
    rows+=("| $c, bad halo | FAIL: exit $rc, not refused as expected |"); status=1
  fi
  # The right halo: in core and out of core, PoCL's bits.
  saves=()
  for a in ${arrays[$c]}; do saves+=(--save "$a=$a.raw"); done
  for mode in incore ooc; do
    args=()
    [ $mode = ooc ] && args=(--out-of-core on --ooc-chunks 3 --steps-per-pass 1)
    d=$w/$c/run-$mode
    mkdir -p "$d"
    (cd "$d" && "$w/$c/good/$s" "${args[@]}" "${saves[@]}" >log.txt 2>&1)
    rc=$?
    cp "$d/log.txt" "$out/$c-$mode.log" 2>/dev/null
    same=yes
    for a in ${arrays[$c]}; do cmp -s "$d/$a.raw" "$gen/$c/pocl/$a.raw" || same=no; done
    if [ $rc -eq 0 ] && [ $same = yes ]; then
      rows+=("| $c, right halo, $mode | exit 0, ${arrays[$c]}: PoCL's bits; $(grep -o 'stopped at step [0-9]*' "$d/log.txt" || echo 'ran every step') |")
    else
      rows+=("| $c, right halo, $mode | FAIL: exit $rc, bits as PoCL's: $same |"); status=1
    fi
  done
done
echo
echo "| run (CUDA) | result |"
echo "| --- | --- |"
printf '%s\n' "${rows[@]}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
exit $status
