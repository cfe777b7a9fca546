#!/usr/bin/env bash
# Phases `parts-generate` and `parts`: the price of a part (issue 51: several parts per device,
# what block-structured AMR pays for every block) and the engine's must-not-regress figures, in
# one GPU call, CUDA:
#  - Jacobi 16384^2, 1000 steps: the generated program on 1 part against the hand-written loop
#    of the same kernel (bench/cuda/handwritten_jacobi2d.cu) and against the program generated
#    by the previous revision (OLD_STEPGEN: the `old-` trees); --parts 2, 4, 8 on the one GPU;
#    the whole run (time:) against kernels + exchange + host<->device;
#  - acoustic 512^3, 500 steps: 1 part against 8 (and the old revision's 1 part);
#  - acoustic 1160^3 out of core at --device-memory 20GiB, 24 steps: the model's plan, against
#    the old revision's (the out-of-core path must not regress);
#  - bits: 8 parts (and 3) saved after 100 steps equal 1 part's, both programs.
#
#   bench/run.sh parts-generate         HERE: CUDA trees into bench/generated/parts (OLD_STEPGEN=
#                                       path: the same specs by another stepgen, as old-NAME)
#   bench/run.sh parts                  ON THE GPU MACHINE: builds, runs (REPS, default 3), table
#                                       (PARTS_OOC_ONLY=1 OOC_REPS=N: the out-of-core pair only)
set -u
. "$(dirname "$0")/lib.sh"
gen=$gen/parts
specs="jacobi2d_16384 acoustic_512 acoustic_1160"

if [ "${1:-}" = generate ]; then
  set -e
  stepgen=$(find_stepgen)
  rm -rf "$gen"
  mkdir -p "$gen"
  for s in $specs; do
    "$stepgen" generate "$root/bench/specs/$s.xml" --target cuda -o "$gen/$s" >/dev/null
    [ -n "${OLD_STEPGEN:-}" ] &&
      "$OLD_STEPGEN" generate "$root/bench/specs/$s.xml" --target cuda -o "$gen/old-$s" >/dev/null
  done
  echo "generated $gen: $(ls "$gen" | tr '\n' ' ')"
  exit 0
fi

reps=${REPS:-3}
mkdir -p "$out"
w=$work/parts
mkdir -p "$w"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/machine.txt"
trees=$(ls "$gen")
# PARTS_QUICK=1: only the new revision's Jacobi and acoustic 512^3 (no out of core, no old trees).
[ -n "${PARTS_QUICK:-}" ] && trees=$(ls "$gen" | grep -v -e 1160 -e '^old-')
# PARTS_OOC_ONLY=1: only acoustic 1160^3 out of core, new against old, OOC_REPS (default 2) each.
[ -n "${PARTS_OOC_ONLY:-}" ] && trees=$(ls "$gen" | grep 1160)
for t in $trees; do build_cuda_tree "$gen/$t" "$w/$t" & done
JOBS=4 bash "$root/bench/cuda/build.sh" "$w/hand" "${CUDA_ARCH:-native}" >"$out/build-hand.log" 2>&1 &
wait
for t in $trees; do [ -x "$w/$t/${t#old-}" ] || { echo "BUILD FAILED: $t"; tail -5 "$w/$t.log"; }; done

loop_ms() {  # kernels + exchange per step (the report's lines, CUDA events)
  awk '/ for [0-9]+ steps/ {steps = $5} /^  kernels:/ {k = $2} /^  exchange:/ {x = $2}
       END {if (steps > 0) printf "%.4f", 1000 * (k + x) / steps; else print "?"}' "$1"
}
whole_ms() { awk '/ for [0-9]+ steps/ {if ($5 > 0) printf "%.4f", 1000 * $2 / $5}' "$1"; }
# whole / (kernels + exchange + host<->device): what the run costs beyond its parts.
whole_ratio() {
  awk '/ for [0-9]+ steps/ {t = $2} /^  kernels:/ {k = $2} /^  exchange:/ {x = $2}
       /^  host<->device:/ {h = $2} END {if (k + x + h > 0) printf "%.4f", t / (k + x + h); else print "?"}' "$1"
}
ooc_ms() { awk '/measured [0-9.]+ s \(/ {for (i = 1; i <= NF; i++) if ($i ~ /ms\/step/) {gsub(/[(]/, "", $(i-1)); print $(i-1); exit}}' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a + 0 > 0 && b + 0 > 0) printf "%.3f", a / b; else print "?"}'; }
rows=()
row() { rows+=("| $1 | $2 | $3 | $4 |"); }

# runs LABEL TREE ARGS...: REPS runs after one warm-up; R = median loop ms/step, W = median
# whole ms/step, Q = median whole ratio, LOG = the first run's log.
runs() {
  local label=$1 tree=$2; shift 2
  local bin=$w/$tree/${tree#old-} i ms=() wh=() q=()
  "$bin" "$@" --steps 20 >"$out/$label-warmup.log" 2>&1
  for ((i = 1; i <= reps; i++)); do
    if "$bin" "$@" >"$out/$label-$i.log" 2>&1; then
      ms+=("$(loop_ms "$out/$label-$i.log")")
      wh+=("$(whole_ms "$out/$label-$i.log")")
      q+=("$(whole_ratio "$out/$label-$i.log")")
    else
      echo "FAILED: $label: $(tail -2 "$out/$label-$i.log" | tr '\n' ' ')"
    fi
  done
  R=$(printf '%s\n' "${ms[@]}" | grep . | median)
  W=$(printf '%s\n' "${wh[@]}" | grep . | median)
  Q=$(printf '%s\n' "${q[@]}" | grep . | median)
  LOG=$out/$label-1.log
}
status=0
same_bits() {  # same_bits LABEL TREE ARRAYS -- ARGS...: 1 part against 8 and 3 after 100 steps
  local label=$1 tree=$2 arrays=() a k ok=yes; shift 2
  while [ "$1" != -- ]; do arrays+=("$1"); shift; done
  shift
  for k in 1 3 8; do
    mkdir -p "$w/bits-$label-$k"
    local saves=()
    for a in "${arrays[@]}"; do saves+=(--save "$a=$w/bits-$label-$k/$a.raw"); done
    "$w/$tree/$tree" "$@" --steps 100 --parts "$k" "${saves[@]}" >"$out/bits-$label-$k.log" 2>&1 || ok="no (exit $k parts)"
  done
  for k in 3 8; do
    for a in "${arrays[@]}"; do cmp -s "$w/bits-$label-1/$a.raw" "$w/bits-$label-$k/$a.raw" || ok="no ($a, $k parts)"; done
  done
  [ "$ok" = yes ] || status=1
  row "$label: 3 and 8 parts against 1, 100 steps, saved arrays" "${arrays[*]}" "bit for bit: $ok" ""
}

if [ -z "${PARTS_OOC_ONLY:-}" ]; then
# Jacobi 16384^2.
"$w/hand/handwritten_jacobi2d" 16384 16384 1000 5 >"$out/hand-jacobi2d.log" 2>&1
hand=$(awk '/^RESULT / {for (i = 2; i <= NF; i++) {split($i, kv, "="); if (kv[1] == "ms_per_step") m = kv[2]}} END {print (m == "" ? "?" : m)}' "$out/hand-jacobi2d.log")
runs jac-p1 jacobi2d_16384
j1=$R
row "Jacobi 16384^2, 1000 steps, 1 part: kernels+exchange ms/step" "$R" "hand-written loop $hand" "$(ratio "$R" "$hand")"
row "Jacobi 16384^2, 1 part: whole / (kernels + exchange + host<->device)" "$Q" "whole $W ms/step" ""
if [ -x "$w/old-jacobi2d_16384/jacobi2d_16384" ]; then
  runs jac-old-p1 old-jacobi2d_16384
  row "Jacobi 16384^2, 1 part, previous revision" "$R" "whole $W, ratio $Q" "new/old $(ratio "$j1" "$R")"
fi
for k in 2 4 8; do
  runs "jac-p$k" jacobi2d_16384 --parts "$k"
  row "Jacobi 16384^2, $k parts on the GPU" "$R" "whole $W ms/step, ratio $Q" "$(ratio "$R" "$j1") x 1 part"
done
# Overlap off: each part one launch, then the copies between parts (against slabs + interior).
STEPGEN_OVERLAP=off runs jac-p8-nooverlap jacobi2d_16384 --parts 8
row "Jacobi 16384^2, 8 parts, STEPGEN_OVERLAP=off" "$R" "whole $W ms/step" "$(ratio "$R" "$j1") x 1 part"
same_bits jacobi2d jacobi2d_16384 A B --

# acoustic 512^3.
runs ac-p1 acoustic_512
a1=$R
row "acoustic 512^3, 500 steps, 1 part" "$R" "whole $W ms/step, ratio $Q" ""
if [ -x "$w/old-acoustic_512/acoustic_512" ]; then
  runs ac-old-p1 old-acoustic_512
  row "acoustic 512^3, 1 part, previous revision" "$R" "whole $W ms/step" "new/old $(ratio "$a1" "$R")"
fi
runs ac-p8 acoustic_512 --parts 8
row "acoustic 512^3, 8 parts on the GPU" "$R" "whole $W ms/step, ratio $Q" "$(ratio "$R" "$a1") x 1 part"
STEPGEN_OVERLAP=off runs ac-p8-nooverlap acoustic_512 --parts 8
row "acoustic 512^3, 8 parts, STEPGEN_OVERLAP=off" "$R" "whole $W ms/step" "$(ratio "$R" "$a1") x 1 part"
runs ac-p4 acoustic_512 --parts 4
row "acoustic 512^3, 4 parts on the GPU" "$R" "whole $W ms/step" "$(ratio "$R" "$a1") x 1 part"
same_bits acoustic acoustic_512 p0 p1 p2 --

fi

# acoustic 1160^3 out of core at 20 GiB (the model's plan), new and old, alternating (when built).
oocs=() olds=()
for ((i = 1; i <= ${OOC_REPS:-2}; i++)); do
  [ -x "$w/acoustic_1160/acoustic_1160" ] || break
  "$w/acoustic_1160/acoustic_1160" --steps 24 --device-memory 20GiB >"$out/ooc1160-$i.log" 2>&1 &&
    oocs+=("$(ooc_ms "$out/ooc1160-$i.log")")
  if [ -x "$w/old-acoustic_1160/acoustic_1160" ]; then
    "$w/old-acoustic_1160/acoustic_1160" --steps 24 --device-memory 20GiB >"$out/ooc1160-old-$i.log" 2>&1 &&
      olds+=("$(ooc_ms "$out/ooc1160-old-$i.log")")
  fi
done
o=$(printf '%s\n' "${oocs[@]}" | grep . | median)
ol=$(printf '%s\n' "${olds[@]}" | grep . | median)
row "acoustic 1160^3 out of core, 20 GiB, 24 steps (model), measured ms/step" "$o" "previous revision $ol" "new/old $(ratio "$o" "$ol")"
grep -h "chunk(s)" "$out/ooc1160-1.log" | head -1

echo
echo "parts ($(head -1 "$out/machine.txt"); medians of $reps runs; ms/step)"
echo "| run (CUDA) | figure | beside it | ratio |"
echo "| --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
exit $status
