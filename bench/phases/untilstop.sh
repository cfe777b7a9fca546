#!/usr/bin/env bash
# Phases `untilstop-generate` and `untilstop`: a run that an `until` stops, on the GPU (CUDA):
# tests/io/program's wave.xml made to stop after step 8 (make_until_spec.sh), with receivers
# (trace.csv, trace.h5), an .h5 output with last="true" and a .raw output. CI runs it on PoCL
# (tests/io/program_test.sh, OpenCL one process and MPI); the stop's handling is shared code
# (runtime main.hpp, one_process.hpp, ranks.hpp) that the CUDA programs reach on the GPU only here.
#
#   bench/run.sh untilstop-generate   HERE: the spec, the CUDA and CUDA MPI trees, and the
#                                     OpenCL program's run on PoCL (the expected files) into
#                                     bench/generated/untilstop
#   bench/run.sh untilstop            ON THE GPU MACHINE: builds both trees; 1 GPU in core and
#                                     out of core, 2 MPI ranks (sharing the GPU) in core and out
#                                     of core; each must stop after step 8, write trace.csv's rows
#                                     1 3 5 7 and the snapshot of step 9, and save the PoCL run's
#                                     bits (p0 p1 p2 age, trace.csv). The MPI program's spec has
#                                     its .h5 output as .raw files and no trace.h5: the GPU image
#                                     has no parallel HDF5
set -u
. "$(dirname "$0")/lib.sh"
gen=$gen/untilstop
src=$root/tests/io/program

if [ "${1:-}" = generate ]; then
  set -e
  stepgen=$(find_stepgen)
  rm -rf "$gen"
  mkdir -p "$gen/spec0/data" "$gen/pocl"
  cp "$src/wave.xml" "$src/stamp.cl" "$src/stamp.cu" "$root/examples/acoustic/acoustic.cl" \
     "$root/examples/acoustic/acoustic.cu" "$gen/spec0/"
  # The data files as tests/io/program_test.sh makes them (numpy: Debian's python3).
  py=$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || command -v python3)
  "$py" -c "
import numpy as np
np.random.seed(3)
(1 + 0.1 * np.random.rand(24 * 20 * 48)).astype('<f4').tofile('$gen/spec0/data/vel.raw')
np.array([0.5, 0.25], dtype='<f4').tofile('$gen/spec0/data/scale.raw')"
  "$src/make_until_spec.sh" "$gen/spec0" "$gen/spec"
  rm -rf "$gen/spec0"
  "$stepgen" generate "$gen/spec/wave.xml" --target cuda -o "$gen/cuda" >/dev/null
  # The MPI program without HDF5 (the GPU image has no parallel HDF5): the .h5 output as .raw
  # files (last="true" kept), no trace.h5.
  mkdir -p "$gen/spec-mpi"
  cp -r "$gen/spec"/. "$gen/spec-mpi"/
  sed -e 's|file="snap/wave.h5"|file="snap/wave.raw"|' -e '/file="trace.h5"/d' "$gen/spec/wave.xml" \
    >"$gen/spec-mpi/wave.xml"
  "$stepgen" generate "$gen/spec-mpi/wave.xml" --target cuda --distribution mpi -o "$gen/cuda-mpi" >/dev/null
  # The expected files: the OpenCL program on PoCL, one device.
  "$stepgen" generate "$gen/spec/wave.xml" --target opencl -o "$gen/ocl" >/dev/null
  cmake -S "$gen/ocl" -B "$gen/ocl/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$gen/ocl/build" -j 2 >/dev/null
  (cd "$gen/pocl" && POCL_DEVICES=pthread "$gen/ocl/build/wave" --device-type cpu --save p0=p0.raw \
     --save p1=p1.raw --save p2=p2.raw --save age=age.raw --checkpoint-every 0 >log.txt 2>&1)
  grep -q "stopped at step 8" "$gen/pocl/log.txt"
  rm -rf "$gen/ocl"
  echo "generated $gen"
  exit 0
fi

mkdir -p "$out"
w=$work/untilstop
rm -rf "$w"
mkdir -p "$w"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
status=0
rows=()
build_cuda_tree "$gen/cuda" "$w/one" &
mpi=0
if find_mpirun; then build_cuda_tree "$gen/cuda-mpi" "$w/mpi" & mpi=1; fi
wait
# run NAME PROGRAM [mpi] ARGS...: in $w/NAME (the spec's data/ found from the program)
run() {
  local name=$1 prog=$2 d=$w/$1 launcher=() ranks=0
  shift 2
  if [ "${1:-}" = mpi ]; then
    shift
    launcher=(mpirun --allow-run-as-root --oversubscribe -x STEPGEN_MPI_SHARE_DEVICES=1 -np 2)
    ranks=2
  fi
  mkdir -p "$d"
  if [ ! -x "$prog" ]; then rows+=("| $name | not built |"); status=1; return; fi
  local spec_dir=$gen/spec
  [ "$ranks" = 2 ] && spec_dir=$gen/spec-mpi
  if ! (cd "$d" && "${launcher[@]}" "$prog" "$@" --spec-dir "$spec_dir" --checkpoint-every 0 --save p0=p0.raw \
          --save p1=p1.raw --save p2=p2.raw --save age=age.raw >log.txt 2>&1); then
    rows+=("| $name | **failed**: $(grep -m1 error "$d/log.txt") |"); status=1; return
  fi
  local why=""
  grep -q "stopped at step 8" "$d/log.txt" || why+=" no stop at step 8;"
  [ "$(cut -d, -f1 "$d/trace.csv" | tr '\n' ' ')" = "step 1 3 5 7 " ] || why+=" trace.csv rows;"
  if [ "$ranks" = 2 ]; then  # the MPI spec's .raw snapshots: step 9's equal --save
    for a in p1 p2; do
      cmp -s "$d/snap/wave_${a}_000009.raw" "$d/$a.raw" || why+=" no snapshot of step 9 ($a);"
    done
  else
    grep -q 'step_000009' "$d/snap/wave.xdmf" 2>/dev/null || why+=" no snapshot of step 9;"
  fi
  for f in p0 p1 p2 age trace.csv; do
    [[ $f = *.csv ]] || f=$f.raw
    cmp -s "$d/$f" "$gen/pocl/$f" || why+=" $f differs from PoCL;"
  done
  if [ -z "$why" ]; then rows+=("| $name | stopped after step 8; traces, snapshot of step 9 and arrays as on PoCL |")
  else rows+=("| $name | **$why** |"); status=1; fi
}
run one-incore "$w/one/wave"
run one-ooc "$w/one/wave" --out-of-core on --ooc-chunks 2 --steps-per-pass 1
if [ "$mpi" = 1 ]; then
  run mpi2-incore "$w/mpi/wave" mpi
  run mpi2-ooc "$w/mpi/wave" mpi --out-of-core on --ooc-chunks 2 --steps-per-pass 1
else
  rows+=("| mpi | no mpirun |")
fi
for d in "$w"/*/; do [ -f "$d/log.txt" ] && cp "$d/log.txt" "$out/$(basename "$d").log"; done
echo
echo "| run (CUDA, until stops after step 8) | result |"
echo "| --- | --- |"
printf '%s\n' "${rows[@]}"
exit $status
