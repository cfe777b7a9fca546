#!/usr/bin/env bash
# Phase `tts-generate` (HERE): the programs of the time-to-solution phases `oocauto`,
# `localsweep` and `loadcopy` (issue 26), and nothing else, into bench/generated/tts/ (carried; a few MiB where
# `prepare` makes hundreds):
#   cuda-NAME/    the CUDA trees (built on the GPU machine): jacobi2d_16384, acoustic_512 and
#                 wave2k_512 (oocauto); heat3d_512, acoustic_1160 and the <local size="auto"/>
#                 versions acoustic_512_auto, heat3d_512_auto, jacobi2d_16384_auto,
#                 acoustic_1160_auto (localsweep); jacobi2d_file, A = file(A0.raw) with the file
#                 beside the tree (loadcopy)
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
# loadcopy: jacobi2d with A = file(A0.raw) (the serial reference's A after 3 steps) and B =
# copy(A), CUDA; the file beside the tree (the program runs with --spec-dir there).
mkdir -p "$tmp/fileinit/ref"
cp "$root/examples/jacobi2d/jacobi2d".{cl,cu} "$tmp/fileinit/"
sed 's/init="random(7)"/init="file(A0.raw)"/' "$root/examples/jacobi2d/jacobi2d.xml" >"$tmp/fileinit/jacobi2d_file.xml"
"$build/examples/reference_jacobi2d" --steps 3 --out "$tmp/fileinit/ref" >/dev/null
cp "$tmp/fileinit/ref/A.raw" "$tmp/fileinit/A0.raw"
"$build/stepgen" generate "$tmp/fileinit/jacobi2d_file.xml" --target cuda -o "$t/cuda-jacobi2d_file" >/dev/null
cp "$tmp/fileinit/A0.raw" "$t/cuda-jacobi2d_file/A0.raw"
echo "generated tts/cuda-jacobi2d_file (A = file(A0.raw))"
cp -P /usr/lib/x86_64-linux-gnu/libOpenCL.so.1* "$t/opencl/lib/"
du -sh "$t"
