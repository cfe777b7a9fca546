#!/usr/bin/env bash
# Builds, on this machine, everything the GPU check needs, into .gpu/ (ignored by git, carried
# to the device machine, whose image has no OpenCL headers, pugixml or yaml-cpp):
# the generated OpenCL programs of every example and of the benchmark specs, the serial
# references, the hand-written baseline and the OpenCL ICD loader library.
# Usage: bench/prepare_gpu.sh [BUILD_DIR]   (a built stepgen tree; default build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=$root/.gpu
gen=$(mktemp -d)
rm -rf "$out"
mkdir -p "$out/lib" "$out/bin" "$out/ref"
cp -P /usr/lib/x86_64-linux-gnu/libOpenCL.so.1* "$out/lib/"
for dir in "$root"/examples/*/; do
  ex=$(basename "$dir")
  [ -f "$dir/$ex.xml" ] || continue
  "$build/stepgen" generate "$dir/$ex.xml" --target opencl -o "$gen/$ex" >/dev/null
  cmake -S "$gen/$ex" -B "$gen/$ex/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$gen/$ex/build" -j 2 >/dev/null
  cp "$gen/$ex/build/$ex" "$out/bin/"
  cp "$build/examples/reference_$ex" "$out/ref/"
done
# The benchmarks: Jacobi 16384^2 (bench/opencl_gpu.sh), acoustic 1160^3 and 1750^3 out of core
# (bench/ooc_opencl_gpu.sh).
for name in jacobi2d_16384 acoustic_1160 acoustic_1750; do
  "$build/stepgen" generate "$root/bench/specs/$name.xml" --target opencl -o "$gen/$name" >/dev/null
  cmake -S "$gen/$name" -B "$gen/$name/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$gen/$name/build" -j 2 >/dev/null
  cp "$gen/$name/build/$name" "$out/bin/"
done
g++ -O2 -std=c++17 -Wall -Wextra -Werror -I "$root/runtime/include" "$root/bench/opencl/handwritten_jacobi2d.cpp" \
  -lOpenCL -o "$out/bin/handwritten_jacobi2d"
rm -rf "$gen"
du -sh "$out"
