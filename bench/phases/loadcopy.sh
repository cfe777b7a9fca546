#!/usr/bin/env bash
# Phase `loadcopy` (GPU machine, after `tts-generate` here; carry bench/generated/tts): an array
# initialised as copy(X) copies the values `--load X=PATH` gives X, wherever the copy is made.
# Jacobi 16384^2 (B = copy(A)) on one GPU, CUDA and the OpenCL program where built: A loaded
# from a file (the program's own A after 5 steps, rotated by one element so that its edge cells,
# which Jacobi never writes, differ from random(7)'s), 3 steps, A saved, with B made on the
# device (A alone saved), B on the host (B saved too), out of core, and `--out-of-core auto`
# made to take out of core (STEPGEN_AUTO_CHOICE): every A must equal the first, and differ from
# the run without --load. Before 2026-11-28 evening, the host runs gave B the spec's random(7).
# Then jacobi2d with A = file(A0.raw): `--out-of-core auto` (each choice) and on against off.
# Usage: bench/run.sh loadcopy
set -u
. "$(dirname "$0")/lib.sh"
mkdir -p "$out" "$work"
export LD_LIBRARY_PATH=$gen/tts/opencl/lib:${LD_LIBRARY_PATH:-}
register_nvidia_opencl
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
build_cuda jacobi2d_16384 8 || echo "build failed: $out/build-jacobi2d_16384.log"
rows=()
for be in cuda opencl; do
  if [ "$be" = cuda ]; then bin=$work/build-jacobi2d_16384/jacobi2d_16384; else bin=$gen/tts/opencl/bin/jacobi2d_16384; fi
  [ -x "$bin" ] || { rows+=("| $be | not built | | |"); continue; }
  d=$work/loadcopy-$be
  rm -rf "$d" && mkdir -p "$d"
  "$bin" --device-type gpu --steps 5 --quiet --save "A=$d/a5.raw" >"$out/loadcopy-$be-prep.log" 2>&1 || { rows+=("| $be | prep failed | | |"); continue; }
  { tail -c +5 "$d/a5.raw"; head -c 4 "$d/a5.raw"; } >"$d/A0.raw"
  rm -f "$d/a5.raw"
  for mode in device host ooc auto none; do
    args=(--device-type gpu --steps 3 --load "A=$d/A0.raw" --save "A=$d/A-$mode.raw")
    case $mode in
      host) args+=(--save "B=$d/B-$mode.raw") ;;
      ooc) args+=(--out-of-core on) ;;
      auto) args+=(--out-of-core auto) ;;
      none) args=(--device-type gpu --steps 3 --save "A=$d/A-$mode.raw") ;;
    esac
    log=$out/loadcopy-$be-$mode.log
    if ! STEPGEN_AUTO_CHOICE=out-of-core "$bin" "${args[@]}" >"$log" 2>&1; then
      rows+=("| $be | $mode | FAILED: $(tail -1 "$log") | |")
      continue
    fi
    where=$(grep -o -m1 -e "made on the devices: [^;]*" -e "^out-of-core: on ([^)]*)" "$log" | head -1)
    if [ "$mode" = device ]; then
      verdict=first
    elif [ "$mode" = none ]; then
      if cmp -s "$d/A-$mode.raw" "$d/A-device.raw"; then verdict="SAME (--load made no difference: a weak test)"; else verdict="differs, as it must"; fi
    elif cmp -s "$d/A-$mode.raw" "$d/A-device.raw"; then
      verdict=same
    else
      verdict=DIFFERS
    fi
    rows+=("| $be | $mode | $verdict | $where |")
  done
  rm -f "$d"/*.raw
done
# A = file(A0.raw) (tts-generate's cuda-jacobi2d_file, 1024x768, B = copy(A)): `--out-of-core
# auto` taking either run (STEPGEN_AUTO_CHOICE) and out of core give the bits of the run
# without the flag (the calibration samples A from its host copy; a file is never read over a
# probe's box).
frows=()
if build_cuda jacobi2d_file 8; then
  fbin=$work/build-jacobi2d_file/jacobi2d
  fd=$work/fileinit
  rm -rf "$fd" && mkdir -p "$fd"
  for mode in off auto-in auto-out on; do
    args=(--device-type gpu --spec-dir "$gen/tts/cuda-jacobi2d_file" --save "A=$fd/A-$mode.raw" --save "B=$fd/B-$mode.raw")
    choice=
    case $mode in
      off) args+=(--out-of-core off) ;;
      auto-in) args+=(--out-of-core auto); choice=in-core ;;
      auto-out) args+=(--out-of-core auto); choice=out-of-core ;;
      on) args+=(--out-of-core on) ;;
    esac
    log=$out/fileinit-$mode.log
    if ! STEPGEN_AUTO_CHOICE=$choice "$fbin" "${args[@]}" >"$log" 2>&1; then
      frows+=("| $mode | FAILED: $(tail -1 "$log") | |")
      continue
    fi
    v=first
    [ "$mode" = off ] || { cmp -s "$fd/A-$mode.raw" "$fd/A-off.raw" && cmp -s "$fd/B-$mode.raw" "$fd/B-off.raw" && v=same || v=DIFFERS; }
    frows+=("| $mode | $v | $(grep -o -m1 -e '^out of core: auto -> [a-z ]*' -e '^out-of-core: on ([^)]*)' "$log" | head -1) |")
  done
else
  frows+=("| - | build failed: $out/build-jacobi2d_file.log | |")
fi
echo
echo "loadcopy: jacobi2d with A = file(A0.raw), CUDA: A and B against --out-of-core off"
echo "| --out-of-core | A, B | report |"
echo "| --- | --- | --- |"
printf '%s\n' "${frows[@]}"
echo
echo "loadcopy: --load A with B = copy(A), Jacobi 16384^2, 3 steps: A against the run with B made on the device ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"
echo "| backend | B made | A | report |"
echo "| --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
