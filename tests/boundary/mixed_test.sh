#!/usr/bin/env bash
# Arrays whose <boundary> kinds differ along one dimension (a periodic array beside a mirror,
# copy or value(v) one, written or read-only), out of core against the same program in core on
# one device, bit for bit:
#  - mixed_x.xml (U periodic along x beside V mirror, W value(0.5) and a read-only C copy; all
#    periodic along y, the chunked dimension): out of core with 2, 3 and 4 steps per pass (the
#    chunks refill U's x-frame from the far side after each launch); on 2 ranks of its MPI
#    program (one process on 2 devices where mpirun is missing) with 3, and split along x
#    (--strategy min-exchange), where the model takes one step per pass and says why; its CUDA
#    program on the CPU emulation (tests/cuda_emu) with 2 steps per pass on 1 device and 3 on 2.
#  - mixed_y.xml (the kinds differ along y, the chunked dimension: U periodic, V mirror, a
#    read-only C value(3)): one step per pass, chosen by the model with its reason; 2 steps per
#    pass refused with the reason, before any file is written.
#  - mixed_3d.xml (3D, the kinds differ along x and y, all periodic along z, the chunked one):
#    out of core with 2 and 4 steps per pass on 1 device and 3 on 2; its CUDA program with 3.
# Before the refill, every such run of 2 or more steps per pass was wrong from the edges in
# (U's periodic images in the frame were computed from the other arrays' physical frames).
# Usage: mixed_test.sh STEPGEN SOURCE_DIR WORK_DIR
set -euo pipefail
stepgen=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
source "$src/tests/build_program.sh"
mpi=no
if command -v mpirun >/dev/null && command -v mpicxx >/dev/null; then
  mpi=yes
  source "$src/tests/mpi/mpirun.sh"
fi
pocl() { printf 'pthread %.0s' $(seq "$1"); }

# run NAME KIND N DIR [ARGS...]: runs program KIND (opencl, mpi: its MPI program on N ranks,
# cuda: on the emulation) of NAME on N devices with ARGS, saving every array into DIR.
run() {
  local name=$1 kind=$2 n=$3 dir=$4 arrays
  shift 4
  mkdir -p "$dir"
  arrays=$(tr ' ' '\n' <<<"${saves[$name]}")
  local save=()
  for a in $arrays; do save+=(--save "$a=$dir/$a.raw"); done
  case "$kind" in
    cuda) STEPGEN_CUDA_EMULATE=$n "$work/$name/cuda-emu" --devices "$n" "$@" "${save[@]}" ;;
    mpi) POCL_DEVICES="$(pocl "$n")" stepgen_mpirun "$n" "$work/$name/gen/build/$name" \
      --device-type cpu "$@" "${save[@]}" ;;
    *) POCL_DEVICES="$(pocl "$n")" "$work/$name/gen/build/$name" --device-type cpu --devices "$n" \
      "$@" "${save[@]}" ;;
  esac >"$dir/log.txt" 2>&1
}
# same NAME DIR BASE WHAT: every saved array of DIR equals BASE's.
same() {
  local name=$1 dir=$2 base=$3 what=$4
  for a in ${saves[$name]}; do
    cmp -s "$dir/$a.raw" "$base/$a.raw" ||
      { cat "$dir/log.txt"; echo "FAIL: $what: $a differs from $base/$a.raw"; exit 1; }
  done
}
# expect DIR PATTERN WHAT: the run's output has PATTERN (grep -E).
expect() {
  grep -qE "$2" "$1/log.txt" || { cat "$1/log.txt"; echo "FAIL: $3: no '$2' in the output"; exit 1; }
}
declare -A saves=([mixed_x]="U V W C" [mixed_y]="U V W C" [mixed_3d]="U V C")

for name in mixed_x mixed_y mixed_3d; do
  mkdir -p "$work/$name"
  distribution=()
  [ "$name" = mixed_x ] && [ "$mpi" = yes ] && distribution=(--distribution mpi)
  "$stepgen" generate "$src/tests/boundary/$name.xml" --target opencl "${distribution[@]}" \
    -o "$work/$name/gen" >/dev/null
  build_program "$work/$name/gen"
  if [ "$name" != mixed_y ]; then
    "$stepgen" generate "$src/tests/boundary/$name.xml" --target cuda -o "$work/$name/gen-cuda" >/dev/null
    "$src/tests/cuda_emu/build.sh" "$work/$name/gen-cuda" "$work/$name/cuda-emu"
  fi
done

# The OpenCL runs (KIND N CHUNKS K [ARGS]: K "auto" for the model's choice).
declare -A runs=(
  [mixed_x]="1 3 2|1 3 3|1 3 4|2 2 3|2 2 auto --strategy min-exchange"
  [mixed_y]="1 3 auto|1 3 1"
  [mixed_3d]="1 3 2|1 3 4|2 2 3")
for name in mixed_x mixed_y mixed_3d; do
  kind=opencl
  [ "$name" = mixed_x ] && [ "$mpi" = yes ] && kind=mpi
  base="$work/$name/base"
  run "$name" "$kind" 1 "$base" ||
    { cat "$base/log.txt"; echo "FAIL: $name in core on 1 device: the run failed"; exit 1; }
  IFS='|' read -r -a list <<<"${runs[$name]}"
  for r in "${list[@]}"; do
    read -r n chunks k extra <<<"$r"
    args=(--out-of-core on --ooc-chunks "$chunks")
    [ "$k" != auto ] && args+=(--steps-per-pass "$k")
    dir="$work/$name/ooc-$n-c$chunks-k$k${extra:+-me}"
    what="$name ($kind) out of core on $n device(s), $chunks chunks, k=$k ${extra:-}"
    # shellcheck disable=SC2086
    run "$name" "$kind" "$n" "$dir" "${args[@]}" $extra ||
      { cat "$dir/log.txt"; echo "FAIL: $what: the run failed"; exit 1; }
    expect "$dir" "^out-of-core: on" "$what"
    if [ "$k" = auto ]; then
      # Split along a mixed dimension (x between the parts; y, the chunked one): one step.
      expect "$dir" "1 step\(s\) per pass \(model\)" "$what"
      expect "$dir" "one step per pass: U is periodic along [xy] and .* \([xy]: (split between the parts|the dimension the chunks split)\)" "$what"
    else
      expect "$dir" " $k step\(s\) per pass," "$what"
    fi
    same "$name" "$dir" "$base" "$what"
    echo "ok: $what: $(grep -o '[0-9]* chunk(s)[^,]*, [0-9]* step(s) per pass[^,]*' "$dir/log.txt" | head -1), equal to the run in core"
  done
done

# More steps per pass than are exact along the chunked dimension: refused, saying why, and no
# file written.
dir="$work/mixed_y/refused"
if run mixed_y opencl 1 "$dir" --out-of-core on --ooc-chunks 3 --steps-per-pass 2; then
  cat "$dir/log.txt"; echo "FAIL: mixed_y with 2 steps per pass: not refused"; exit 1
fi
expect "$dir" "2 steps per pass .* but at most 1 can be exact: U is periodic along y and V mirror \(y: the dimension the chunks split\)" \
  "mixed_y with 2 steps per pass"
[ -z "$(ls "$dir"/*.raw 2>/dev/null)" ] || { echo "FAIL: mixed_y refused, but wrote $(ls "$dir"/*.raw)"; exit 1; }
echo "ok: mixed_y with 2 steps per pass: refused ($(grep -o 'at most 1 can be exact' "$dir/log.txt"))"

# The CUDA programs on the emulation: the refill on the CUDA engine.
for r in "mixed_x 1 3 2" "mixed_x 2 2 3" "mixed_3d 1 3 3"; do
  read -r name n chunks k <<<"$r"
  base="$work/$name/cuda-base"
  [ -d "$base" ] || run "$name" cuda 1 "$base" ||
    { cat "$base/log.txt"; echo "FAIL: $name (cuda) in core on 1 device: the run failed"; exit 1; }
  same "$name" "$base" "$work/$name/base" "$name (cuda) in core against OpenCL"
  dir="$work/$name/cuda-ooc-$n-c$chunks-k$k"
  what="$name (cuda) out of core on $n device(s), $chunks chunks, k=$k"
  run "$name" cuda "$n" "$dir" --out-of-core on --ooc-chunks "$chunks" --steps-per-pass "$k" ||
    { cat "$dir/log.txt"; echo "FAIL: $what: the run failed"; exit 1; }
  expect "$dir" " $k step\(s\) per pass," "$what"
  same "$name" "$dir" "$base" "$what"
  echo "ok: $what: equal to the run in core"
done
