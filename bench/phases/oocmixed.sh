#!/usr/bin/env bash
# Phases `oocmixed-generate` and `oocmixed`: arrays whose <boundary> kinds differ along one
# dimension (a periodic array beside mirror, copy and value(v) ones, written and read-only:
# tests/boundary/mixed_x.xml, mixed_y.xml, mixed_3d.xml), out of core on the GPU, CUDA and
# NVIDIA's OpenCL. Out of core with 2 or more steps per pass such runs were wrong in every cell,
# exit 0 (the kernels computed the periodic array's images in the frame from the other arrays'
# physical frames); now the chunks refill those frames from the far side (mixed_x, mixed_3d),
# or, where the kinds differ along the chunked dimension (mixed_y), a pass is one step and more
# are refused. CI runs the same on PoCL and the CPU emulation (tests/boundary/mixed_test.sh);
# here every run must save the bits of the same program in core on 1 GPU.
#
#   bench/run.sh oocmixed-generate   HERE: the CUDA trees (one process; mixed_x's MPI program
#                                    too), the OpenCL trees with their kernels embedded, and the
#                                    OpenCL headers and ICD loader (the GPU image has none)
#   bench/run.sh oocmixed            ON THE GPU MACHINE: builds them; per spec and backend, in
#                                    core on 1 GPU, then out of core with k = 2, 3, 4 and the
#                                    model's k (mixed_y: the model's, and k = 2 refused), on 2
#                                    GPUs where there are 2, and mixed_x's CUDA MPI program on 2
#                                    ranks with k = 3; a table last
# BACKENDS (default "cuda ocl") and OCL_DEVICE_TYPE (default gpu) pick what runs: BACKENDS=ocl
# OCL_DEVICE_TYPE=cpu runs the OpenCL part on PoCL, without a GPU (the phase's own check).
set -u
. "$(dirname "$0")/lib.sh"
gen=$gen/oocmixed
src=$root/tests/boundary
specs=(mixed_x mixed_y mixed_3d)
declare -A saves=([mixed_x]="U V W C" [mixed_y]="U V W C" [mixed_3d]="U V C")

if [ "${1:-}" = generate ]; then
  set -e
  stepgen=$(find_stepgen)
  rm -rf "$gen"
  mkdir -p "$gen/spec" "$gen/_ocl/include" "$gen/_ocl/lib"
  cp -r /usr/include/CL "$gen/_ocl/include/"
  cp -P /usr/lib/x86_64-linux-gnu/libOpenCL.so* "$gen/_ocl/lib/"
  cp "$src"/mixed_*.xml "$src"/couple*.cl "$src"/couple*.cu "$gen/spec/"
  for s in "${specs[@]}"; do
    "$stepgen" generate "$gen/spec/$s.xml" --target cuda -o "$gen/cuda-$s" >/dev/null
    "$stepgen" generate "$gen/spec/$s.xml" --target opencl -o "$gen/ocl-$s" >/dev/null
    files=$(cd "$gen/ocl-$s" && ls kernels/*.cl | tr '\n' ';' | sed 's/;$//')
    (cd "$gen/ocl-$s" && cmake -DOUT="$gen/ocl-$s/kernel_source.hpp" "-DFILES=$files" \
      -P cmake/embed_kernels.cmake)
  done
  "$stepgen" generate "$gen/spec/mixed_x.xml" --target cuda --distribution mpi -o "$gen/cuda-mpi-mixed_x" >/dev/null
  echo "generated $gen"
  exit 0
fi

mkdir -p "$out"
w=$work/oocmixed
rm -rf "$w"
mkdir -p "$w"
backends=${BACKENDS:-cuda ocl}
ocl_type=${OCL_DEVICE_TYPE:-gpu}
[ "$ocl_type" = gpu ] && register_nvidia_opencl
export LD_LIBRARY_PATH=$gen/_ocl/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
gpus=$(gpu_count)
[ "$ocl_type" = gpu ] || gpus=1
cuda=no ocl=no mpi=no
[[ " $backends " = *" cuda "* ]] && cuda=yes
[[ " $backends " = *" ocl "* ]] && ocl=yes
[ "$cuda" = yes ] && find_mpirun && mpi=yes
status=0
rows=()
for s in "${specs[@]}"; do
  [ "$cuda" = yes ] && build_cuda_tree "$gen/cuda-$s" "$w/cuda-$s" &
  [ "$ocl" = yes ] && g++ -std=c++17 -O2 -DCL_TARGET_OPENCL_VERSION=120 -I "$gen/_ocl/include" \
    -I "$gen/ocl-$s" -I "$gen/ocl-$s/runtime" "$gen/ocl-$s/$s.cpp" -o "$w/ocl-$s" \
    -L "$gen/_ocl/lib" -lOpenCL -pthread >"$w/ocl-$s.log" 2>&1 &
done
[ "$mpi" = yes ] && build_cuda_tree "$gen/cuda-mpi-mixed_x" "$w/cuda-mpi-mixed_x" &
wait
[ "$mpi" = yes ] && mpi_two_ranks "$gpus"

# run SPEC BACKEND LABEL N ARGS...: runs SPEC's program (BACKEND cuda, ocl, mpi: the CUDA MPI
# program on N ranks) on N GPUs with ARGS, saving every array into $w/SPEC-BACKEND-LABEL.
run() {
  local s=$1 b=$2 label=$3 n=$4 a save=()
  shift 4
  local d=$w/$s-$b-$label
  mkdir -p "$d"
  for a in ${saves[$s]}; do save+=(--save "$a=$d/$a.raw"); done
  case $b in
    cuda) "$w/cuda-$s/$s" --devices "$n" "$@" "${save[@]}" ;;
    ocl) "$w/ocl-$s" --device-type "$ocl_type" --devices "$n" "$@" "${save[@]}" ;;
    mpi) mpirun --allow-run-as-root --oversubscribe -x STEPGEN_MPI_SHARE_DEVICES -np "$n" \
      "$w/cuda-mpi-$s/$s" "$@" "${save[@]}" ;;
  esac >"$d/log.txt" 2>&1
  local rc=$?
  cp "$d/log.txt" "$out/$s-$b-$label.log" 2>/dev/null
  return $rc
}
# check SPEC BACKEND LABEL N ARGS...: a run that must save the bits of the run in core on 1 GPU.
check() {
  local s=$1 b=$2 label=$3 n=$4
  local base=$w/$s-${b/mpi/cuda}-incore d=$w/$s-$b-$label same=yes a k rc=0
  run "$@" || rc=$?
  if [ "$rc" -ne 0 ]; then
    rows+=("| $s | $b | $label | FAIL: exit $rc: $(tail -1 "$d/log.txt") |")
    status=1
    return
  fi
  for a in ${saves[$s]}; do cmp -s "$d/$a.raw" "$base/$a.raw" || same=no; done
  k=$(grep -o '[0-9]* chunk(s)[^,]*, [0-9]* step(s) per pass[^,]*' "$d/log.txt" | head -1)
  if [ "$same" = yes ]; then
    rows+=("| $s | $b | $label | the bits in core (${k:-in core}) |")
  else
    rows+=("| $s | $b | $label | FAIL: differs from in core (${k:-in core}) |")
    status=1
  fi
}
for s in "${specs[@]}"; do
  for b in $backends; do
    bin=$w/$b-$s/$s
    [ "$b" = ocl ] && bin=$w/ocl-$s
    if [ ! -x "$bin" ]; then
      rows+=("| $s | $b | build | FAIL: not built (see $w/$b-$s.log) |")
      status=1
      continue
    fi
    if ! run "$s" "$b" incore 1; then
      rows+=("| $s | $b | in core | FAIL: $(tail -1 "$w/$s-$b-incore/log.txt") |")
      status=1
      continue
    fi
    ooc=(--out-of-core on --ooc-chunks 3)
    if [ "$s" = mixed_y ]; then
      check "$s" "$b" model 1 "${ooc[@]}"
      grep -q "one step per pass: " "$w/$s-$b-model/log.txt" ||
        { rows+=("| $s | $b | model | FAIL: no 'one step per pass' line |"); status=1; }
      if run "$s" "$b" k2 1 "${ooc[@]}" --steps-per-pass 2; then
        rows+=("| $s | $b | k2 | FAIL: 2 steps per pass not refused |")
        status=1
      else
        rows+=("| $s | $b | k2 | refused: $(grep -o 'at most 1 can be exact: [^(]*' "$w/$s-$b-k2/log.txt") |")
      fi
      continue
    fi
    for k in 2 3 4; do check "$s" "$b" "k$k" 1 "${ooc[@]}" --steps-per-pass "$k"; done
    check "$s" "$b" model 1 "${ooc[@]}"
    [ "$gpus" -ge 2 ] && check "$s" "$b" 2gpu-k3 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 3
  done
done
if [ "$mpi" = yes ] && [ -x "$w/cuda-mpi-mixed_x/mixed_x" ]; then
  check mixed_x mpi 2ranks-k3 2 --out-of-core on --ooc-chunks 2 --steps-per-pass 3
elif [ "$cuda" = yes ]; then
  rows+=("| mixed_x | mpi | 2ranks-k3 | FAIL: not run (mpirun found: $mpi) |")
  status=1
fi
# The backends against each other (information: both round as the spec's kernels say).
if [ "$cuda" = yes ] && [ "$ocl" = yes ]; then
  for s in "${specs[@]}"; do
    same=yes
    for a in ${saves[$s]}; do cmp -s "$w/$s-cuda-incore/$a.raw" "$w/$s-ocl-incore/$a.raw" || same=no; done
    rows+=("| $s | cuda vs ocl | in core | same bits: $same |")
  done
fi
echo
echo "| spec | backend | run | result |"
echo "| --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
exit $status
