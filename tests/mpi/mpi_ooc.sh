# Sourced by mpi_test.sh for every example ($out/build/$example is the MPI program, $refdir the
# serial reference's arrays, $arrays their names, $counts the rank counts): out of core per
# rank, with k = 1 and 2 steps per pass on 1, 2 and 3 ranks. A --device-memory of 60% of a
# rank's share of the arrays forces every part out of core (chunks chosen by the model, the same
# on every rank). Where the chunk buffers of k steps cannot fit that budget (small 3D grids with
# wide halos), the program must say so, and the run is forced with --out-of-core on and 2
# chunks (1 where a chunk would be thinner than k steps' halo). Every saved array must equal
# the reference, which equals the single-process in-core run (tests/e2e), bit for bit; the
# last rank count with k = 2 also passes --verify. Last, `--out-of-core auto` on 2 ranks
# (jacobi2d, heat3d): one choice line, the same bits.
# A spec with a <boundary> (examples/grayscott, periodic) runs out of core like any other: the
# frames' edge slabs are gathered from every rank at each pass boundary (mpi_rank.hpp).
all=$(POCL_DEVICES=pthread stepgen_mpirun 1 "$out/build/$example" --help | sed -n 's/^arrays: //p' | wc -w)
bytes=0
for a in $arrays; do bytes=$((bytes + $(stat -c %s "$refdir/$a.raw"))); done
bytes=$((bytes / $(echo $arrays | wc -w) * all))  # every array, the read-only ones too
ooc_runs=0
ooc_run() {  # ooc_run RANKS DIR ARGS...: runs out of core; 1 when the plan cannot be made
  local n=$1 run=$2 saves=()
  shift 2
  for a in $arrays; do saves+=(--save "$a=$run/$a.raw"); done
  POCL_DEVICES=$(printf 'pthread %.0s' $(seq "$n")) \
    stepgen_mpirun "$n" "$out/build/$example" --device-type cpu "$@" "${saves[@]}" > "$run/log.txt" 2>&1 && return 0
  if grep -q "one chunk with its halos cannot fit: \|use fewer chunks or fewer steps per pass" "$run/log.txt"; then
    local errors
    errors=$(grep -c "^$example: error: " "$run/log.txt")
    [ "$errors" -eq 1 ] || { cat "$run/log.txt"; echo "FAIL: the plan's error printed $errors times"; exit 1; }
    echo "ok: $example on $n rank(s) with $*: $(grep "^$example: error: " "$run/log.txt")"
    return 1
  fi
  cat "$run/log.txt"; echo "FAIL: out of core, $n rank(s), $*: the run failed"; exit 1
}
for n in $counts; do
  budget=$((bytes * 6 / 10 / n))
  for k in 1 2; do
    run="$work/$example-runs/ooc-$n-k$k"
    mkdir -p "$run"
    extra=()  # rank 0 reruns the whole grid in core on its device and compares, once
    [ "$n" -eq "${counts##* }" ] && [ "$k" -eq 2 ] && extra=(--verify)
    if ooc_run "$n" "$run" --device-memory "$budget" --steps-per-pass "$k" "${extra[@]}"; then
      grep -q "^out-of-core: on (the largest part needs" "$run/log.txt" ||
        { cat "$run/log.txt"; echo "FAIL: $n rank(s) under $budget bytes did not run out of core"; exit 1; }
    elif ! ooc_run "$n" "$run" --out-of-core on --ooc-chunks 2 --steps-per-pass "$k" "${extra[@]}" &&
         ! ooc_run "$n" "$run" --out-of-core on --ooc-chunks 1 --steps-per-pass "$k" "${extra[@]}"; then
      cat "$run/log.txt"; echo "FAIL: $n rank(s), k = $k: no out-of-core plan"; exit 1
    fi
    grep -q "^out-of-core: on" "$run/log.txt" || { cat "$run/log.txt"; echo "FAIL: not out of core"; exit 1; }
    # The common report's `kernels:` is the slowest rank's events around its compute commands,
    # as in one process (it printed 0 for MPI ranks out of core until 2026-11-28).
    kernels=$(sed -n 's/^  kernels: *\([0-9.]*\) s$/\1/p' "$run/log.txt")
    awk -v k="${kernels:-0}" 'BEGIN { exit !(k > 0) }' ||
      { cat "$run/log.txt"; echo "FAIL: $n rank(s) out of core: kernels: ${kernels:-missing} s (not split)"; exit 1; }
    # The exchange's waits for the messages, longest and least over the ranks: part of
    # exchange: (0 <= least <= longest <= exchange; with 2+ ranks a rank waits at every boundary).
    exchange=$(sed -n 's/^  exchange: *\([0-9.]*\) s, .*/\1/p' "$run/log.txt")
    read -r longest least < <(sed -n 's/^    waiting for the messages: \([0-9.]*\) s on rank [0-9]* (the longest), \([0-9.]*\) s on rank [0-9]* (the least; .*/\1 \2/p' "$run/log.txt")
    awk -v x="${exchange:-0}" -v l="${longest:--1}" -v s="${least:--1}" -v n="$n" \
        'BEGIN { exit !(s >= 0 && s <= l && l <= x && (n < 2 || l > 0)) }' ||
      { cat "$run/log.txt"; echo "FAIL: $n rank(s) out of core: the messages' waits (${longest:-missing}, ${least:-missing}) against exchange: ${exchange:-missing} s"; exit 1; }
    if [ ${#extra[@]} -gt 0 ] && ! grep -q "verify: OK: $n rank(s) equal 1 device" "$run/log.txt"; then
      cat "$run/log.txt"; echo "FAIL: --verify out of core on $n rank(s)"; exit 1
    fi
    grep -q "^  [0-9]* chunk(s)[ (model)]*, $k step(s) per pass" "$run/log.txt" ||
      { cat "$run/log.txt"; echo "FAIL: not $k step(s) per pass"; exit 1; }
    for a in $arrays; do
      if ! cmp -s "$run/$a.raw" "$refdir/$a.raw"; then
        cat "$run/log.txt"
        echo "FAIL: $example out of core on $n rank(s), k = $k: array $a differs from the reference"
        cmp "$run/$a.raw" "$refdir/$a.raw" | head -1 || true
        exit 1
      fi
    done
    ooc_runs=$((ooc_runs + 1))
    echo "ok: $example out of core on $n rank(s): $(grep -o '[0-9]* chunk(s)[^,]*, [0-9]* step(s) per pass' "$run/log.txt"): equal the reference"
  done
done
# Parts cut along x as well, of different widths (4 ranks, min-exchange, --weights): the start-up
# meeting (Link::boundary) sends one plane shape agreed by every rank (each rank's own plane
# made MPI_Waitall fail, 2026-11-29), and the run equals the reference. jacobi2d only (CI time).
if [ "$example" = jacobi2d ]; then
  run="$work/$example-runs/ooc-4-weights"
  mkdir -p "$run"
  ooc_run 4 "$run" --strategy min-exchange --weights 1,3,2,5 --out-of-core on --ooc-chunks 2 \
    --steps-per-pass 1 || { cat "$run/log.txt"; echo "FAIL: 4 weighted ranks: no plan"; exit 1; }
  grep -q "grid 2x2x1" "$run/log.txt" || { cat "$run/log.txt"; echo "FAIL: not a 2x2 split"; exit 1; }
  for a in $arrays; do
    cmp -s "$run/$a.raw" "$refdir/$a.raw" ||
      { cat "$run/log.txt"; echo "FAIL: 4 weighted ranks out of core: array $a differs"; exit 1; }
  done
  echo "ok: $example out of core on 4 ranks cut 2x2 with --weights 1,3,2,5: equal the reference"
fi
# `--out-of-core auto` given, on data that fits (issue 26, every mode): on 2 ranks, the ranks
# calibrate out of core on their parts, take the slowest figures (the same on every rank) and
# compare the in-core run with the best out-of-core plan; rank 0 prints one line saying which it
# took and why, and the arrays equal the reference (all steps) and the in-core run (2 steps:
# copies are most of the run) whichever it took. jacobi2d and heat3d only (CI time). On PoCL's
# CPU devices the link is fast against the kernels and in core is taken; out of core after
# auto is the run above with the choice's line in its report.
case $example in jacobi2d | heat3d)
  for steps in all 2; do
    for mode in auto off; do
      [ "$steps" = all ] && [ "$mode" = off ] && continue  # the reference is that run
      run="$work/$example-runs/auto-2-$steps-$mode"
      mkdir -p "$run"
      args=(--out-of-core "$mode")
      [ "$steps" = all ] || args+=(--steps "$steps")
      ooc_run 2 "$run" "${args[@]}" || { cat "$run/log.txt"; echo "FAIL: $example: ${args[*]}"; exit 1; }
    done
    run="$work/$example-runs/auto-2-$steps-auto"
    lines=$(grep -c "^out of core: auto -> \(in core\|out of core\) (predicted [0-9.]* s vs [0-9.]* s" "$run/log.txt" || true)
    [ "$lines" -eq 1 ] || { cat "$run/log.txt"; echo "FAIL: $example: --out-of-core auto on 2 ranks printed $lines choice lines, not 1"; exit 1; }
    if grep -q "^out of core: auto -> out of core" "$run/log.txt"; then
      grep -q "^out-of-core: on (--out-of-core auto: predicted faster than in core)" "$run/log.txt" ||
        { cat "$run/log.txt"; echo "FAIL: $example: auto took out of core without saying why"; exit 1; }
    fi
    against="$work/$example-runs/auto-2-2-off"
    [ "$steps" = all ] && against=$refdir
    for a in $arrays; do
      cmp -s "$run/$a.raw" "$against/$a.raw" ||
        { cat "$run/log.txt"; echo "FAIL: $example: --out-of-core auto on 2 ranks ($steps steps): array $a differs"; exit 1; }
    done
    echo "ok: $example on 2 ranks, $steps steps: $(grep -o '^out of core: auto -> [a-z ]*' "$run/log.txt"), the same bits"
  done
  ;;
esac
