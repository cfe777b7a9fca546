#!/usr/bin/env bash
# Phases `fpcontract-generate` and `fpcontract`: floating-point contraction is off in the
# generated programs whatever the kernel file says (tests/e2e/fp_contract: B = A * C + D over 4096
# random floats, an OpenCL file without `#pragma OPENCL FP_CONTRACT OFF` and its CUDA twin): on the
# GPU, NVIDIA's OpenCL and CUDA must round the product and then the sum, as check.py computes
# (CI checks the OpenCL program on PoCL only).
#
#   bench/run.sh fpcontract-generate     HERE: the OpenCL and CUDA trees into bench/generated/fpcontract
#   bench/run.sh fpcontract              ON THE GPU MACHINE: builds both (the CUDA one with the
#                                        generated CMakeLists' --fmad=false), runs each, checks
set -u
. "$(dirname "$0")/lib.sh"
gen=$gen/fpcontract
src=$root/tests/e2e/fp_contract

if [ "${1:-}" = generate ]; then
  set -e
  stepgen=$(find_stepgen)
  rm -rf "$gen"
  mkdir -p "$gen/_ocl/include" "$gen/_ocl/lib"
  cp -r /usr/include/CL "$gen/_ocl/include/"
  cp -P /usr/lib/x86_64-linux-gnu/libOpenCL.so* "$gen/_ocl/lib/"
  cp "$src"/k.cl "$src"/k.cu "$src"/f.xml "$gen/"
  "$stepgen" generate "$gen/f.xml" --target opencl -o "$gen/ocl" >/dev/null
  "$stepgen" generate "$gen/f.xml" --target cuda -o "$gen/cuda" >/dev/null
  (cd "$gen/ocl" && cmake -DOUT="$gen/ocl/kernel_source.hpp" -DFILES=kernels/k.cl -P cmake/embed_kernels.cmake)
  echo "generated $gen"
  exit 0
fi

mkdir -p "$out"
register_nvidia_opencl
export LD_LIBRARY_PATH=$gen/_ocl/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
status=0
rows=()
nvcc -std=c++17 -O2 --fmad=false -arch=native -I "$gen/cuda" -I "$gen/cuda/runtime" "$gen/cuda/f.cu" \
  -o "$out/f-cuda" >"$out/build-cuda.log" 2>&1 || { tail "$out/build-cuda.log"; status=1; }
g++ -std=c++17 -O2 -DCL_TARGET_OPENCL_VERSION=120 -I "$gen/_ocl/include" -I "$gen/ocl" \
  -I "$gen/ocl/runtime" "$gen/ocl/f.cpp" -o "$out/f-ocl" -L "$gen/_ocl/lib" -lOpenCL -pthread \
  >"$out/build-ocl.log" 2>&1 || { tail "$out/build-ocl.log"; status=1; }
# Controls, not checks: the same programs as the compilers build them by default (OpenCL: the
# kernel files alone, without the pragma put before them; CUDA: nvcc's default --fmad=true), to
# show whether the driver would fuse here at all.
sed 's/cl::build_kernel_files(d, kKernelSource/cl::build_program(d, kKernelSource/' \
  "$gen/ocl/f.cpp" >"$gen/ocl/f_default.cpp"
g++ -std=c++17 -O2 -DCL_TARGET_OPENCL_VERSION=120 -I "$gen/_ocl/include" -I "$gen/ocl" \
  -I "$gen/ocl/runtime" "$gen/ocl/f_default.cpp" -o "$out/f-ocl-default" -L "$gen/_ocl/lib" \
  -lOpenCL -pthread >>"$out/build-ocl.log" 2>&1
nvcc -std=c++17 -O2 -arch=native -I "$gen/cuda" -I "$gen/cuda/runtime" "$gen/cuda/f.cu" \
  -o "$out/f-cuda-default" >>"$out/build-cuda.log" 2>&1
for b in cuda ocl cuda-default ocl-default; do
  [ -x "$out/f-$b" ] || { rows+=("$b: not built"); continue; }
  d=$out/$b && mkdir -p "$d"
  args=()
  [[ $b = ocl* ]] && args=(--device-type gpu)
  if "$out/f-$b" "${args[@]}" --save "A=$d/A.raw" --save "C=$d/C.raw" --save "D=$d/D.raw" \
       --save "B=$d/B.raw" >"$d/log.txt" 2>&1; then
    rows+=("$(python3 "$src/check.py" "$d" "$b" 2>&1)")
    [[ $b = *-default ]] && rows[-1]="(control) ${rows[-1]}" && continue
    grep -q '^ok ' <<<"${rows[-1]}" || status=1
  else
    rows+=("$b: the program failed: $(tail -1 "$d/log.txt")")
    status=1
  fi
done
echo
echo "fpcontract (B = A * C + D, 4096 floats, no pragma in the OpenCL file):"
printf '  %s\n' "${rows[@]}"
exit $status
