#!/usr/bin/env bash
# Physical and periodic boundaries against a serial reference: each spec of tests/boundary
# (mirror along x and copy along y; value(0.5) along x and periodic along y; periodic on a wide
# grid that 4 devices split 4x1 under min-exchange; periodic with deep halos, exchanged every 2
# steps; a 13-point kernel
# that reads the frame's corners and two cells past the edge, where mirror and copy differ)
# generated for OpenCL, built, run on 1 and 3 PoCL devices (slabs), on 4 (--strategy
# min-exchange: a 2x2 grid, frames on every side of every part; 4x1 for the wide grid) and on 3
# with STEPGEN_OVERLAP=off; a grid 4 rows high (thin parts: one part 2 frame widths high, two
# slabs 1 frame width high each) on 1 and 2 devices, and on 2 with the frames composed on the
# host (STEPGEN_FRAMES=host, the path MPI ranks keep for a periodic neighbour on another rank);
# A and B must equal the reference bit for bit.
# Usage: kinds_test.sh STEPGEN SOURCE_DIR WORK_DIR REFERENCE_BIN
set -euo pipefail
stepgen=$1 src=$2 work=$3 reference=$4
rm -rf "$work"
mkdir -p "$work"
for case in "mirror_copy mirror copy" "value_periodic value periodic" "periodic_wide periodic periodic 256 16" \
  "periodic_deep periodic periodic" "periodic_thin periodic periodic 64 4"; do
  read -r name kx ky size <<<"$case"
  out="$work/$name"
  mkdir -p "$out/reference"
  "$stepgen" generate "$src/tests/boundary/$name.xml" --target opencl -o "$out/gen" >/dev/null
  cmake -S "$out/gen" -B "$out/gen/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$out/gen/build" -j 2 >/dev/null
  # shellcheck disable=SC2086
  "$reference" "$kx" "$ky" "$out/reference" $size
  runs=("1" "3" "4 --strategy min-exchange" "3 overlap-off")
  if [ "$name" = periodic_thin ]; then runs=("1" "2 --strategy slabs" "2 frames-host"); fi
  for run in "${runs[@]}"; do
    read -r n extra <<<"$run"
    args=()
    env=()
    case "$extra" in
      overlap-off) env=(STEPGEN_OVERLAP=off) ;;
      frames-host) env=(STEPGEN_FRAMES=host) args=(--strategy slabs) ;;
      ?*) read -r -a args <<<"$extra" ;;
    esac
    dir="$out/runs/$n-${extra// /-}"
    mkdir -p "$dir"
    env "${env[@]}" POCL_DEVICES="$(printf 'pthread %.0s' $(seq "$n"))" "$out/gen/build/$name" \
      --device-type cpu --devices "$n" "${args[@]}" --save "A=$dir/A.raw" --save "B=$dir/B.raw" \
      > "$dir/log.txt" 2>&1 || { cat "$dir/log.txt"; echo "FAIL: $name on $n device(s) $extra: the run failed"; exit 1; }
    for a in A B; do
      cmp -s "$dir/$a.raw" "$out/reference/$a.raw" ||
        { cat "$dir/log.txt"; echo "FAIL: $name on $n device(s) $extra: $a differs from the reference"; exit 1; }
    done
    echo "ok: $name ($kx x, $ky y) on $n device(s) $extra ($(grep -o 'grid [0-9x]*' "$dir/log.txt" | head -1)): A and B equal the reference"
  done
done
