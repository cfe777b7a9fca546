#!/usr/bin/env bash
# Phase `tts-generate` (HERE): the programs of the time-to-solution phases `oocauto` and
# `localsweep` (issue 26), and nothing else, into bench/generated/tts/ (carried; a few MiB where
# `prepare` makes hundreds):
#   cuda-NAME/    the CUDA trees (built on the GPU machine): jacobi2d_16384, acoustic_512 and
#                 wave2k_512 (oocauto); heat3d_512, acoustic_1160 and the <local size="auto"/>
#                 versions acoustic_512_auto, heat3d_512_auto, jacobi2d_16384_auto,
#                 acoustic_1160_auto (localsweep)
#   opencl/bin/   the same programs for OpenCL, built here (the GPU image has no OpenCL headers),
#                 except the 1160^3 ones unless TTS_OPENCL_1160=1 (localsweep then runs their
#                 fixed, auto and noretune rows through OpenCL too); opencl/lib/: the ICD loader
# TTS_OPENCL=0: the CUDA trees only.
# Usage: bench/run.sh tts-generate [BUILD_DIR]   (a built stepgen tree; default build)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
build=${1:-$root/build}
t=$gen/tts
rm -rf "$t"
mkdir -p "$t/opencl/bin" "$t/opencl/lib"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
s=$root/bench/specs
specs=("$s/jacobi2d_16384.xml" "$s/acoustic_512.xml" "$root/bench/unseen/wave2k_512/wave2k_512.xml"
  "$s/heat3d_512.xml" "$s/sim/acoustic_512_auto.xml" "$s/sim/heat3d_512_auto.xml"
  "$s/sim/jacobi2d_16384_auto.xml" "$s/acoustic_1160.xml" "$s/tts/acoustic_1160_auto.xml")
for spec in "${specs[@]}"; do
  name=$(basename "$spec" .xml)
  "$build/stepgen" generate "$spec" --target cuda -o "$t/cuda-$name" >/dev/null
  echo "generated tts/cuda-$name"
  [ "${TTS_OPENCL:-1}" = 1 ] || continue
  case $name in acoustic_1160*) [ "${TTS_OPENCL_1160:-0}" = 1 ] || continue ;; esac
  "$build/stepgen" generate "$spec" --target opencl -o "$tmp/$name" >/dev/null
  cmake -S "$tmp/$name" -B "$tmp/$name/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$tmp/$name/build" -j 2 >/dev/null
  cp "$tmp/$name/build/$name" "$t/opencl/bin/"
  echo "built tts/opencl/bin/$name"
done
cp -P /usr/lib/x86_64-linux-gnu/libOpenCL.so.1* "$t/opencl/lib/"
du -sh "$t"
