#!/usr/bin/env bash
# Phase `prepare` (HERE): the `generate` phase, then the OpenCL programs, built here (the GPU
# image has no OpenCL headers, pugixml or yaml-cpp), into bench/generated/ (carried):
#   opencl/      bin/: the generated OpenCL programs of every example and of jacobi2d_16384
#                (`opencl`), acoustic_1160 and acoustic_1750 (`ooc-opencl`), the hand-written
#                OpenCL Jacobi loop, the exact reductions' benchmark (`reduce`); ref/: the
#                serial references; lib/: the OpenCL ICD loader
#   opencl-mpi/  for `mpi-opencl`: every example's MPI OpenCL program, the 16384^2 Jacobi as an
#                MPI program (jacobi2d_16384_mpi) and as the one-process program, the serial
#                references, the ICD loader, and, in case the MPI binaries cannot run there
#                (another Open MPI build), their generated source trees (src/) and the OpenCL
#                headers (include/) so that the phase can rebuild them there with that MPI.
# Usage: bench/run.sh prepare [BUILD_DIR]   (a built stepgen tree; default build)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
build=${1:-$root/build}
STEPGEN=$build/stepgen bash "$root/bench/phases/generate.sh"

# ---- the one-process OpenCL programs
o=$gen/opencl
tmp=$(mktemp -d)
rm -rf "$o"
mkdir -p "$o/lib" "$o/bin" "$o/ref"
cp -P /usr/lib/x86_64-linux-gnu/libOpenCL.so.1* "$o/lib/"
for dir in "$root"/examples/*/; do
  ex=$(basename "$dir")
  [ -f "$dir/$ex.xml" ] || continue
  "$build/stepgen" generate "$dir/$ex.xml" --target opencl -o "$tmp/$ex" >/dev/null
  cmake -S "$tmp/$ex" -B "$tmp/$ex/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$tmp/$ex/build" -j 2 >/dev/null
  cp "$tmp/$ex/build/$ex" "$o/bin/"
  cp "$build/examples/reference_$ex" "$o/ref/"
done
# The benchmarks: Jacobi 16384^2 (`opencl`), acoustic 1160^3 and 1750^3 out of core (`ooc-opencl`).
for name in jacobi2d_16384 acoustic_1160 acoustic_1750; do
  "$build/stepgen" generate "$root/bench/specs/$name.xml" --target opencl -o "$tmp/$name" >/dev/null
  cmake -S "$tmp/$name" -B "$tmp/$name/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$tmp/$name/build" -j 2 >/dev/null
  cp "$tmp/$name/build/$name" "$o/bin/"
done
g++ -O2 -std=c++17 -Wall -Wextra -Werror -I "$root/runtime/include" "$root/bench/opencl/handwritten_jacobi2d.cpp" \
  -lOpenCL -o "$o/bin/handwritten_jacobi2d"
# The exact device reductions' OpenCL benchmark (`reduce`), with the runtime's kernels as headers.
cmake -DOUT_DIR="$tmp/kernels" -P "$root/cmake/runtime_kernels.cmake"
g++ -O2 -std=c++17 -Wall -Wextra -Werror -I "$root/runtime/include" -I "$tmp/kernels" "$root/bench/reduce/reduce_opencl.cpp" \
  -lOpenCL -o "$o/bin/reduce_opencl"
rm -rf "$tmp"
du -sh "$o"

# ---- the MPI OpenCL programs
o=$gen/opencl-mpi
rm -rf "$o"
mkdir -p "$o/lib" "$o/bin" "$o/ref" "$o/src" "$o/include"
cp -P /usr/lib/x86_64-linux-gnu/libOpenCL.so.1* "$o/lib/"
cp -r /usr/include/CL "$o/include/"
gen_mpi() {  # gen_mpi SPEC NAME DISTRIBUTION: generate into src/NAME, build, copy the binary to bin/NAME
  local spec=$1 name=$2 dist=$3 prog
  prog=$(basename "$spec" .xml)
  "$build/stepgen" generate "$spec" --target opencl --distribution "$dist" -o "$o/src/$name" >/dev/null
  cmake -S "$o/src/$name" -B "$o/src/$name/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$o/src/$name/build" -j 2 >/dev/null
  cp "$o/src/$name/build/$prog" "$o/bin/$name"
  rm -rf "$o/src/$name/build"
}
for dir in "$root"/examples/*/; do
  ex=$(basename "$dir")
  [ -f "$dir/$ex.xml" ] || continue
  gen_mpi "$dir/$ex.xml" "$ex" mpi
  cp "$build/examples/reference_$ex" "$o/ref/"
done
gen_mpi "$root/bench/specs/jacobi2d_16384.xml" jacobi2d_16384_mpi mpi
gen_mpi "$root/bench/specs/jacobi2d_16384.xml" jacobi2d_16384 none
echo "built with: $(mpirun --version | head -1)"
du -sh "$o"
