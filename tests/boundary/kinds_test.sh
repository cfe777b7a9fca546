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
# host (STEPGEN_FRAMES=host, the path MPI ranks keep for a periodic neighbour on another rank),
# and on 1 with a rectangular copy per frame box instead of the copy kernel (STEPGEN_FRAMES=rect);
# sources at the edge (mirror_copy_inject: the frame images get the value too); out of core on
# 1 and 2 devices with 1, 2 and 3 steps per pass (mirror, copy and value frames refilled on the
# device between the steps); mirror_copy_twice (two launches a step, the second reading past
# the edge what the first wrote) in and out of core, its MPI program out of core on 2 ranks,
# its CUDA program out of core on the CPU emulation (tests/cuda_emu); A and B must equal the
# reference bit for bit.
# Usage: kinds_test.sh STEPGEN SOURCE_DIR WORK_DIR REFERENCE_BIN
set -euo pipefail
stepgen=$1 src=$2 work=$3 reference=$4
rm -rf "$work"
mkdir -p "$work"
# The programs' host code at -O0 (tests/build_program.sh): the frames' logic is what is checked
# here, on PoCL; 8 builds at -O3 cost CI 2 minutes; some e2e tests build at -O3.
source "$src/tests/build_program.sh"
# (mirror_copy_inject.xml: mirror and copy frames, with sources at the edge; one spec where
# there were two, a program build each costs CI ~10 s.)
for case in "value_periodic value periodic" "periodic_wide periodic periodic 256 16" \
  "periodic_deep periodic periodic" "mirror_copy_inject mirror copy" \
  "periodic_thin periodic periodic 64 4"; do
  read -r name kx ky size <<<"$case"
  out="$work/$name"
  mkdir -p "$out/reference"
  "$stepgen" generate "$src/tests/boundary/$name.xml" --target opencl -o "$out/gen" >/dev/null
  build_program "$out/gen"
  ref_env=()
  [ "${name%_inject}" != "$name" ] && ref_env=(STEPGEN_REF_INJECT=1)  # the spec's sources
  # shellcheck disable=SC2086
  env "${ref_env[@]}" "$reference" "$kx" "$ky" "$out/reference" $size
  runs=("1" "3" "4 --strategy min-exchange" "3 overlap-off")
  if [ "$name" = periodic_thin ]; then runs=("1" "2 --strategy slabs" "2 frames-host" "1 frames-rect"); fi
  for run in "${runs[@]}"; do
    read -r n extra <<<"$run"
    args=()
    env=()
    case "$extra" in
      overlap-off) env=(STEPGEN_OVERLAP=off) ;;
      frames-host) env=(STEPGEN_FRAMES=host) args=(--strategy slabs) ;;
      frames-rect) env=(STEPGEN_FRAMES=rect) ;;  # OpenCL: a rectangular copy per frame box
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
  # Out of core (the frames past the grid's edge loaded with the chunks, y the chunked
  # dimension): 1 step per pass on 2 devices in 3 chunks; 3 steps per pass on 1 device and 2
  # on 2 with mirror, copy or value (the chunks refill those frames on the device after each
  # launch), 3 with only periodic boundaries (the chunks compute the frame's images), and the
  # same bits as the run in core on 1 device.
  ooc_runs=("2 3 1")
  if [ "$kx" = periodic ] && [ "$ky" = periodic ]; then ooc_runs+=("1 2 3" "2 2 3 --strategy min-exchange")
  else ooc_runs+=("1 3 3" "2 2 2"); fi
  [ "$name" = periodic_thin ] && ooc_runs=()  # 4 rows: chunks of 1-2 rows hold no halo of 2
  for run in "${ooc_runs[@]}"; do
    read -r n chunks k extra <<<"$run"
    dir="$out/runs/ooc-$n-c$chunks-k$k"
    mkdir -p "$dir"
    # shellcheck disable=SC2086
    POCL_DEVICES="$(printf 'pthread %.0s' $(seq "$n"))" "$out/gen/build/$name" --device-type cpu \
      --devices "$n" --out-of-core on --ooc-chunks "$chunks" --steps-per-pass "$k" $extra \
      --save "A=$dir/A.raw" --save "B=$dir/B.raw" > "$dir/log.txt" 2>&1 ||
      { cat "$dir/log.txt"; echo "FAIL: $name out of core on $n device(s), k=$k: the run failed"; exit 1; }
    grep -q "^out-of-core: on" "$dir/log.txt" || { cat "$dir/log.txt"; echo "FAIL: $name: not out of core"; exit 1; }
    for a in A B; do
      cmp -s "$dir/$a.raw" "$out/reference/$a.raw" ||
        { cat "$dir/log.txt"; echo "FAIL: $name out of core on $n device(s), k=$k: $a differs from the reference"; exit 1; }
      cmp -s "$dir/$a.raw" "$out/runs/1-/$a.raw" ||
        { cat "$dir/log.txt"; echo "FAIL: $name out of core on $n device(s), k=$k: $a differs from the run in core"; exit 1; }
    done
    echo "ok: $name out of core on $n device(s) ($(grep -o '[0-9]* chunk(s)[^,]*, [0-9]* step(s) per pass' "$dir/log.txt")): A and B equal the reference"
  done
done
# Two launches a step (A -> B, B -> A; mirror along x, copy along y on both arrays): the second
# reads past the grid's edge what the first wrote, so out of core the chunks refill the frames
# between the launches. 15 such steps equal the reference's 30 (A after 30, B after 29). The
# MPI program (OpenCL; the one-process program where mpirun is missing) in core on 1 rank and
# out of core on 1 rank with 3 steps per pass and on 2 with 2 (each rank refills its own edge);
# the CUDA program on the CPU emulation (tests/cuda_emu/build.sh, no GPU) out of core on 1
# device with 3 steps per pass and on 2 with 2 (the refill's copy kernel on the kernel stream).
name=mirror_copy_twice
out="$work/$name"
mkdir -p "$out/reference"
mpi=no
if command -v mpirun >/dev/null && command -v mpicxx >/dev/null; then
  mpi=yes
  source "$src/tests/mpi/mpirun.sh"
fi
distribution=()
[ "$mpi" = yes ] && distribution=(--distribution mpi)
"$stepgen" generate "$src/tests/boundary/$name.xml" --target opencl "${distribution[@]}" -o "$out/gen" >/dev/null
build_program "$out/gen"
"$stepgen" generate "$src/tests/boundary/$name.xml" --target cuda -o "$out/gen-cuda" >/dev/null
"$src/tests/cuda_emu/build.sh" "$out/gen-cuda" "$out/$name-cuda-emu"
"$reference" mirror copy "$out/reference"
for run in "opencl 1" "opencl 1 --out-of-core on --ooc-chunks 3 --steps-per-pass 3" \
  "opencl 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 2" \
  "cuda 1 --out-of-core on --ooc-chunks 3 --steps-per-pass 3" \
  "cuda 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 2"; do
  read -r backend n extra <<<"$run"
  dir="$out/runs/$backend-$n-${extra// /}"
  mkdir -p "$dir"
  saves=(--save "A=$dir/A.raw" --save "B=$dir/B.raw")
  what="$name ($backend) on $n device(s)"
  if [ "$backend" = cuda ]; then
    # shellcheck disable=SC2086
    STEPGEN_CUDA_EMULATE=$n "$out/$name-cuda-emu" --devices "$n" $extra "${saves[@]}" > "$dir/log.txt" 2>&1 ||
      { cat "$dir/log.txt"; echo "FAIL: $what $extra: the run failed"; exit 1; }
  elif [ "$mpi" = yes ]; then
    what="$name (opencl, MPI) on $n rank(s)"
    # shellcheck disable=SC2086
    POCL_DEVICES="$(printf 'pthread %.0s' $(seq "$n"))" stepgen_mpirun "$n" "$out/gen/build/$name" \
      --device-type cpu $extra "${saves[@]}" > "$dir/log.txt" 2>&1 ||
      { cat "$dir/log.txt"; echo "FAIL: $what $extra: the run failed"; exit 1; }
  else
    # shellcheck disable=SC2086
    POCL_DEVICES="$(printf 'pthread %.0s' $(seq "$n"))" "$out/gen/build/$name" --device-type cpu \
      --devices "$n" $extra "${saves[@]}" > "$dir/log.txt" 2>&1 ||
      { cat "$dir/log.txt"; echo "FAIL: $what $extra: the run failed"; exit 1; }
  fi
  for a in A B; do
    cmp -s "$dir/$a.raw" "$out/reference/$a.raw" ||
      { cat "$dir/log.txt"; echo "FAIL: $what $extra: $a differs from the reference"; exit 1; }
  done
  echo "ok: $what $extra: A and B equal the reference $(grep -o '[0-9]* chunk(s)[^,]*, [0-9]* step(s) per pass' "$dir/log.txt" || true)"
done
# A 3D 7-point stencil periodic in z only, the chunked dimension out of core (the load windows
# of the first and last chunks reach past the grid's ends, the frames composed from the other
# end's planes as they were at the pass's start): in core on 1 and 3 devices, out of core on 1
# and 2 devices with 1, 3 and 4 steps per pass, against a reference with modulo indexing in z;
# with sources on the z = 0 and z = 19 planes, whose images in the frames (and out of core in
# the windows of the chunks at the other end) get the value too.
for name in periodic_z_inject; do
out="$work/$name"
mkdir -p "$out/reference"
"$stepgen" generate "$src/tests/boundary/$name.xml" --target opencl -o "$out/gen" >/dev/null
build_program "$out/gen"
"$reference" heat3d-z-inject "$out/reference"
for run in "1" "3" "1 --out-of-core on --ooc-chunks 3 --steps-per-pass 1" \
  "2 --out-of-core on --ooc-chunks 2 --steps-per-pass 3" \
  "1 --out-of-core on --ooc-chunks 4 --steps-per-pass 4 --region-sharing off" \
  "1 --out-of-core on --ooc-chunks 2 --steps-per-pass 4 --band-sharing off"; do
  read -r n extra <<<"$run"
  dir="$out/runs/$n-${extra// /}"
  mkdir -p "$dir"
  # shellcheck disable=SC2086
  POCL_DEVICES="$(printf 'pthread %.0s' $(seq "$n"))" "$out/gen/build/$name" --device-type cpu \
    --devices "$n" $extra --save "A=$dir/A.raw" --save "B=$dir/B.raw" > "$dir/log.txt" 2>&1 ||
    { cat "$dir/log.txt"; echo "FAIL: $name on $n device(s) $extra: the run failed"; exit 1; }
  for a in A B; do
    cmp -s "$dir/$a.raw" "$out/reference/$a.raw" ||
      { cat "$dir/log.txt"; echo "FAIL: $name on $n device(s) $extra: $a differs from the reference"; exit 1; }
  done
  echo "ok: $name on $n device(s) $extra: A and B equal the reference $(grep -o '[0-9]* chunk(s)[^,]*, [0-9]* step(s) per pass' "$dir/log.txt" || true)"
done
done
# A coefficient array that no launch writes, read without a halo, under periodic boundaries
# (periodic_coef.xml): the kernel computes the periodic frame's cells as images between
# exchanges, reading the coefficient's frame, which holds its images too (an implied periodic
# rule; it was zero, and a user's Yee run was 85% wrong out of core). Every run equals the one
# in core on 1 device with an exchange every step (whose frames are refilled before any kernel
# reads them): in core on 3 devices; deep halos (exchange every 2, generated from the same spec)
# on 1 and 3; out of core with 3 steps per pass on 1 device and 2 on 2 (min-exchange); the CUDA
# program on the CPU emulation out of core with 3 steps per pass.
name=periodic_coef
out="$work/$name"
mkdir -p "$out/deep-spec"
"$stepgen" generate "$src/tests/boundary/$name.xml" --target opencl -o "$out/gen" >/dev/null
cp "$src/tests/boundary/coef.cl" "$out/deep-spec/"
sed 's|</stencil>|  <exchange every="2"/>\n</stencil>|' "$src/tests/boundary/$name.xml" >"$out/deep-spec/$name.xml"
grep -q '<exchange every="2"/>' "$out/deep-spec/$name.xml"
sed -i 's| cuda-source="coef.cu"||' "$out/deep-spec/$name.xml"
"$stepgen" generate "$out/deep-spec/$name.xml" --target opencl -o "$out/gen-deep" >/dev/null
"$stepgen" generate "$src/tests/boundary/$name.xml" --target cuda -o "$out/gen-cuda" >/dev/null
build_program "$out/gen"
build_program "$out/gen-deep"
"$src/tests/cuda_emu/build.sh" "$out/gen-cuda" "$out/$name-cuda-emu"
mkdir -p "$out/base"
POCL_DEVICES=pthread "$out/gen/build/$name" --device-type cpu --devices 1 --save "A=$out/base/A.raw" \
  --save "B=$out/base/B.raw" > "$out/base/log.txt" 2>&1 || { cat "$out/base/log.txt"; echo "FAIL: $name: the base run failed"; exit 1; }
for run in "gen 3" "gen-deep 1" "gen-deep 3" "gen 1 --out-of-core on --ooc-chunks 3 --steps-per-pass 3" \
  "gen 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 2 --strategy min-exchange" \
  "cuda 1 --out-of-core on --ooc-chunks 3 --steps-per-pass 3"; do
  read -r program n extra <<<"$run"
  dir="$out/runs/$program-$n-${extra// /}"
  mkdir -p "$dir"
  if [ "$program" = cuda ]; then
    # shellcheck disable=SC2086
    STEPGEN_CUDA_EMULATE=$n "$out/$name-cuda-emu" --devices "$n" $extra --save "A=$dir/A.raw" \
      --save "B=$dir/B.raw" > "$dir/log.txt" 2>&1 || { cat "$dir/log.txt"; echo "FAIL: $name $run: the run failed"; exit 1; }
  else
    # shellcheck disable=SC2086
    POCL_DEVICES="$(printf 'pthread %.0s' $(seq "$n"))" "$out/$program/build/$name" --device-type cpu \
      --devices "$n" $extra --save "A=$dir/A.raw" --save "B=$dir/B.raw" > "$dir/log.txt" 2>&1 ||
      { cat "$dir/log.txt"; echo "FAIL: $name $run: the run failed"; exit 1; }
  fi
  for a in A B; do
    cmp -s "$dir/$a.raw" "$out/base/$a.raw" ||
      { cat "$dir/log.txt"; echo "FAIL: $name $run: $a differs from the run in core on 1 device"; exit 1; }
  done
  echo "ok: $name $run: A and B equal the run in core on 1 device"
done
# A staggered wave (periodic_stagger.xml): p periodic along x and y, vx along x only, vy along
# y only, read without a halo along their other dimension. The kernels compute p's frame cells
# as images between exchanges, reading vx's y-frame and vy's x-frame: implied periodic frames
# (they were zero: a user's run was 3496 cells wrong out of core, exit 0). Every run equals the
# one in core on 1 device with an exchange every step: in core on 3 devices, deep halos on 1
# and 3, out of core with 3 steps per pass on 1 device and 2 on 2.
name=periodic_stagger
out="$work/$name"
mkdir -p "$out/deep-spec"
"$stepgen" plan "$src/tests/boundary/$name.xml" >"$out/plan.txt"
grep -q "vx: periodic along x, periodic along y (implied: read without a halo along it" "$out/plan.txt" ||
  { cat "$out/plan.txt"; echo "FAIL: $name: vx gets no implied periodic frame along y"; exit 1; }
"$stepgen" generate "$src/tests/boundary/$name.xml" --target opencl -o "$out/gen" >/dev/null
cp "$src/tests/boundary/stagger.cl" "$out/deep-spec/"
sed 's|</stencil>|  <exchange every="2"/>\n</stencil>|' "$src/tests/boundary/$name.xml" >"$out/deep-spec/$name.xml"
grep -q '<exchange every="2"/>' "$out/deep-spec/$name.xml"
"$stepgen" generate "$out/deep-spec/$name.xml" --target opencl -o "$out/gen-deep" >/dev/null
build_program "$out/gen"
build_program "$out/gen-deep"
saves() {  # saves DIR: the --save arguments of p, vx and vy into DIR
  echo "--save p=$1/p.raw --save vx=$1/vx.raw --save vy=$1/vy.raw"
}
mkdir -p "$out/base"
# shellcheck disable=SC2046
POCL_DEVICES=pthread "$out/gen/build/$name" --device-type cpu --devices 1 $(saves "$out/base") \
  > "$out/base/log.txt" 2>&1 || { cat "$out/base/log.txt"; echo "FAIL: $name: the base run failed"; exit 1; }
for run in "gen 3" "gen-deep 1" "gen-deep 3" "gen 1 --out-of-core on --ooc-chunks 3 --steps-per-pass 3" \
  "gen 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 2 --strategy min-exchange"; do
  read -r program n extra <<<"$run"
  dir="$out/runs/$program-$n-${extra// /}"
  mkdir -p "$dir"
  # shellcheck disable=SC2046,SC2086
  POCL_DEVICES="$(printf 'pthread %.0s' $(seq "$n"))" "$out/$program/build/$name" --device-type cpu \
    --devices "$n" $extra $(saves "$dir") > "$dir/log.txt" 2>&1 ||
    { cat "$dir/log.txt"; echo "FAIL: $name $run: the run failed"; exit 1; }
  for a in p vx vy; do
    cmp -s "$dir/$a.raw" "$out/base/$a.raw" ||
      { cat "$dir/log.txt"; echo "FAIL: $name $run: $a differs from the run in core on 1 device"; exit 1; }
  done
  echo "ok: $name $run: p, vx and vy equal the run in core on 1 device"
done
