#!/usr/bin/env bash
# CUDA kernels in forms written for one device (tests/cuda_emu/forms): a template kernel and a
# float4 view of a float grid. The generated program must compile both: the template is
# launched as jacobi<float> and the float4 parameter takes the array's pointer (a launch by
# name deduces no template argument). On the CPU emulation: 1 device, 3 devices, 4 with
# min-exchange and out of core must
# save the same bits.
# Usage: forms_test.sh STEPGEN WORK_DIR
set -euo pipefail
stepgen=$1 work=$2/forms
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
cp "$here/forms/forms.xml" "$here/forms/forms.cu" "$work/"
"$stepgen" generate "$work/forms.xml" --target cuda -o "$work/gen" >"$work/generate.txt" 2>&1 ||
  { cat "$work/generate.txt"; echo "FAIL: generate"; exit 1; }
grep -q "STEPGEN_LAUNCH(::jacobi<float>," "$work/gen/forms.cu" ||
  { echo "FAIL: the template kernel is not launched as jacobi<float>"; exit 1; }
"$here/build.sh" "$work/gen" "$work/forms" >"$work/build.txt" 2>&1 ||
  { tail -30 "$work/build.txt"; echo "FAIL: the program does not build"; exit 1; }
run() {  # run NAME ARGS...
  local name=$1; shift
  STEPGEN_CUDA_EMULATE=4 "$work/forms" "$@" --save "A=$work/$name-A.raw" --save "B=$work/$name-B.raw" \
    >"$work/$name.txt" 2>&1 || { cat "$work/$name.txt"; echo "FAIL: $name did not run"; exit 1; }
}
run one --devices 1
for r in "three --devices 3" "four --devices 4 --strategy min-exchange" \
  "ooc --devices 2 --out-of-core on --ooc-chunks 3 --steps-per-pass 2"; do
  read -r name args <<<"$r"
  # shellcheck disable=SC2086
  run "$name" $args
  for a in A B; do
    cmp -s "$work/$name-$a.raw" "$work/one-$a.raw" ||
      { cat "$work/$name.txt"; echo "FAIL: $name: $a differs from the run on 1 device"; exit 1; }
  done
  echo "ok: $name ($args): A and B equal the run on 1 device"
done
