#!/usr/bin/env bash
# Phases `vecwrap-generate` and `vecwrap`: two kinds of kernel written for one device, in CUDA on
# the GPU (CI runs the OpenCL twins on PoCL: tests/e2e/vector_items_test.sh, tests/probe.cmake).
#  - A float grid read through float4 pointers (global size extent(A, 0) / 4,
#    tests/e2e/vector_items): nvcc must accept the launch (the array's pointer passed as
#    const float4*), the parts are cut at multiples of 4 cells (4 MPI ranks with min-exchange
#    cut x), out of core runs rows.xml and refuses line.xml (its slowest dimension is x): a part
#    cut inside a float4 would leave cells wrong on 4 devices with min-exchange, exit 0.
#  - A periodic wrap inside the kernel (tests/probe/wrap, (x + 1) % nx): the start-up probe
#    refuses it (run, every mode but one device would be wrong, exit 0).
#  - A template kernel and a float4 kernel in one program (tests/cuda_emu/forms): nvcc must
#    compile the launches (jacobi<float>; the float4 parameter), with the emulation's bits.
#  - The grid's size fixed in the kernel (tests/probe/fixed, #define NX 64): the probe's guard
#    zone catches its writes past the buffer (unchecked, they would crash the program).
#
#   bench/run.sh vecwrap-generate   HERE: the CUDA trees and the PoCL runs' arrays
#   bench/run.sh vecwrap            ON THE GPU MACHINE: builds them, runs, compares with PoCL
set -u
. "$(dirname "$0")/lib.sh"
gen=$gen/vecwrap
vec=$root/tests/e2e/vector_items
wrap=$root/tests/probe/wrap
fixed=$root/tests/probe/fixed
forms=$root/tests/cuda_emu/forms

if [ "${1:-}" = generate ]; then
  set -e
  stepgen=$(find_stepgen)
  rm -rf "$gen"
  mkdir -p "$gen/spec" "$gen/pocl-rows" "$gen/pocl-line"
  cp "$vec"/*.xml "$vec"/*.cl "$vec"/*.cu "$wrap"/wrap.* "$fixed"/fixed.* "$gen/spec/"
  for s in rows line wrap fixed; do
    "$stepgen" generate "$gen/spec/$s.xml" --target cuda -o "$gen/$s" >/dev/null
  done
  "$stepgen" generate "$gen/spec/rows.xml" --target cuda --distribution mpi -o "$gen/rows-mpi" >/dev/null
  # A template kernel and a float4 kernel (tests/cuda_emu/forms): the expected bits from the CPU
  # emulation of CUDA (no FMA contraction there, --fmad=false on the GPU).
  mkdir -p "$gen/forms-spec" "$gen/emu-forms"
  cp "$forms"/forms.* "$gen/forms-spec/"
  "$stepgen" generate "$gen/forms-spec/forms.xml" --target cuda -o "$gen/forms" >/dev/null
  "$root/tests/cuda_emu/build.sh" "$gen/forms" "$gen/emu-forms/forms" >/dev/null
  (cd "$gen/emu-forms" && STEPGEN_CUDA_EMULATE=1 ./forms --save A=A.raw --save B=B.raw >log.txt 2>&1)
  rm -f "$gen/emu-forms/forms"
  for s in rows line; do
    "$stepgen" generate "$gen/spec/$s.xml" --target opencl -o "$gen/ocl-$s" >/dev/null
    cmake -S "$gen/ocl-$s" -B "$gen/ocl-$s/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$gen/ocl-$s/build" -j 2 >/dev/null
    (cd "$gen/pocl-$s" && POCL_DEVICES=pthread "$gen/ocl-$s/build/$s" --device-type cpu \
       --save A=A.raw --save B=B.raw >log.txt 2>&1)
    rm -rf "$gen/ocl-$s"
  done
  echo "generated $gen"
  exit 0
fi

mkdir -p "$out"
w=$work/vecwrap
rm -rf "$w"
mkdir -p "$w"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
status=0
rows=()
for t in rows line wrap fixed rows-mpi forms; do build_cuda_tree "$gen/$t" "$w/$t" & done
wait
run() {  # run LABEL PROGRAM-DIR BINARY RANKS ARGS...: the exit status and log of one run
  local label=$1 program=$2 binary=$3 ranks=$4; shift 4
  local d=$w/run-$label
  mkdir -p "$d"
  if [ "$ranks" = 0 ]; then
    (cd "$d" && "$w/$program/$binary" "$@" >log.txt 2>&1)
  else
    (cd "$d" && mpirun --allow-run-as-root --oversubscribe -x STEPGEN_MPI_SHARE_DEVICES=1 -np "$ranks" \
       "$w/$program/$binary" "$@" >log.txt 2>&1)
  fi
  local rc=$?
  cp "$d/log.txt" "$out/$label.log" 2>/dev/null
  return $rc
}
same() {  # same LABEL RC POCL-DIR: a row for a run that must save PoCL's bits
  local label=$1 rc=$2 pocl=$3 ok=yes
  for a in A B; do cmp -s "$w/run-$label/$a.raw" "$pocl/$a.raw" || ok=no; done
  if [ "$rc" -eq 0 ] && [ $ok = yes ]; then
    rows+=("| $label | exit 0, A and B: the expected bits |")
  else
    rows+=("| $label | FAIL: exit $rc, the expected bits: $ok |"); status=1
  fi
}
refused() {  # refused LABEL RC TEXT: a row for a run that must stop with TEXT
  local label=$1 rc=$2 text=$3
  if [ "$rc" -ne 0 ] && grep -qF "$text" "$w/run-$label/log.txt"; then
    rows+=("| $label | refused (exit $rc): $text |")
  else
    rows+=("| $label | FAIL: exit $rc, no \"$text\" |"); status=1
  fi
}
save=(--save A=A.raw --save B=B.raw)
run rows-1 rows rows 0 "${save[@]}"; same rows-1 $? "$gen/pocl-rows"
run rows-ooc-k3 rows rows 0 --out-of-core on --ooc-chunks 3 --steps-per-pass 3 "${save[@]}"
same rows-ooc-k3 $? "$gen/pocl-rows"
run rows-mpi4-min-exchange rows-mpi rows 4 --strategy min-exchange "${save[@]}"
same rows-mpi4-min-exchange $? "$gen/pocl-rows"
grep -q "grid 4x1\|grid 2x2" "$w/run-rows-mpi4-min-exchange/log.txt" ||
  { rows+=("| rows-mpi4-min-exchange | FAIL: x was not cut |"); status=1; }
run rows-mpi3-weights rows-mpi rows 3 --strategy min-exchange --weights 1,3,2 "${save[@]}"
same rows-mpi3-weights $? "$gen/pocl-rows"
run line-1 line line 0 "${save[@]}"; same line-1 $? "$gen/pocl-line"
run line-ooc line line 0 --out-of-core on --ooc-chunks 3 "${save[@]}"
refused line-ooc $? "this program cannot run out of core: kernel 'scale' computes 4 cells per work-item"
run wrap-1 wrap wrap 0 "${save[@]}"
refused wrap-1 $? "kernel 'jacobi' reads array 'A' across its buffer"
run forms-1 forms forms 0 "${save[@]}"; same forms-1 $? "$gen/emu-forms"
run forms-ooc forms forms 0 --out-of-core on --ooc-chunks 3 --steps-per-pass 2 "${save[@]}"
same forms-ooc $? "$gen/emu-forms"
run fixed-1 fixed fixed 0 "${save[@]}"
refused fixed-1 $? "kernel 'jacobi' writes past the end of its buffer of array 'B'"
echo
echo "| run (CUDA) | result |"
echo "| --- | --- |"
printf '%s\n' "${rows[@]}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
exit $status
