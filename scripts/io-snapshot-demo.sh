#!/usr/bin/env bash
# Renders docs/io-snapshot.png: the acoustic example's kernel (examples/acoustic) on a 96x96x40
# grid from a Gaussian pulse (a file() initial value), an <output> every 30 steps to an HDF5
# file, the last snapshot's middle z plane drawn by scripts/render-snapshot.py (matplotlib).
# Usage: scripts/io-snapshot-demo.sh [STEPGEN] [OUT.png]   (default: build/stepgen, docs/io-snapshot.png)
# Runs on the first OpenCL device (PoCL's CPU device will do: POCL_DEVICES=pthread).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
stepgen=${1:-$root/build/stepgen}
png=${2:-$root/docs/io-snapshot.png}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/spec"
cp "$root/examples/acoustic/acoustic.cl" "$root/examples/acoustic/acoustic.cu" "$work/spec/"
/usr/bin/python3 - "$work/spec/pulse.raw" <<'PY'
import sys
import numpy as np
z, y, x = np.meshgrid(np.arange(40), np.arange(96), np.arange(96), indexing="ij")
r2 = (x - 40.0) ** 2 + (y - 52.0) ** 2 + (z - 20.0) ** 2
np.exp(-r2 / 12.0).astype("<f4").tofile(sys.argv[1])
PY
cat > "$work/spec/pulse.xml" <<'XML'
<stencil name="pulse">
  <array name="p0" type="float" size="96 96 40" init="file(pulse.raw)"/>
  <array name="p1" type="float" size="96 96 40" init="copy(p0)"/>
  <array name="p2" type="float" size="96 96 40" init="copy(p0)"/>
  <array name="vel" type="float" size="96 96 40" init="value(1.0)"/>
  <kernel name="acoustic" source="acoustic.cl" cuda-source="acoustic.cu">
    <arg array="p0" access="read"/>
    <arg array="p1" access="read" halo="-4,0,0 -3,0,0 -2,0,0 -1,0,0 1,0,0 2,0,0 3,0,0 4,0,0
                                        0,-4,0 0,-3,0 0,-2,0 0,-1,0 0,1,0 0,2,0 0,3,0 0,4,0
                                        0,0,-4 0,0,-3 0,0,-2 0,0,-1 0,0,1 0,0,2 0,0,3 0,0,4"/>
    <arg array="vel" access="read"/>
    <arg array="p2" access="write"/>
    <arg scalar="int" value="extent(p1,0)"/>
    <arg scalar="int" value="extent(p1,1)"/>
    <arg scalar="int" value="extent(p1,2)"/>
    <global size="round_up(extent(p1,0), 16) round_up(extent(p1,1), 16) extent(p1,2)"/>
    <local size="16 16 1"/>
  </kernel>
  <output arrays="p1" every="30" file="snap/pulse.h5" first="true"/>
  <iterate steps="90">
    <launch kernel="acoustic"/>
    <rotate arrays="p0 p1 p2"/>
  </iterate>
</stencil>
XML
"$stepgen" generate "$work/spec/pulse.xml" --target opencl -o "$work/gen" >/dev/null
cmake -S "$work/gen" -B "$work/gen/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/gen/build" -j 2 >/dev/null
mkdir -p "$work/run"
(cd "$work/run" && "$work/gen/build/pulse" --devices 1 --quiet)
(cd "$work/run" && /usr/bin/python3 "$root/scripts/render-snapshot.py" snap/pulse.h5 p1 "$png")
