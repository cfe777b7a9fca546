#!/usr/bin/env bash
# The main job: installs what is missing, builds stepgen, generates the OpenCL host program of
# an example, builds it, and runs it on the devices it finds (two PoCL CPU devices unless
# POCL_DEVICES says otherwise), checking the result against a one-device run.
# Usage: scripts/demo.sh [EXAMPLE]      (default: jacobi2d; see examples/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
example=${1:-jacobi2d}
build=${BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" "$build"

spec="$root/examples/$example/$example.xml"
[ -f "$spec" ] || { echo "demo: no example '$example' (see $root/examples)"; exit 2; }
out="$build/demo/$example-opencl"
echo "== stepgen plan $example (2 devices)"
"$build/stepgen" plan "$spec" --devices 2
echo "== stepgen generate $example"
"$build/stepgen" generate "$spec" --target opencl -o "$out"
cmake -S "$out" -B "$out/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$out/build" -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
echo "== run on every device found, with --verify"
export POCL_DEVICES=${POCL_DEVICES:-"pthread pthread"}
"$out/build/$example" --verify
