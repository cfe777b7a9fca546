#!/usr/bin/env bash
# Phase `l2cost` (GPU machine, after `SIM_ONLY="jacobi2d_16384 jacobi_l2" bench/run.sh
# sim-generate` here; carry bench/generated/sim): issue 24's cost of `<reduce op="l2" minus="A"
# every="100">` in the whole program, Jacobi 16384^2, 1000 steps, one GPU, both backends: the
# program with fixed boundaries and the same with the reduction, run alternately REPS times
# (default 5; alternating spreads the card's drift over both), the median time-loop ms/step of
# each and the cost (target: at most 2%). The reduction's values are printed by both backends:
# the same bits. Prints a table last.
# Usage: bench/run.sh l2cost
set -u
. "$(dirname "$0")/lib.sh"
s=$gen/sim
mkdir -p "$out" "$work/sim"
reps=${REPS:-5}
export LD_LIBRARY_PATH=$s/opencl/lib:${LD_LIBRARY_PATH:-}
register_nvidia_opencl
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
for n in jacobi2d_16384 jacobi_l2; do
  b=$work/sim/build-$n
  { cmake -S "$s/cuda-$n" -B "$b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-native}" &&
      cmake --build "$b" -j 8; } >"$out/build-$n.log" 2>&1 &
done
wait
declare -A vals
for i in $(seq "$reps"); do
  for be in cuda opencl; do
    for n in jacobi2d_16384 jacobi_l2; do
      bin=$work/sim/build-$n/$n
      [ "$be" = opencl ] && bin=$s/opencl/bin/$n
      log=$out/$be-$n-$i.log
      if [ -x "$bin" ] && "$bin" --device-type gpu >"$log" 2>&1; then
        vals[$be-$n]+="$(awk '/^time:/ {gsub(/[()]/,""); print $7; exit}' "$log") "
      fi
    done
  done
done
echo
echo "== l2 of B - A every 100 steps, Jacobi 16384^2, 1000 steps, 1 GPU: time-loop ms/step, median of $reps alternating runs"
printf '%-8s %-10s %-10s %-8s %s\n' backend fixed "with l2" cost "runs (fixed | l2)"
for be in cuda opencl; do
  f=$(printf '%s\n' ${vals[$be-jacobi2d_16384]:-} | median)
  l=$(printf '%s\n' ${vals[$be-jacobi_l2]:-} | median)
  c=$(awk -v a="$l" -v b="$f" 'BEGIN {if (a+0 > 0 && b+0 > 0) printf "%+.2f%%", 100 * (a / b - 1); else print "-"}')
  printf '%-8s %-10s %-10s %-8s %s| %s\n' "$be" "${f:-?}" "${l:-?}" "$c" "${vals[$be-jacobi2d_16384]:-}" "${vals[$be-jacobi_l2]:-}"
done
# OpenCL variants of the reduction on the same program (the run's data): L2COST_VARIANTS, each
# MODE[:BUILD_OPTIONS] (STEPGEN_REDUCE_FLOAT, STEPGEN_REDUCE_CL_OPTIONS), REPS runs each.
if [ -n "${L2COST_VARIANTS:-}" ]; then
  echo "== OpenCL reduction variants on the same Jacobi (jacobi_l2): time-loop ms/step, median of $reps"
  for v in $L2COST_VARIANTS; do
    vals=()
    for i in $(seq "$reps"); do
      STEPGEN_REDUCE_FLOAT=${v%%:*} STEPGEN_REDUCE_CL_OPTIONS=$([[ $v == *:* ]] && echo "${v#*:}") \
        "$s/opencl/bin/jacobi_l2" --device-type gpu >"$out/variant-$i.log" 2>&1 &&
        vals+=("$(awk '/^time:/ {gsub(/[()]/,""); print $7; exit}' "$out/variant-$i.log")")
    done
    m=$(printf '%s\n' "${vals[@]}" | median)
    printf '%-40s %s   (%s)\n' "$v" "$m" "${vals[*]}"
  done
fi
echo "== the reductions printed (first run): the same bits on both backends"
for be in cuda opencl; do
  echo "$be: $(grep -m2 -E 'res' "$out/$be-jacobi_l2-1.log" 2>/dev/null | tr '\n' ' ')"
done
