#!/usr/bin/env bash
# Phase `localsweep` (GPU machine, after `tts-generate` here; carry bench/generated/tts): issue
# 26's launch shapes. For acoustic 512^3, heat 512^3 and Jacobi 16384^2 in core and acoustic
# 1160^3 out of core (--device-memory 20GiB, as the `ooc-opencl budget` rows), one GPU:
#   fixed   the spec's own shape (bench/specs/NAME.xml)
#   auto    <local size="auto"/> (bench/specs/sim/NAME_auto.xml, specs/tts/acoustic_1160_auto.xml):
#           the shape the program's tuner chose at start-up (its report) and its time
#   sweep   the auto program with each shape of a hand sweep given at run time
#           (--local KERNEL=SHAPE: the tuner skipped; docs/generated.md, "Flags")
#   noretune  out of core: the auto program with --ooc-retune off (the start-up choice for the
#           whole run); `auto` itself times the shapes again on the chunks and keeps the
#           fastest (ooc/retune.hpp: its report's "retuned on the chunks" line, the shape kept)
# The measure: in core, the kernels' ms/step (the report's `kernels:` over the steps: uploads
# and start-up left out, so 100 steps suffice); out of core, the time loop's ms/step (`time:`).
# Fewer steps than the specs (STEPS_INCORE, default 100; STEPS_OOC, default 240: 10 passes at
# the model's k = 24, enough for the retuning's trials, 10-17 of the 70-100 interior chunk
# commands, to pay) keep the phase within a call (the 1160^3 part alone: 250 s on an H100 with
# SHAPES_1160 of 2 shapes). CUDA, and OpenCL for the in-core three and for acoustic 1160^3's
# fixed, auto and noretune runs when tts-generate built its OpenCL programs (TTS_OPENCL_1160=1;
# LOCALSWEEP_OPENCL=0: CUDA only). Single runs (REPS=1); the table says fixed / auto (its
# choice) / noretune / best of the sweep (its shape) / auto against the best and against fixed;
# every run's time is in the detail table before it. Speeds are never asserted. A check: a shape
# given at run time gives the fixed shape's bits (LOCALSWEEP_CHECK=0: skipped).
# SHAPES_ACOUSTIC, SHAPES_HEAT, SHAPES_JACOBI, SHAPES_1160: the sweeps (space-separated).
# LOCALSWEEP_ONLY: the programs to run (names as above; default all four).
# Usage: bench/run.sh localsweep
set -u
. "$(dirname "$0")/lib.sh"
mkdir -p "$out" "$work"
t=$gen/tts
export LD_LIBRARY_PATH=$t/opencl/lib:${LD_LIBRARY_PATH:-}
register_nvidia_opencl
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
steps_in=${STEPS_INCORE:-100}
steps_ooc=${STEPS_OOC:-240}
shapes_acoustic=${SHAPES_ACOUSTIC:-16x16x1 32x8x1 32x4x4 32x2x8 32x1x16 32x1x32 16x1x16 64x1x8 64x2x4 64x4x1 128x1x4 128x2x2}
shapes_heat=${SHAPES_HEAT:-8x4x2 32x8x1 32x4x2 32x2x4 32x1x8 32x1x16 16x8x2 64x4x1 64x1x4 128x2x1 128x1x2 256x1x1}
shapes_jacobi=${SHAPES_JACOBI:-32x8 32x4 32x16 32x32 16x16 64x4 64x8 128x2 128x4 128x8 256x1 512x1}
shapes_1160=${SHAPES_1160:-32x1x16 16x16x1 32x8x2 32x8x1 64x1x8 64x1x4}
# program: NAME KERNEL STEPS EXTRA-ARGS SHAPES
programs=(
  "acoustic_512|acoustic|$steps_in||$shapes_acoustic"
  "heat3d_512|heat|$steps_in||$shapes_heat"
  "jacobi2d_16384|jacobi|$steps_in||$shapes_jacobi"
  "acoustic_1160|acoustic|$steps_ooc|--out-of-core on --device-memory 20GiB|$shapes_1160"
)
# LOCALSWEEP_ONLY="NAME ...": only these programs (e.g. acoustic_1160, whose runs are long).
if [ -n "${LOCALSWEEP_ONLY:-}" ]; then
  kept=()
  for p in "${programs[@]}"; do
    case " $LOCALSWEEP_ONLY " in *" ${p%%|*} "*) kept+=("$p") ;; esac
  done
  programs=("${kept[@]}")
fi
for p in "${programs[@]}"; do
  n=${p%%|*}
  build_cuda "$n" 4 &
  build_cuda "${n}_auto" 4 &
done
wait

# measure LOG: the run's ms/step: in core the kernels' (kernels: / steps), out of core the time
# loop's; "?" when the report has neither.
measure() {
  awk '/^time:/ && n == "" { n = $5; t = $2 } /^  kernels: / && k == "" { k = $2 }
       /^out-of-core: on/ { ooc = 1 }
       END { if (n + 0 <= 0) { print "?"; exit } if (!ooc && k + 0 > 0) printf "%.4f\n", 1e3 * k / n; else printf "%.4f\n", 1e3 * t / n }' "$1"
}
# one BACKEND PROGRAM TAG STEPS ARGS...: one run, its ms/step into ms[BACKEND-TAG]
declare -A ms
one() {
  local be=$1 n=$2 tag=$3 steps=$4 bin log
  shift 4
  if [ "$be" = cuda ]; then bin=$work/build-$n/$n; else bin=$t/opencl/bin/$n; fi
  [ -x "$bin" ] || { ms[$be-$tag]="not built"; return; }
  log=$out/$be-$tag.log
  if "$bin" --device-type gpu --steps "$steps" "$@" >"$log" 2>&1; then
    ms[$be-$tag]=$(measure "$log")
  else
    ms[$be-$tag]="FAILED: $(tail -1 "$log")"
  fi
}
detail=()
summary=()
for be in cuda opencl; do
  for p in "${programs[@]}"; do
    IFS='|' read -r n kernel steps extra shapes <<<"$p"
    [ "$be" = opencl ] && { [ "${LOCALSWEEP_OPENCL:-1}" = 1 ] || continue; }
    [ "$be" = opencl ] && [ "$n" = acoustic_1160 ] && [ ! -x "$t/opencl/bin/$n" ] && continue
    # shellcheck disable=SC2086
    one "$be" "$n" "$n-fixed" "$steps" $extra
    # shellcheck disable=SC2086
    one "$be" "${n}_auto" "$n-auto" "$steps" $extra
    fixed_shape=$(sed -n "s/.*<local size=\"\([0-9 ]*\)\"\/>.*/\1/p" "$root/bench/specs/$n.xml" | head -1 | tr ' ' x)
    chosen=$(sed -n "s/^local size: kernel '$kernel' tuned: \([0-9x]*\) .*/\1/p" "$out/$be-$n-auto.log" 2>/dev/null | head -1)
    noretune="-"
    case $extra in
      *--out-of-core*)
        # shellcheck disable=SC2086
        one "$be" "${n}_auto" "$n-noretune" "$steps" $extra --ooc-retune off
        noretune="${ms[$be-$n-noretune]} (${chosen:-?})"
        # The shape the chunks' timing kept (the start-up one when it stayed).
        kept=$(sed -n "s/^  local size: kernel '$kernel' retuned on the chunks: \(the start-up choice \)\{0,1\}\([0-9x]*\) .*/\2/p" "$out/$be-$n-auto.log" | head -1)
        chosen="${chosen:-?} -> ${kept:-not retuned}"
        ;;
    esac
    best="" best_shape=""
    line="| $be | $n | $steps |"
    # OpenCL at 1160^3: fixed, auto and noretune only (SWEEP_OPENCL_1160=1: the sweep too).
    [ "$be" = opencl ] && [ "$n" = acoustic_1160 ] && [ "${SWEEP_OPENCL_1160:-0}" != 1 ] && shapes=""
    for shape in $shapes; do
      # shellcheck disable=SC2086
      one "$be" "${n}_auto" "$n-$shape" "$steps" $extra --local "$kernel=$shape"
      v=${ms[$be-$n-$shape]}
      line+=" $shape $v;"
      if awk -v v="$v" -v b="${best:-0}" 'BEGIN {exit !(v + 0 > 0 && (b + 0 == 0 || v + 0 < b + 0))}'; then
        best=$v best_shape=$shape
      fi
    done
    detail+=("$line |")
    echo "$line | fixed ${ms[$be-$n-fixed]}, auto ${ms[$be-$n-auto]} (${chosen:-?})"  # as it goes
    f=${ms[$be-$n-fixed]} a=${ms[$be-$n-auto]}
    ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a + 0 > 0 && b + 0 > 0) printf "%.3f", a / b; else print "-"}'; }
    summary+=("| $be | $n | $steps | $f ($fixed_shape) | $a (${chosen:-?}) | $noretune | ${best:-?} (${best_shape:-?}) | $(ratio "$a" "$best") | $(ratio "$f" "$a") |")
  done
done

# Check (LOCALSWEEP_CHECK=1, the default): a shape given at run time gives the fixed shape's
# bits (acoustic 512^3, 20 steps, p2 saved: the fixed program's 16x16x1 against the auto
# program's --local acoustic=32x1x16), each backend run.
same=()
if [ "${LOCALSWEEP_CHECK:-1}" = 1 ]; then
  mkdir -p "$work/localsweep"
  for be in cuda opencl; do
    [ "$be" = opencl ] && [ "${LOCALSWEEP_OPENCL:-1}" != 1 ] && continue
    a=$work/build-acoustic_512/acoustic_512 b=$work/build-acoustic_512_auto/acoustic_512_auto
    [ "$be" = opencl ] && a=$t/opencl/bin/acoustic_512 b=$t/opencl/bin/acoustic_512_auto
    rm -f "$work/localsweep/fixed.raw" "$work/localsweep/given.raw"
    "$a" --device-type gpu --steps 20 --save "p2=$work/localsweep/fixed.raw" >"$out/same-$be-fixed.log" 2>&1
    "$b" --device-type gpu --steps 20 --local acoustic=32x1x16 --save "p2=$work/localsweep/given.raw" >"$out/same-$be-given.log" 2>&1
    if [ -s "$work/localsweep/fixed.raw" ] && cmp -s "$work/localsweep/fixed.raw" "$work/localsweep/given.raw"; then
      same+=("$be: acoustic 512^3 with --local acoustic=32x1x16 = the fixed 16x16x1, bit for bit (20 steps, p2)")
    else
      same+=("$be: acoustic 512^3 with --local acoustic=32x1x16 and the fixed 16x16x1 DIFFER or failed (same-$be-*.log)")
    fi
  done
  rm -rf "$work/localsweep"
fi

echo
echo "localsweep: every run of the hand sweep, ms/step (in core: kernels; out of core: time loop), --local KERNEL=SHAPE on the auto program"
echo "| backend | program | steps | shape ms/step; ... |"
echo "| --- | --- | --- | --- |"
printf '%s\n' "${detail[@]}"
echo "localsweep: the spec's fixed shape, <local size=\"auto\"/> and the best of the hand sweep ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); single runs; in core: kernels ms/step over $steps_in steps; acoustic_1160: out of core at 20 GiB, time-loop ms/step over $steps_ooc steps)"
echo "| backend | program | steps | fixed ms/step (shape) | auto ms/step (its choice; out of core: start-up -> kept on the chunks) | auto --ooc-retune off | best of sweep ms/step (shape) | auto / best | fixed / auto (speedup) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${summary[@]}"
printf '%s\n' "${same[@]}"
