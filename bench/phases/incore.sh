#!/usr/bin/env bash
# Phase `incore` (GPU machine): the CUDA benchmarks of issue 5 (and the multi-GPU rows of issue
# 9), after the `generate` phase here (carry bench/generated):   bench/run.sh incore
# It builds the generated benchmark programs (cmake, CMAKE_CUDA_ARCHITECTURES=native, Release,
# --fmad=false as generated) and the hand-written baselines of bench/cuda/ (nvcc, the same flags)
# in parallel, then runs:
#   1. bench/cuda/bandwidth: device copy bandwidth (cudaMemcpy D2D and a float4 copy kernel,
#      read + write bytes), pinned host links, GPU to GPU;
#   2. 1 GPU: generated program against the hand-written loop of the same kernel, grid and
#      launch geometry: jacobi2d 16384^2, heat3d 512^3, acoustic 512^3, jacobi2d_fast 16384^2
#      (plus jacobi2d_fast variants, hand-written, as tuning aids), and a bit-exactness check of
#      jacobi2d_fast against jacobi2d;
#   3. with 2+ GPUs (CUDA_VISIBLE_DEVICES=0,1): parallel efficiency t1 / (2 t2) of jacobi2d
#      16384^2 and 20480^2 and of jacobi2d_fast, the hand-written peer-to-peer baseline
#      (bench/cuda/handwritten_jacobi2d_2gpu.cu), host staging, weak scaling, compute-sanitizer;
#   4. with 4+ GPUs (CUDA_VISIBLE_DEVICES=0,1,2,3): jacobi2d 20480^2 and heat3d 1024^3 on 1, 2
#      and 4 GPUs (strong scaling) and the 4-GPU weak-scaling row.
# The generated program's figure is its time loop per step, kernels + exchange, GPU time of the
# busiest GPU measured with CUDA events (the report's "kernels:" and "exchange:" lines, as
# the check phase's loop_ms reads them); the hand-written ones time their loops with CUDA
# events too. Each generated program: one short warm-up run (20 steps) the first time it runs,
# then every configuration the median of REPS runs (default 3); the hand-written ones: warm-up
# steps, then the median of HREPS repetitions in one process (default 5). About 4-5 minutes on
# 2 GPUs and 7-8 on 4 (builds included; most of it is the programs' host initialisation and
# uploads); MAX_GPUS=2 skips the 4-GPU section, REPS=2 shortens everything. Logs, the bandwidth lines and the table go to $OUT (default /tmp/out);
# the table is printed last. CUDA_ARCH=90 compiles for a given architecture instead of native;
# SKIP_BUILD=1 reuses the builds of an earlier run (the `build` phase's, in $WORK).
set -u
. "$(dirname "$0")/lib.sh"
arch=${CUDA_ARCH:-native}
reps=${REPS:-3}
hreps=${HREPS:-5}
mkdir -p "$out" "$work"
start_all=$SECONDS
{
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader
  nvidia-smi topo -m 2>/dev/null | head -12
  nvcc --version | tail -2
  cmake --version | head -1
  nproc
} 2>&1 | tee "$out/machine.txt"
# CUDA_VISIBLE_DEVICES limits what the programs see: count those, not every GPU of the machine.
gpus=$(gpu_count)
[ -n "${MAX_GPUS:-}" ] && [ "$gpus" -gt "$MAX_GPUS" ] && gpus=$MAX_GPUS
[ "$gpus" -ge 1 ] || { echo "incore: no GPU (nvidia-smi -L lists none)"; exit 1; }

# ------------------------------------------------------------------------------------------------
# Builds: the hand-written baselines and the generated programs, in parallel.
# ------------------------------------------------------------------------------------------------
progs=(jacobi2d_16384 heat3d_512 acoustic_512 jacobi2d_fast_16384)
[ "$gpus" -ge 2 ] && progs+=(jacobi2d_20480 jacobi2d_fast_20480 jacobi2d_20480x40960)
[ "$gpus" -ge 4 ] && progs+=(heat3d_1024 jacobi2d_20480x81920)
t=$SECONDS
if [ -z "${SKIP_BUILD:-}" ]; then
  hand_pid=
  if [ ! -f "$work/hand/complete" ]; then  # the `build` phase built them already
    JOBS=4 bash "$root/bench/cuda/build.sh" "$work/hand" "$arch" >"$out/build-handwritten.log" 2>&1 &
    hand_pid=$!
  fi
  slots=$(( $(nproc) / 2 - 2 ))
  [ "$slots" -ge 2 ] || slots=2
  for name in "${progs[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$slots" ]; do wait -n; done
    build_cuda "$name" 2 &
  done
  wait
  [ -n "$hand_pid" ] && wait "$hand_pid" 2>/dev/null
  echo "built in $((SECONDS - t)) s"
  cat "$out/build-handwritten.log" 2>/dev/null
fi
for name in "${progs[@]}"; do
  [ -x "$work/build-$name/$name" ] || { echo "BUILD FAILED: $name"; tail -20 "$out/build-$name.log"; }
done

# ------------------------------------------------------------------------------------------------
# Helpers
# ------------------------------------------------------------------------------------------------

# The generated program's time loop per step in ms: kernels + exchange of the busiest GPU over
# the steps, as the check phase's loop_ms. Only the lines it needs are read, so added
# report lines (an overlap line, exchange paths) do not disturb it.
loop_ms() {
  awk '/ for [0-9]+ steps/ {steps = $5} /^  kernels:/ {k = $2} /^  exchange:/ {x = $2}
       END {if (steps > 0) printf "%.4f", 1000 * (k + x) / steps; else print "?"}' "$1"
}
exchange_ms() {
  awk '/ for [0-9]+ steps/ {steps = $5} /^  exchange:/ {x = $2}
       END {if (steps > 0) printf "%.4f", 1000 * x / steps; else print "?"}' "$1"
}

# gen_run NAME GPUS VISIBLE [VAR=VALUE...] [-- ARGS...]: runs the generated program REPS times on
# GPUS GPUs (after one short warm-up run per binary), environment VAR=VALUE added, program
# arguments ARGS added; sets R to
# the median loop ms/step ("?" when no run succeeded) and LOG to the first run's log
# (gen-NAME-GGPU[-TAG]-runI.log). Not to be called in a subshell (it remembers the warm-ups).
declare -A warmed
R="?"
LOG=/dev/null
gen_run() {
  local name=$1 n=$2 vis=$3; shift 3
  local bin=$work/build-$name/$name tag="" envs=() args=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  [ $# -gt 0 ] && shift && args=("$@")
  set -- "${envs[@]}"
  [ ${#envs[@]} -gt 0 ] || [ ${#args[@]} -gt 0 ] && tag="-$(echo "${envs[*]} ${args[*]}" | tr -c 'A-Za-z0-9=\n' '_' | tr '=' '-')"
  R="?"
  LOG=$out/gen-$name-${n}gpu$tag-run1.log
  [ -x "$bin" ] || { echo "not built: $name" >"$LOG"; return; }
  if [ -z "${warmed[$name]:-}" ]; then
    env CUDA_VISIBLE_DEVICES="$vis" "$@" "$bin" --devices "$n" --steps 20 >"$out/gen-$name-${n}gpu-warmup.log" 2>&1
    warmed[$name]=1
  fi
  local ms=() i log
  for ((i = 1; i <= reps; i++)); do
    log=$out/gen-$name-${n}gpu$tag-run$i.log
    if env CUDA_VISIBLE_DEVICES="$vis" "$@" "$bin" --devices "$n" "${args[@]}" >"$log" 2>&1; then
      ms+=("$(loop_ms "$log")")
    else
      echo "FAILED: $name on $n GPU(s) $*: $(tail -2 "$log" | tr '\n' ' ')"
    fi
  done
  R=$(printf '%s\n' "${ms[@]}" | grep -v '?' | grep . | median)
}

# hand_result LOG [GPUS]: ms_per_step of the RESULT line (of GPUS GPUs, default 1).
hand_result() {
  awk -v g="${2:-1}" '/^RESULT / {for (i = 2; i <= NF; i++) {split($i, kv, "="); f[kv[1]] = kv[2]}
       if (f["gpus"] == g) ms = f["ms_per_step"]} END {print (ms == "" ? "?" : ms)}' "$1"
}

# GB/s per GPU of a loop at MS ms/step moving BYTES_PER_CELL x CELLS bytes over GPUS GPUs.
gbps() { awk -v ms="$1" -v b="$2" -v c="$3" -v g="$4" 'BEGIN {if (ms + 0 > 0) printf "%.0f", b * c / g / (ms * 1e-3) / 1e9; else print "?"}'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN {if (a + 0 > 0 && b + 0 > 0) printf "%.1f%%", 100 * a / b; else print "?"}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a + 0 > 0 && b + 0 > 0) printf "%.3f", a / b; else print "?"}'; }
# Parallel efficiency t1 / (n tn).
eff() { awk -v t1="$1" -v tn="$2" -v n="$3" 'BEGIN {if (t1 + 0 > 0 && tn + 0 > 0) printf "%.1f%%", 100 * t1 / (n * tn); else print "?"}'; }

# Times (ms/step) set by one_gpu and two, by name: t1_NAME on 1 GPU, t2_NAME on 2.
# shellcheck disable=SC2034  # read through ${!name}
t1_jacobi2d_16384="?" t1_jacobi2d_fast_16384="?" t2_jacobi2d_16384="?" t2_jacobi2d_20480="?"
rows=()
row() {  # row BENCHMARK GPUS OURS BASELINE RATIO GBPS PCT [NOTE]
  rows+=("$(printf '%-58s %4s %9s %9s %9s %11s %7s  %s' "$@")")
  printf 'ROW %s\n' "$(printf '%s|' "$@")" >>"$out/rows.txt"
}
: >"$out/rows.txt"
c16=$((16384 * 16384))
c20=$((20480 * 20480))
c512=$((512 * 512 * 512))
c1024=$((1024 * 1024 * 1024))

# ------------------------------------------------------------------------------------------------
# 1. Bandwidth
# ------------------------------------------------------------------------------------------------
"$work/hand/bandwidth" 1024 9 >"$out/bandwidth.log" 2>&1 || echo "bandwidth FAILED: $(tail -2 "$out/bandwidth.log")"
grep -E '^(GPU|BW|peer)' "$out/bandwidth.log"
bw_of() {  # bw_of KIND GPU [PEER]
  awk -v k="$1" -v g="$2" -v p="${3:-}" '/^BW / {delete f; for (i = 2; i <= NF; i++) {split($i, kv, "="); f[kv[1]] = kv[2]}
       if (f["kind"] == k && f["gpu"] == g && (p == "" || f["peer"] == p)) v = f["GBps"]} END {print (v == "" ? "?" : v)}' "$out/bandwidth.log"
}
d2d=$(bw_of d2d_memcpy 0)
kcopy=$(bw_of copy_kernel 0)
# The device copy bandwidth the stencils are compared with: the larger of the two copies.
copy=$(awk -v a="$d2d" -v b="$kcopy" 'BEGIN {print (a + 0 > b + 0 ? a : b)}')
row "device copy bandwidth (GPU 0): cudaMemcpy D2D" 1 - - - "$d2d" "$(pct "$d2d" "$copy")" "read+write bytes"
row "device copy bandwidth (GPU 0): float4 kernel" 1 - - - "$kcopy" "$(pct "$kcopy" "$copy")" "read+write bytes"
row "host link GPU 0, pinned: H2D / D2H / both" 1 - - - "$(bw_of h2d_pinned 0)/$(bw_of d2h_pinned 0)/$(bw_of bidir_pinned 0)" - ""
[ "$gpus" -ge 2 ] && row "GPU 0 <-> GPU 1: one way / both ways" 2 - - - "$(bw_of peer 0 1)/$(bw_of peer_bidir 0 1)" - \
  "$(grep -m1 'peer access 0 -> 1' "$out/bandwidth.log")"

# ------------------------------------------------------------------------------------------------
# 2. One GPU: generated program against the hand-written loop
# ------------------------------------------------------------------------------------------------
H=$work/hand
one_gpu() {  # one_gpu LABEL NAME BYTES_PER_CELL CELLS HAND_LOG HAND_CMD...
  local label=$1 name=$2 bpc=$3 cells=$4 hlog=$5; shift 5
  "$@" >"$out/$hlog" 2>&1 || echo "FAILED: $* ($(tail -1 "$out/$hlog"))"
  local base ours
  base=$(hand_result "$out/$hlog")
  gen_run "$name" 1 0
  ours=$R
  local g
  g=$(gbps "$ours" "$bpc" "$cells" 1)
  row "$label: generated / hand-written" 1 "$ours" "$base" "$(ratio "$ours" "$base")" "$g" "$(pct "$g" "$copy")" \
    "hand-written $(gbps "$base" "$bpc" "$cells" 1) GB/s"
  eval "t1_$name=$ours"
}
one_gpu "jacobi2d 16384^2, 1000 steps" jacobi2d_16384 8 $c16 hand-jacobi2d.log \
  env CUDA_VISIBLE_DEVICES=0 "$H/handwritten_jacobi2d" 16384 16384 1000 "$hreps"
one_gpu "heat3d 512^3, 1000 steps" heat3d_512 8 $c512 hand-heat3d.log \
  env CUDA_VISIBLE_DEVICES=0 "$H/handwritten_heat3d" 512 512 512 1000 "$hreps"
one_gpu "acoustic 512^3, 500 steps, 16 B/cell" acoustic_512 16 $c512 hand-acoustic.log \
  env CUDA_VISIBLE_DEVICES=0 "$H/handwritten_acoustic" 512 512 512 500 "$hreps"
one_gpu "jacobi2d_fast 16384^2, 1000 steps" jacobi2d_fast_16384 8 $c16 hand-jacobi2d_fast.log \
  env CUDA_VISIBLE_DEVICES=0 "$H/handwritten_jacobi2d_fast" 16384 16384 1000 "$hreps"
# Tuning aids (hand-written only): other rows per thread and block widths of the fast kernel.
for v in "rows8 128" "rows32 128" "rows16 256" "rows16 64"; do
  set -- $v
  bin=$H/handwritten_jacobi2d_fast
  [ "$1" != rows16 ] && bin=${bin}_$1
  CUDA_VISIBLE_DEVICES=0 "$bin" 16384 16384 1000 3 "$2" >"$out/hand-jacobi2d_fast-$1-bx$2.log" 2>&1
  tms=$(hand_result "$out/hand-jacobi2d_fast-$1-bx$2.log")
  g=$(gbps "$tms" 8 $c16 1)
  row "jacobi2d_fast 16384^2 hand-written, $1, block $2x1" 1 - "$tms" - "$g" "$(pct "$g" "$copy")" "tuning aid"
done

# jacobi2d_fast computes what jacobi2d computes: the same arrays after 100 steps, bit for bit.
check=()
fast_same() {  # fast_same GPUS VISIBLE: jacobi2d_fast_16384 on GPUS GPUs against jacobi2d_16384 on 1
  local n=$1 vis=$2 d=$work/fastcheck
  mkdir -p "$d"
  [ -f "$d/ref-A.raw" ] || CUDA_VISIBLE_DEVICES=0 "$work/build-jacobi2d_16384/jacobi2d_16384" --devices 1 --steps 100 \
    --save "A=$d/ref-A.raw" >"$out/check-jacobi2d-1gpu.log" 2>&1
  local extra=()
  [ "$n" -gt 1 ] && extra=(--verify)
  rm -f "$d/fast-A.raw"
  CUDA_VISIBLE_DEVICES=$vis "$work/build-jacobi2d_fast_16384/jacobi2d_fast_16384" --devices "$n" --steps 100 \
    --save "A=$d/fast-A.raw" "${extra[@]}" >"$out/check-jacobi2d_fast-${n}gpu.log" 2>&1
  local v="DIFFERS"
  cmp -s "$d/ref-A.raw" "$d/fast-A.raw" && v="bit-exact"
  grep -q "verify: FAILED" "$out/check-jacobi2d_fast-${n}gpu.log" && v="$v, verify FAILED"
  grep -q "verify: OK" "$out/check-jacobi2d_fast-${n}gpu.log" && v="$v, verify OK"
  check+=("jacobi2d_fast_16384 on $n GPU(s), 100 steps, A against jacobi2d_16384 on 1 GPU: $v")
}
fast_same 1 0

# ------------------------------------------------------------------------------------------------
# 3. Two GPUs (0 and 1)
# ------------------------------------------------------------------------------------------------
sanitizer="not run (1 GPU)"
if [ "$gpus" -ge 2 ]; then
  two() {  # two LABEL NAME BYTES_PER_CELL CELLS T1 [VAR=VALUE...]: the 2-GPU row against T1
    local label=$1 name=$2 bpc=$3 cells=$4 t1=$5; shift 5
    local t2 g
    gen_run "$name" 2 0,1 "$@"
    t2=$R
    g=$(gbps "$t2" "$bpc" "$cells" 2)
    local note
    note="efficiency t1/(2 t2); exchange $(exchange_ms "$LOG") ms/step"
    note="$note; exchange paths: $(grep -c 'GPU to GPU' "$LOG") peer, $(grep -c 'through pinned host' "$LOG") host-staged"
    note="$note; $(grep -m1 -o 'overlap: [a-z]*' "$LOG")"
    if [ $# -gt 0 ]; then
      note="$note; $*"
    else
      eval "t2_$name=$t2"
    fi
    row "$label, 2 GPUs vs 1" 2 "$t2" "$t1" "$(eff "$t1" "$t2" 2)" "$g" "$(pct "$g" "$copy")" "$note"
  }
  two "jacobi2d 16384^2" jacobi2d_16384 8 $c16 "$t1_jacobi2d_16384"
  saved_reps=$reps
  reps=1  # host staging: one run
  two "jacobi2d 16384^2, host staging" jacobi2d_16384 8 $c16 "$t1_jacobi2d_16384" STEPGEN_CUDA_PEER=off
  reps=$saved_reps
  gen_run jacobi2d_20480 1 0
  t1_jacobi2d_20480=$R
  g=$(gbps "$t1_jacobi2d_20480" 8 $c20 1)
  row "jacobi2d 20480^2, 1000 steps, 1 GPU" 1 "$t1_jacobi2d_20480" - - "$g" "$(pct "$g" "$copy")" "the 1-GPU time of the rows below"
  two "jacobi2d 20480^2" jacobi2d_20480 8 $c20 "$t1_jacobi2d_20480"
  two "jacobi2d_fast 16384^2" jacobi2d_fast_16384 8 $c16 "$t1_jacobi2d_fast_16384"
  gen_run jacobi2d_fast_20480 1 0
  t1_jacobi2d_fast_20480=$R
  g=$(gbps "$t1_jacobi2d_fast_20480" 8 $c20 1)
  row "jacobi2d_fast 20480^2, 1000 steps, 1 GPU" 1 "$t1_jacobi2d_fast_20480" - - "$g" "$(pct "$g" "$copy")" ""
  two "jacobi2d_fast 20480^2" jacobi2d_fast_20480 8 $c20 "$t1_jacobi2d_fast_20480"

  # The hand-written peer-to-peer baseline.
  for n in 16384 20480; do
    log=$out/hand-jacobi2d-p2p-$n.log
    CUDA_VISIBLE_DEVICES=0,1 "$H/handwritten_jacobi2d_2gpu" $n $n 1000 "$hreps" >"$log" 2>&1 ||
      echo "FAILED: handwritten_jacobi2d_2gpu $n ($(tail -1 "$log"))"
    h1=$(hand_result "$log" 1)
    h2=$(hand_result "$log" 2)
    cells=$((n * n))
    g=$(gbps "$h2" 8 $cells 2)
    row "jacobi2d $n^2 hand-written P2P, 2 GPUs vs 1" 2 "$h2" "$h1" "$(eff "$h1" "$h2" 2)" "$g" "$(pct "$g" "$copy")" \
      "efficiency; $(grep -m1 -o 'check: .*' "$log"); $(grep -m1 -o 'exchange path: .*' "$log")"
    v=t2_jacobi2d_$n
    row "jacobi2d $n^2, 2 GPUs: generated / hand-written P2P" 2 "${!v:-?}" "$h2" "$(ratio "${!v:-?}" "$h2")" - - "time ratio"
  done

  # Weak scaling: 20480^2 per GPU.
  gen_run jacobi2d_20480x40960 2 0,1
  t=$R
  g=$(gbps "$t" 8 $((2 * c20)) 2)
  row "weak: jacobi2d 20480x40960 (20480^2 per GPU)" 2 "$t" "$t1_jacobi2d_20480" "$(eff "$t1_jacobi2d_20480" "$t" 1)" "$g" \
    "$(pct "$g" "$copy")" "weak efficiency t1(20480^2)/t2"

  fast_same 2 0,1

  # compute-sanitizer on the hand-written 2-GPU program (small grid).
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  if [ -x "$san" ]; then
    if CUDA_VISIBLE_DEVICES=0,1 "$san" --tool memcheck --error-exitcode 9 "$H/handwritten_jacobi2d_2gpu" 512 512 10 1 \
      >"$out/sanitizer-p2p.log" 2>&1; then
      sanitizer="clean ($(grep -m1 -o 'ERROR SUMMARY: [0-9]* errors' "$out/sanitizer-p2p.log"))"
    else
      sanitizer="ERRORS (see sanitizer-p2p.log): $(grep -m1 'ERROR SUMMARY' "$out/sanitizer-p2p.log")"
    fi
  fi
fi

# ------------------------------------------------------------------------------------------------
# 4. Four GPUs (0-3): strong scaling of jacobi2d 20480^2 and heat3d 1024^3, weak scaling
# ------------------------------------------------------------------------------------------------
if [ "$gpus" -ge 4 ]; then
  four() {  # four LABEL NAME BYTES_PER_CELL CELLS T1 N VISIBLE [STRATEGY]
    local label=$1 name=$2 bpc=$3 cells=$4 t1=$5 n=$6 vis=$7 strategy=${8:-} tn g
    if [ -n "$strategy" ]; then gen_run "$name" "$n" "$vis" -- --strategy "$strategy"; label="$label, $strategy"
    else gen_run "$name" "$n" "$vis"; fi
    tn=$R
    g=$(gbps "$tn" "$bpc" "$cells" "$n")
    row "$label, $n GPUs vs 1" "$n" "$tn" "$t1" "$(eff "$t1" "$tn" "$n")" "$g" "$(pct "$g" "$copy")" \
      "efficiency; $(grep -m1 -o 'grid [0-9x]*' "$LOG"); $(grep -m1 -o 'exchanges [0-9]* bytes per step' "$LOG"); exchange $(exchange_ms "$LOG") ms/step; $(grep -m1 -o '^overlap: [a-z]*' "$LOG"); $(grep -c 'GPU to GPU' "$LOG") peer paths"
  }
  four "jacobi2d 20480^2" jacobi2d_20480 8 $c20 "$t1_jacobi2d_20480" 4 0,1,2,3
  gen_run heat3d_1024 1 0
  t1_heat=$R
  g=$(gbps "$t1_heat" 8 $c1024 1)
  row "heat3d 1024^3, 1000 steps, 1 GPU" 1 "$t1_heat" - - "$g" "$(pct "$g" "$copy")" ""
  four "heat3d 1024^3" heat3d_1024 8 $c1024 "$t1_heat" 2 0,1
  four "heat3d 1024^3" heat3d_1024 8 $c1024 "$t1_heat" 4 0,1,2,3
  # The partitioner's other choice: the grid with the fewest bytes exchanged (1x2x2, strided
  # faces, no overlapped boundary slabs) against the default slabs (1x1x4).
  four "heat3d 1024^3" heat3d_1024 8 $c1024 "$t1_heat" 4 0,1,2,3 min-exchange
  if [ "$gpus" -ge 8 ]; then
    all8=0,1,2,3,4,5,6,7
    four "jacobi2d 20480^2" jacobi2d_20480 8 $c20 "$t1_jacobi2d_20480" 8 $all8
    four "jacobi2d 20480^2" jacobi2d_20480 8 $c20 "$t1_jacobi2d_20480" 8 $all8 min-exchange
    four "heat3d 1024^3" heat3d_1024 8 $c1024 "$t1_heat" 8 $all8
    four "heat3d 1024^3" heat3d_1024 8 $c1024 "$t1_heat" 8 $all8 min-exchange   # 2x2x2
    four "heat3d 1024^3" heat3d_1024 8 $c1024 "$t1_heat" 8 $all8 stepocl
  fi
  gen_run jacobi2d_20480x81920 4 0,1,2,3
  t=$R
  g=$(gbps "$t" 8 $((4 * c20)) 4)
  row "weak: jacobi2d 20480x81920 (20480^2 per GPU)" 4 "$t" "$t1_jacobi2d_20480" "$(eff "$t1_jacobi2d_20480" "$t" 1)" "$g" \
    "$(pct "$g" "$copy")" "weak efficiency t1(20480^2)/t4"
fi

# ------------------------------------------------------------------------------------------------
# The table
# ------------------------------------------------------------------------------------------------
{
  echo
  echo "== CUDA benchmarks on $gpus GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $((SECONDS - start_all)) s in all"
  echo "ours / baseline: ms/step (generated: time loop, kernels+exchange, busiest GPU, CUDA events;"
  echo "median of $reps runs after a warm-up run; hand-written: CUDA events, median of $hreps)."
  echo "GB/s: effective, per GPU (8 bytes per cell; acoustic 16); % of the device copy bandwidth ($copy GB/s)."
  printf '%-58s %4s %9s %9s %9s %11s %7s  %s\n' benchmark GPUs ours baseline ratio/eff GB/s "%copy" notes
  printf '%s\n' "${rows[@]}"
  printf '%s\n' "${check[@]}"
  echo "compute-sanitizer memcheck, hand-written 2-GPU Jacobi 512^2, 10 steps: $sanitizer"
} | tee "$out/summary.txt"
