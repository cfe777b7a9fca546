#!/usr/bin/env bash
# Phase `sim-generate` (HERE): the programs of the `sim` phase (issues 24 and 25 on the GPU:
# periodic boundaries, the l2 norm, snapshots, checkpoints on the 16384^2 Jacobi; issue 26's
# tuned work-group shapes on acoustic and heat 512^3 and Jacobi 16384^2) into
# bench/generated/sim/ (carried): cuda-NAME/ the CUDA trees (built on the GPU machine), opencl/
# the OpenCL programs built here with the libraries they need that a bare image lacks (the ICD
# loader, HDF5) in opencl/lib/.
# Usage: bench/run.sh sim-generate [BUILD_DIR]   (a built stepgen tree; default build)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
build=${1:-$root/build}
s=$gen/sim
rm -rf "$s"
mkdir -p "$s/opencl/bin" "$s/opencl/lib"
tmp=$(mktemp -d)
specs=("$root/bench/specs/jacobi2d_16384.xml" "$root/bench/specs/acoustic_512.xml" "$root/bench/specs/heat3d_512.xml"
  "$root"/bench/specs/sim/*.xml)
# SIM_QUICK=1: only what `SIM_QUICK=1 bench/run.sh sim` runs.
[ "${SIM_QUICK:-0}" = 1 ] && specs=("$root/bench/specs/jacobi2d_16384.xml" "$root/bench/specs/sim/jacobi_periodic.xml"
  "$root/bench/specs/sim/jacobi_output.xml")
# SIM_CADENCE=only: only what `SIM_CADENCE=only bench/run.sh sim` runs (the output cadence rows).
[ "${SIM_CADENCE:-}" = only ] && specs=("$root/bench/specs/jacobi2d_16384.xml" "$root/bench/specs/sim/jacobi_output_e1000.xml"
  "$root/bench/specs/sim/jacobi_output_e500.xml")
for spec in "${specs[@]}"; do
  name=$(basename "$spec" .xml)
  # SIM_ONLY="NAME ...": only those specs (e.g. the `l2cost` phase's two).
  if [ -n "${SIM_ONLY:-}" ] && [[ " $SIM_ONLY " != *" $name "* ]]; then continue; fi
  # A spec this stepgen cannot generate (a feature not yet there) is skipped: `sim` says "not built".
  if ! "$build/stepgen" generate "$spec" --target cuda -o "$s/cuda-$name" >/dev/null 2>"$tmp/err" ||
    ! "$build/stepgen" generate "$spec" --target opencl -o "$tmp/$name" >/dev/null 2>"$tmp/err"; then
    rm -rf "$s/cuda-$name"
    echo "skipped $name: $(head -1 "$tmp/err")"
    continue
  fi
  cmake -S "$tmp/$name" -B "$tmp/$name/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$tmp/$name/build" -j 2 >/dev/null
  cp "$tmp/$name/build/$name" "$s/opencl/bin/"
  echo "generated sim/cuda-$name, built sim/opencl/bin/$name"
done
# The shared libraries of the OpenCL programs that are not in a bare image: the ICD loader and
# HDF5 with what it needs.
for lib in $(ldd "$s"/opencl/bin/* | awk '/=> \// {print $3}' | sort -u | grep -E 'libOpenCL|hdf5|libsz|libaec|libcurl|libnghttp|librtmp|libssh|libpsl|libbrotli|libidn|liblber|libldap|libsasl|libgssapi|libkrb5|libk5crypto|libkeyutils|libcom_err|libunistring'); do
  cp -L "$lib" "$s/opencl/lib/"
done
rm -rf "$tmp"
du -sh "$s"
