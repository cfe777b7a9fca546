#!/usr/bin/env bash
# Phases `mpiskew-generate` and `mpiskew`: issue 26's MPI out-of-core model on the small runs,
# where the ranks' pass boundaries cost more than their messages (the ranks reach a boundary at
# different times: 2026-11-28-late-h200x4.md). Since 2026-11-29 start-up measures that cost
# (Link::boundary: rounds in lockstep, a step of the probe and a small message to and from the
# neighbours each, through the run's exchange) and the model charges it at every pass boundary.
# STEPGEN_BOUNDARY_DEBUG=1 makes each rank print its exchange's split (pack, send, waits, unpack).
# Every example's MPI CUDA program and wave2k (bench/unseen/wave2k), 2 ranks (one GPU each
# where there are 2, else sharing one), out of core k = 1 and k = 2, MODEL_REPS runs each
# (default 3), each compared bit for bit with the ranks' in-core run; then per run the medians
# of predicted and measured time, the calibration's boundary figure and the pass boundaries'
# measured cost beyond the prediction ((measured - predicted) / boundaries).
#
#   bench/run.sh mpiskew-generate   HERE: the MPI CUDA trees into bench/generated/mpiskew
#   bench/run.sh mpiskew            ON THE GPU MACHINE: builds, runs, prints a table last
set -u
. "$(dirname "$0")/lib.sh"
gen=$gen/mpiskew
names=(acoustic advect blur9 heat3d jacobi2d jacobi2d_fast stepocl_jacobi twostage wave2k)

if [ "${1:-}" = generate ]; then
  set -e
  stepgen=$(find_stepgen)
  rm -rf "$gen"
  mkdir -p "$gen"
  for n in "${names[@]}"; do
    s=$root/examples/$n/$n.xml
    [ "$n" = wave2k ] && s=$root/bench/unseen/wave2k/wave2k.xml
    "$stepgen" generate "$s" --target cuda --distribution mpi -o "$gen/mpi-$n" >/dev/null
  done
  echo "generated $gen"
  exit 0
fi

mkdir -p "$out"
w=$work/mpiskew
rm -rf "$w"
mkdir -p "$w"
reps=${MODEL_REPS:-3}
build_mpi_trees "$gen" "$w" mpiskew "${names[@]}"
gpus=$(gpu_count)
mpi_two_ranks "$gpus"
export STEPGEN_BOUNDARY_DEBUG=1
flags=(--allow-run-as-root --oversubscribe -x STEPGEN_MPI_SHARE_DEVICES -x STEPGEN_BOUNDARY_DEBUG)
arrays_of() { saved_arrays "$w/$1/$1" "$1"; }
same=0 differ=0 rows=()
for n in "${names[@]}"; do
  bin=$w/$n/$n
  [ -x "$bin" ] || { rows+=("FAIL  $n: not built"); differ=$((differ + 1)); continue; }
  for m in "incore:" "k1:--out-of-core on --ooc-chunks 2 --steps-per-pass 1" \
           "k2:--out-of-core on --ooc-chunks 1 --steps-per-pass 2"; do
    tag=${m%%:*} args=${m#*:}
    for i in $(seq 1 "$reps"); do
      [ "$tag" = incore ] && [ "$i" -gt 1 ] && break
      saves=()
      if [ "$i" = 1 ]; then
        for a in $(arrays_of "$n"); do saves+=(--save "$a=$w/$n.$tag.$a.raw"); done
      fi
      # shellcheck disable=SC2086
      mpirun "${flags[@]}" -np 2 "$bin" $args "${saves[@]}" >"$out/mpiskew-$n.$tag.$i.log" 2>&1 ||
        echo "exit $?" >>"$out/mpiskew-$n.$tag.$i.log"
    done
    [ "$tag" = incore ] && continue
    for a in $(arrays_of "$n"); do
      if [ -s "$w/$n.incore.$a.raw" ] && cmp -s "$w/$n.incore.$a.raw" "$w/$n.$tag.$a.raw"; then
        same=$((same + 1))
      else
        differ=$((differ + 1)); rows+=("FAIL  $n $tag ($a) differs from the in-core run")
      fi
    done
  done
done
echo
echo "per run, medians of $reps: predicted and measured s, their ratio; per pass boundary (us):"
echo "the calibration's boundary figure, the exchange (report), measured - predicted"
printf '  %-20s %10s %10s %6s %8s %9s %9s\n' run predicted measured ratio boundary exchange gap
within=0 total=0 ratios=()
for n in "${names[@]}"; do
  for tag in k1 k2; do
    logs=("$out/mpiskew-$n.$tag."*.log)
    [ -f "${logs[0]}" ] || continue
    p=$(for f in "${logs[@]}"; do grep -m1 -oE "predicted [0-9.]+ s" "$f" | awk '{print $2}'; done | median)
    m=$(for f in "${logs[@]}"; do grep -m1 -oE "measured [0-9.]+ s" "$f" | awk '{print $2}'; done | median)
    # boundary=, us (absent from the calibration line: 0)
    b=$(for f in "${logs[@]}"; do awk '/calibration:/ {v = 0; if (split($0, a, "boundary=") > 1) v = a[2] + 0; print v; exit}' "$f"; done | median)
    x=$(for f in "${logs[@]}"; do awk '/^  exchange: / {x = $2} /pass\(es\)/ {for (i = 1; i <= NF; i++) if ($i ~ /^pass\(es\)/) p = $(i - 1)} END {if (p > 1) print 1e6 * x / (p - 1)}' "$f"; done | median)
    passes=$(grep -m1 -oE "[0-9]+ pass\(es\)" "${logs[0]}" | awk '{print $1}')
    [ "$p" = "?" ] || [ "$m" = "?" ] && { rows+=("FAIL  $n $tag: no prediction"); continue; }
    gap=$(awk -v p="$p" -v m="$m" -v n="${passes:-2}" 'BEGIN {printf "%.1f", 1e6 * (m - p) / (n - 1)}')
    r=$(awk -v p="$p" -v m="$m" 'BEGIN {printf "%.2f", p / m}')
    total=$((total + 1))
    awk -v r="$r" 'BEGIN {exit !(r >= 0.75 && r <= 1.25)}' && within=$((within + 1))
    ratios+=("$r")
    printf '  %-20s %10.6f %10.6f %6s %8.1f %9.1f %9s\n' "$n.$tag" "$p" "$m" "$r" "$b" "${x:-0}" "$gap"
  done
done
echo
printf '%s\n' "${rows[@]}"
echo "mpiskew: $same same, $differ differ; model: $within of $total within 25%, predicted/measured $(printf '%s\n' "${ratios[@]}" | sort -g | head -1) to $(printf '%s\n' "${ratios[@]}" | sort -g | tail -1)"
