#!/usr/bin/env bash
# Builds, on this machine, what bench/mpi_gpu.sh needs on the GPU machine, into .gpu/mpi/ (under
# the ignored .gpu/, carried there; the rest of .gpu/ is left alone): every example's MPI OpenCL
# program, the 16384^2 Jacobi as an MPI program and as the one-process multi-device program,
# the serial references, the OpenCL ICD loader, and, in case the MPI binaries cannot run there
# (another Open MPI build), their generated source trees and the OpenCL headers so that
# bench/mpi_gpu.sh can rebuild them there with that machine's MPI.
# Usage: bench/prepare_mpi_gpu.sh [BUILD_DIR]   (a built stepgen tree; default build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=$root/.gpu/mpi
rm -rf "$out"
mkdir -p "$out/lib" "$out/bin" "$out/ref" "$out/src" "$out/include"
cp -P /usr/lib/x86_64-linux-gnu/libOpenCL.so.1* "$out/lib/"
cp -r /usr/include/CL "$out/include/"
gen() {  # gen SPEC NAME DISTRIBUTION: generate into src/NAME, build, copy the binary to bin/NAME
  local spec=$1 name=$2 dist=$3 prog
  prog=$(basename "$spec" .xml)
  "$build/stepgen" generate "$spec" --target opencl --distribution "$dist" -o "$out/src/$name" >/dev/null
  cmake -S "$out/src/$name" -B "$out/src/$name/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$out/src/$name/build" -j 2 >/dev/null
  cp "$out/src/$name/build/$prog" "$out/bin/$name"
  rm -rf "$out/src/$name/build"
}
for dir in "$root"/examples/*/; do
  ex=$(basename "$dir")
  [ -f "$dir/$ex.xml" ] || continue
  gen "$dir/$ex.xml" "$ex" mpi
  cp "$build/examples/reference_$ex" "$out/ref/"
done
gen "$root/bench/specs/jacobi2d_16384.xml" jacobi2d_16384_mpi mpi
gen "$root/bench/specs/jacobi2d_16384.xml" jacobi2d_16384 none
echo "built with: $(mpirun --version | head -1)"
du -sh "$out"
