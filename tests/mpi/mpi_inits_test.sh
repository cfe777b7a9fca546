#!/usr/bin/env bash
# MPI initial values that the examples do not use: file(path) (read per rank by MPI-IO) and
# value(v). A jacobi2d variant (A from a file of real data, B = 0.25 whose outer ring stays) is
# generated twice, as a one-process program and as an MPI program; 2 and 3 ranks must save
# exactly what one process on one device saves. Saving B alone, A (a file() initial value,
# written) is not gathered at the end. One process with `--out-of-core auto` taking either run
# gives the same bits.
# Usage: mpi_inits_test.sh STEPGEN SOURCE_DIR WORK_DIR JACOBI2D_REFERENCE_BIN
set -euo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 src=$2 work=$3 reference=$4
here=$(cd "$(dirname "$0")" && pwd)
source "$here/mpirun.sh"
rm -rf "$work" && mkdir -p "$work/spec" "$work/data"
"$reference" --steps 3 --out "$work/data" >/dev/null  # 1024x768 floats of real data
cp "$work/data/A.raw" "$work/spec/A0.raw"
cp "$src/examples/jacobi2d/jacobi2d.cl" "$work/spec/"
sed -e 's/init="random(7)"/init="file(A0.raw)"/' -e 's/init="copy(A)"/init="value(0.25)"/' \
  -e 's/steps="100"/steps="20"/' -e 's/ cuda-source="jacobi2d.cu"//' "$src/examples/jacobi2d/jacobi2d.xml" > "$work/spec/inits.xml"
grep -q 'file(A0.raw)' "$work/spec/inits.xml" && grep -q 'value(0.25)' "$work/spec/inits.xml"

for d in none mpi; do
  "$stepgen" generate "$work/spec/inits.xml" --target opencl --distribution "$d" -o "$work/$d" >/dev/null
  build_program "$work/$d"
done
cd "$work/spec"  # file(path) is read relative to the working directory
mkdir -p one
POCL_DEVICES=pthread "$work/none/build/jacobi2d" --device-type cpu --quiet --save A=one/A.raw --save B=one/B.raw
for n in 2 3; do
  mkdir -p "ranks$n"
  POCL_DEVICES=$(printf 'pthread %.0s' $(seq "$n")) stepgen_mpirun "$n" "$work/mpi/build/jacobi2d" --device-type cpu \
    --quiet --save "A=ranks$n/A.raw" --save "B=ranks$n/B.raw" --verify > "ranks$n/log.txt"
  grep -q "verify: OK" "ranks$n/log.txt" || { cat "ranks$n/log.txt"; echo "FAIL: --verify on $n ranks"; exit 1; }
  for a in A B; do
    cmp "ranks$n/$a.raw" "one/$a.raw" || { echo "FAIL: $a on $n ranks differs from one process"; exit 1; }
  done
  echo "ok: file(A0.raw) and value(0.25) inits on $n ranks: A B equal one process on one device"
done
# hostmem: A's file() initial value gives it a host copy for the upload only: saving B alone,
# A is not gathered at the end (one process: host<->device 9 MiB, A and B up, B back; it was
# 12 with A gathered too; 2 ranks: the same report), and B equals the run that saved both.
mkdir -p only-b
POCL_DEVICES=pthread "$work/none/build/jacobi2d" --device-type cpu --save B=only-b/B.raw > only-b/one.txt
grep -q "^  host copies:  6.00 MiB + staging 0 B; made on the devices: none; gathered: B$" only-b/one.txt &&
  grep -q "^  host<->device: .* 9.00 MiB moved" only-b/one.txt ||
  { cat only-b/one.txt; echo "FAIL: one process saving B alone: A gathered, or the report is not the expected one"; exit 1; }
cmp only-b/B.raw one/B.raw || { echo "FAIL: B saved alone differs"; exit 1; }
POCL_DEVICES="pthread pthread" stepgen_mpirun 2 "$work/mpi/build/jacobi2d" --device-type cpu \
  --save B=only-b/B2.raw > only-b/ranks2.txt
grep -q "^  host copies:  .*; made on the devices: none; gathered: B$" only-b/ranks2.txt ||
  { cat only-b/ranks2.txt; echo "FAIL: 2 ranks saving B alone: A gathered"; exit 1; }
cmp only-b/B2.raw one/B.raw || { echo "FAIL: B saved alone on 2 ranks differs"; exit 1; }
echo "ok: file(A0.raw) init, B saved alone: A not gathered (one process and 2 ranks), B equal"
# The test would pass on untouched arrays if B's ring were not 0.25 and A not the file's data.
cmp -s one/A.raw A0.raw && { echo "FAIL: A did not change"; exit 1; }
[ "$(od -An -tf4 -N4 one/B.raw | tr -d ' ')" = 0.25 ] || { echo "FAIL: B's corner is not 0.25"; exit 1; }
echo "ok: A changed, B's fixed corner kept value(0.25)"
# `--out-of-core auto` with a file() initial value (one process): the calibration samples A from
# its host copy (it is not read again over a probe's box) and, out of core, B, made on the
# devices in core, gets its host copy; each choice (STEPGEN_AUTO_CHOICE) gives one process's bits.
for choice in in-core out-of-core; do
  mkdir -p "auto-$choice"
  STEPGEN_AUTO_CHOICE=$choice POCL_DEVICES=pthread "$work/none/build/jacobi2d" --device-type cpu --out-of-core auto \
    --save "A=auto-$choice/A.raw" --save "B=auto-$choice/B.raw" > "auto-$choice/log.txt" 2>&1 ||
    { cat "auto-$choice/log.txt"; echo "FAIL: --out-of-core auto ($choice) with a file() initial value failed"; exit 1; }
  grep -q "^out of core: auto -> ${choice//-/ } (.*; taken by STEPGEN_AUTO_CHOICE)$" "auto-$choice/log.txt" ||
    { cat "auto-$choice/log.txt"; echo "FAIL: --out-of-core auto did not take $choice"; exit 1; }
  for a in A B; do
    cmp "auto-$choice/$a.raw" "one/$a.raw" || { echo "FAIL: --out-of-core auto ($choice): $a differs from one process"; exit 1; }
  done
done
echo "ok: file(A0.raw) init with --out-of-core auto, in core and out of core: A B equal one process"
