#!/usr/bin/env bash
# Phase `restart` (GPU machine; carry bench/generated/sim/cuda-jacobi2d_16384 (sim-generate) and
# bench/generated/mpi-cuda/grayscott, bench/generated/cuda-grayscott (generate)): checkpoint and
# restart on the GPU, and periodic boundaries across MPI ranks, CUDA:
#   - Jacobi 16384^2: 300 steps straight; 200 steps writing a checkpoint every 100, then
#     --restart from it to 300 in core, and out of core (--device-memory 1GiB): A equal bit for bit;
#     a corrupted checkpoint refused with an error;
#   - examples/grayscott (periodic in x and y): the CUDA MPI program on 2 and 3 ranks sharing the
#     GPU (the wrap crosses ranks: frames through the host), in core and out of core on each
#     rank, against the one-process CUDA program (and its serial reference); a checkpoint written
#     by 2 ranks resumed by one process, one written by one process resumed by 3 ranks.
# Prints one line per check, a table last.
# Usage: bench/run.sh restart
set -u
. "$(dirname "$0")/lib.sh"
w=$work/restart
rm -rf "$w"
mkdir -p "$w" "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
build_cuda_tree "$gen/sim/cuda-jacobi2d_16384" "$w/jacobi" &
build_cuda_tree "$gen/cuda-grayscott" "$w/gs" &
build_cuda_tree "$gen/mpi-cuda/grayscott" "$w/gs-mpi" &
wait
rows=()
check() {  # check NAME FILE_A FILE_B
  if [ -s "$2" ] && cmp -s "$2" "$3"; then rows+=("| $1 | equal |"); else rows+=("| $1 | **DIFFER or failed** |"); fi
}
j=$w/jacobi/jacobi2d_16384
(cd "$w" && $j --steps 300 --save A=straight.raw >straight.log 2>&1)
(cd "$w" && $j --steps 200 --checkpoint run.ckpt --checkpoint-every 100 >first.log 2>&1)
(cd "$w" && $j --steps 300 --restart run.ckpt --save A=restarted.raw >restart.log 2>&1)
check "Jacobi 16384^2: restart from step 200 in core = straight 300 steps" "$w/straight.raw" "$w/restarted.raw"
(cd "$w" && $j --steps 300 --restart run.ckpt --out-of-core on --device-memory 1GiB \
  --save A=restarted-ooc.raw >restart-ooc.log 2>&1)
check "Jacobi 16384^2: restart out of core (1 GiB budget) = straight" "$w/straight.raw" "$w/restarted-ooc.raw"
cp "$w/run.ckpt" "$w/bad.ckpt"
printf 'XXXXXXXX' | dd of="$w/bad.ckpt" bs=1 seek=100000000 conv=notrunc 2>/dev/null
if (cd "$w" && $j --steps 300 --restart bad.ckpt >bad.log 2>&1); then
  rows+=("| corrupted checkpoint | **accepted** |")
else
  rows+=("| corrupted checkpoint refused: $(grep -m1 -i error "$w/bad.log" | cut -c1-90) | ok |")
fi
cp "$w"/*.log "$out/" 2>/dev/null
# grayscott: one process, then MPI ranks sharing the GPU.
g=$w/gs/grayscott gm=$w/gs-mpi/grayscott
arrays="U V"
saves() { for a in $arrays; do printf -- '--save %s=%s/%s.raw ' "$a" "$1" "$a"; done; }
mkdir -p "$w/g1"
# shellcheck disable=SC2046
(cd "$root/examples/grayscott" && $g $(saves "$w/g1") >"$w/g1/log" 2>&1)
for run in "2:" "3:" "2:--out-of-core on --ooc-chunks 2 --steps-per-pass 2"; do
  n=${run%%:*} args=${run#*:}
  d=$w/gm-$n-${args// /}
  mkdir -p "$d"
  # shellcheck disable=SC2046,SC2086
  (cd "$root/examples/grayscott" && STEPGEN_MPI_SHARE_DEVICES=1 timeout 300 mpirun --allow-run-as-root \
    --oversubscribe -x STEPGEN_MPI_SHARE_DEVICES -np "$n" $gm $args $(saves "$d") >"$d/log" 2>&1)
  for a in $arrays; do check "grayscott MPI $n ranks ${args:-in core}: $a = one process" "$w/g1/$a.raw" "$d/$a.raw"; done
  cp "$d/log" "$out/grayscott-mpi-$n-${args// /}.log"
done
# Checkpoints across MPI ranks (written collectively by rank 0): 2 ranks write one at step 60,
# one process resumes from it to the default 100 steps; one process writes one at step 50, 3
# ranks resume from it; both equal the straight one-process run.
mkdir -p "$w/gck"
# shellcheck disable=SC2046,SC2086
(cd "$root/examples/grayscott" && STEPGEN_MPI_SHARE_DEVICES=1 timeout 300 mpirun --allow-run-as-root \
  --oversubscribe -x STEPGEN_MPI_SHARE_DEVICES -np 2 $gm --steps 60 --checkpoint "$w/gck/mpi2.ckpt" \
  --checkpoint-every 30 >"$w/gck/write-mpi2.log" 2>&1)
mkdir -p "$w/gck/r1" "$w/gck/r3"
# shellcheck disable=SC2046
(cd "$root/examples/grayscott" && $g --restart "$w/gck/mpi2.ckpt" $(saves "$w/gck/r1") \
  >"$w/gck/restart-1.log" 2>&1)
for a in $arrays; do check "grayscott: checkpoint by 2 MPI ranks at step 60, one process resumes: $a = straight" "$w/g1/$a.raw" "$w/gck/r1/$a.raw"; done
(cd "$root/examples/grayscott" && $g --steps 50 --checkpoint "$w/gck/one.ckpt" --checkpoint-every 50 \
  >"$w/gck/write-1.log" 2>&1)
# shellcheck disable=SC2046,SC2086
(cd "$root/examples/grayscott" && STEPGEN_MPI_SHARE_DEVICES=1 timeout 300 mpirun --allow-run-as-root \
  --oversubscribe -x STEPGEN_MPI_SHARE_DEVICES -np 3 $gm --restart "$w/gck/one.ckpt" $(saves "$w/gck/r3") \
  >"$w/gck/restart-mpi3.log" 2>&1)
for a in $arrays; do check "grayscott: checkpoint by one process at step 50, 3 MPI ranks resume: $a = straight" "$w/g1/$a.raw" "$w/gck/r3/$a.raw"; done
cp "$w"/gck/*.log "$out/" 2>/dev/null

echo
echo "== restart and periodic MPI on the GPU"
echo "| check | result |"
echo "| --- | --- |"
printf '%s\n' "${rows[@]}"
