#!/usr/bin/env bash
# Phases `probeblind-generate` and `probeblind`: the kernels the start-up probe could not see
# into (tests/probe/lbm, seidel, adi; CI runs them on PoCL and on the CUDA emulation:
# tests/probe/real_kernels_test.sh), their CUDA twins on the GPU, where the CUDA program runs
# the probe at start-up:
#  - a D2Q9 lattice-Boltzmann step with a solid mask != 0 (the probe's integers made every cell
#    solid), f5's halo declared 0,0 while read at (-1,-1): refused; the right halo on 1 GPU, out
#    of core and 3 MPI ranks sharing it saves the serial reference's bits;
#  - PolyBench seidel-2d as a wavefront (one hyperplane a step): 6 of 8 halo points removed,
#    refused; the right halo as above;
#  - PolyBench adi (line recurrences along whole lines): a column halo of 29 where 30 is needed,
#    refused; 30 on 1 GPU and 2 MPI ranks;
#  - tests/probe/data (far reads only the program's initial data take: a mask at 9 from a file,
#    h above the probe's values): the halo too small refused by the probe on the initial data,
#    also on 2 MPI ranks; the right halo on 1 GPU and out of core.
#
#   bench/run.sh probeblind-generate   HERE: the CUDA trees and the serial references' arrays
#   bench/run.sh probeblind            ON THE GPU MACHINE: builds them, runs, prints a table last
set -u
. "$(dirname "$0")/lib.sh"
gen=$gen/probeblind
probe=$root/tests/probe

if [ "${1:-}" = generate ]; then
  set -e
  stepgen=$(find_stepgen)
  rm -rf "$gen"
  mkdir -p "$gen/ref"
  for s in lbm/lbm lbm/lbm_small seidel/seidel40 seidel/seidel40_small adi/adi adi/adi_small \
           data/data data/data_small; do
    "$stepgen" generate "$probe/$s.xml" --target cuda -o "$gen/$(basename "$s")" >/dev/null
  done
  for s in lbm/lbm seidel/seidel40 adi/adi data/data_small; do
    "$stepgen" generate "$probe/$s.xml" --target cuda --distribution mpi \
      -o "$gen/$(basename "$s")-mpi" >/dev/null
  done
  for d in lbm seidel adi data; do cc -O1 -ffp-contract=off -o "$gen/ref/$d" "$probe/$d/ref.c"; done
  mkdir -p "$gen/ref/lbm-out" "$gen/ref/seidel-out" "$gen/ref/adi-out" "$gen/ref/data-out"
  "$gen/ref/lbm" "$probe/lbm/obst.raw" "$gen/ref/lbm-out"
  "$gen/ref/seidel" 40 2 "$probe/seidel/a40.raw" "$gen/ref/seidel-out/A.raw"
  "$gen/ref/adi" 60 4 "$probe/adi/u60.raw" "$gen/ref/adi-out/u.raw" "$gen/ref/adi-out/v.raw"
  "$gen/ref/data" "$probe/data/u.raw" "$probe/data/m.raw" "$gen/ref/data-out"
  rm -f "$gen/ref/lbm" "$gen/ref/seidel" "$gen/ref/adi" "$gen/ref/data"
  echo "generated $gen"
  exit 0
fi

mkdir -p "$out"
w=$work/probeblind
rm -rf "$w"
mkdir -p "$w"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
status=0
rows=()
for t in lbm lbm_small seidel40 seidel40_small adi adi_small lbm-mpi seidel40-mpi adi-mpi data \
         data_small data_small-mpi; do build_cuda_tree "$gen/$t" "$w/$t" & done
wait
run() {  # run LABEL TREE BINARY RANKS ARGS...: the exit status and log of one run
  local label=$1 tree=$2 binary=$3 ranks=$4; shift 4
  local d=$w/run-$label
  mkdir -p "$d"
  set -- --spec-dir "$probe/$binary" "$@"  # the init files (obst.raw, ...) of this checkout
  if [ "$ranks" = 0 ]; then
    (cd "$d" && "$w/$tree/$binary" "$@" >log.txt 2>&1)
  else
    (cd "$d" && mpirun --allow-run-as-root --oversubscribe -x STEPGEN_MPI_SHARE_DEVICES=1 -np "$ranks" \
       "$w/$tree/$binary" "$@" >log.txt 2>&1)
  fi
  local rc=$?
  cp "$d/log.txt" "$out/probeblind-$label.log" 2>/dev/null
  return $rc
}
same() {  # same LABEL RC REF-DIR ARRAYS...: a row for a run that must save the reference's bits
  local label=$1 rc=$2 ref=$3 ok=yes; shift 3
  for a in "$@"; do cmp -s "$w/run-$label/$a.raw" "$ref/$a.raw" || ok=no; done
  if [ "$rc" -eq 0 ] && [ $ok = yes ]; then
    rows+=("| $label | exit 0, $*: the serial reference's bits |")
  else
    rows+=("| $label | FAIL: exit $rc, the serial reference's bits: $ok |"); status=1
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
f=(f0 f1 f2 f3 f4 f5 f6 f7 f8)
lbm_save=()
for a in "${f[@]}"; do lbm_save+=(--save "$a=$a.raw"); done
run lbm-1 lbm lbm 0 "${lbm_save[@]}"; same lbm-1 $? "$gen/ref/lbm-out" "${f[@]}"
run lbm-ooc lbm lbm 0 --out-of-core on --ooc-chunks 3 "${lbm_save[@]}"
same lbm-ooc $? "$gen/ref/lbm-out" "${f[@]}"
run lbm-mpi3 lbm-mpi lbm 3 "${lbm_save[@]}"; same lbm-mpi3 $? "$gen/ref/lbm-out" "${f[@]}"
run lbm-small lbm_small lbm 0
refused lbm-small $? "kernel 'lbm' reads array 'f5' at offset (-1,-1), outside its declared halo"
run seidel-1 seidel40 seidel 0 --save A=A.raw; same seidel-1 $? "$gen/ref/seidel-out" A
run seidel-ooc seidel40 seidel 0 --out-of-core on --ooc-chunks 3 --save A=A.raw
same seidel-ooc $? "$gen/ref/seidel-out" A
run seidel-mpi3 seidel40-mpi seidel 3 --save A=A.raw; same seidel-mpi3 $? "$gen/ref/seidel-out" A
run seidel-small seidel40_small seidel 0
refused seidel-small $? "kernel 'seidel' reads array 'A' at offsets"
run adi-1 adi adi 0 --save u=u.raw --save v=v.raw; same adi-1 $? "$gen/ref/adi-out" u v
run adi-mpi2 adi-mpi adi 2 --save u=u.raw --save v=v.raw; same adi-mpi2 $? "$gen/ref/adi-out" u v
run adi-small adi_small adi 0
refused adi-small $? "kernel 'colsweep' reads array 'u' along y as far as its buffer goes"
run data-1 data data 0 --save u=u.raw --save v=v.raw; same data-1 $? "$gen/ref/data-out" u v
run data-ooc data data 0 --out-of-core on --ooc-chunks 3 --save u=u.raw --save v=v.raw
same data-ooc $? "$gen/ref/data-out" u v
run data-small data_small data 0
refused data-small $? "on the program's initial data:"
run data-small-mpi2 data_small-mpi data 2
refused data-small-mpi2 $? "on the program's initial data:"
grep -h "probed at\|runs$" "$w"/run-*-1/log.txt 2>/dev/null | sort -u
echo
echo "| run (CUDA) | result |"
echo "| --- | --- |"
printf '%s\n' "${rows[@]}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
exit $status
