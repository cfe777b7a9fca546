#!/usr/bin/env bash
# Floating-point contraction is off in the generated OpenCL program although the kernel file
# does not say so (no `#pragma OPENCL FP_CONTRACT OFF`): B = A * C + D on 2 PoCL CPU devices must
# round the product and then the sum, as a serial reference built with -ffp-contract=off does
# (fp_contract/check.py). PoCL fused it into one FMA where the file had no pragma (a user's
# kernel: every device agreed, the reference did not). The data are checked to tell the two
# apart (on a CPU with FMA), so the test can fail. The same program on the GPU, CUDA and NVIDIA's
# OpenCL: bench/run.sh fpcontract.
# Usage: fp_contract_test.sh STEPGEN WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 work=$2/fp-contract
here=$(cd "$(dirname "$0")/fp_contract" && pwd)
rm -rf "$work"
mkdir -p "$work"
cp "$here/k.cl" "$here/k.cu" "$here/f.xml" "$work/"
out="$work/out"
"$stepgen" generate "$work/f.xml" --target opencl -o "$out" >/dev/null
build_program "$out"
POCL_DEVICES="pthread pthread" "$out/build/f" --device-type cpu --devices 2 \
  --save "A=$work/A.raw" --save "C=$work/C.raw" --save "D=$work/D.raw" --save "B=$work/B.raw" \
  >"$work/log.txt" 2>&1 || { cat "$work/log.txt"; echo "FAIL: the program did not run"; exit 1; }
python3 "$here/check.py" "$work" "PoCL, 2 devices"
