#!/usr/bin/env bash
# Phase `opencl` (GPU machine, after the `prepare` phase here; carry bench/generated): the
# examples' generated OpenCL programs on the GPU through NVIDIA's OpenCL platform against the
# serial references, GPU + PoCL CPU in one run where opencl/pocl.tar.xz was carried, then the
# 16384^2 Jacobi benchmark against the hand-written OpenCL loop (BENCH_ONLY=1: that alone).
# Prints a table last.   Usage: bench/run.sh opencl
set -u
. "$(dirname "$0")/lib.sh"
g=$gen/opencl
mkdir -p "$out"
export LD_LIBRARY_PATH=$g/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv,noheader

register_nvidia_opencl

rows=()
[ -n "${BENCH_ONLY:-}" ] || for prog in "$g"/ref/reference_*; do
  ex=${prog##*/reference_}
  ref=/tmp/ref/$ex run=/tmp/run/$ex
  rm -rf "$ref" "$run"; mkdir -p "$ref" "$run"
  "$prog" --out "$ref" >/dev/null
  saves=()
  for f in "$ref"/*.raw; do a=$(basename "$f" .raw); saves+=(--save "$a=$run/$a.raw"); done
  if "$g/bin/$ex" --device-type gpu "${saves[@]}" > "$run/log" 2>&1; then
    verdict="bit-exact"
    for f in "$ref"/*.raw; do cmp -s "$f" "$run/$(basename "$f")" || verdict="DIFFERS ($(basename "$f"))"; done
  else
    verdict="FAILED: $(tail -1 "$run/log")"
  fi
  ms=$(awk '/ms\/step/ {gsub(/[()]/,""); print $7}' "$run/log")
  rows+=("$(printf '%-16s %-28s %s ms/step' "$ex" "$verdict" "${ms:-?}")")
  cp "$run/log" "$out/example-$ex.log"
done

# GPU + CPU in one run: PoCL's files (opencl/pocl.tar.xz, packed by hand) are added to the image
# without overwriting any file it has, and registered next to NVIDIA's platform.
hetero=()
if [ -f "$g/pocl.tar.xz" ] && [ -z "${BENCH_ONLY:-}" ]; then
  tar -xJf "$g/pocl.tar.xz" -C / --skip-old-files 2>/dev/null
  vend=/tmp/vendors; mkdir -p $vend
  ls /etc/OpenCL/vendors/*nvidia* >/dev/null 2>&1 && cp /etc/OpenCL/vendors/*nvidia* $vend/
  [ -f $vend/nvidia.icd ] || cp /tmp/vendors/nvidia.icd $vend/ 2>/dev/null
  echo libpocl.so.2 > $vend/pocl.icd
  export OCL_ICD_VENDORS=$vend
  for prog in "$g"/ref/reference_*; do
    ex=${prog##*/reference_}
    ref=/tmp/ref/$ex run=/tmp/het/$ex
    rm -rf "$run"; mkdir -p "$run"
    saves=()
    for f in "$ref"/*.raw; do a=$(basename "$f" .raw); saves+=(--save "$a=$run/$a.raw"); done
    if "$g/bin/$ex" --device-type all --verify "${saves[@]}" > "$run/log" 2>&1; then
      verdict="bit-exact"
      for f in "$ref"/*.raw; do cmp -s "$f" "$run/$(basename "$f")" || verdict="DIFFERS ($(basename "$f"))"; done
    else
      verdict="FAILED: $(tail -2 "$run/log" | tr '\n' ' ')"
    fi
    devs=$(awk '/device\(s\), grid/ {print $1; exit}' "$run/log")
    v=$(grep -o 'verify: [A-Z]*' "$run/log")
    hetero+=("$(printf '%-16s %s devices: %-12s %s' "$ex" "${devs:-?}" "$verdict" "$v")")
  done
  cp /tmp/het/jacobi2d/log "$out/hetero-jacobi2d.log" 2>/dev/null
  "$g/bin/jacobi2d" --device-type all --weights 16,1 > "$out/hetero-weighted.log" 2>&1
fi

hand=() gen=()
for i in 1 2 3 4 5; do
  hand+=("$("$g/bin/handwritten_jacobi2d" "$root/examples/jacobi2d/jacobi2d.cl" 16384 16384 1000 | awk '/ms\/step/ {gsub(/[()]/,""); print $7}')")
  "$g/bin/jacobi2d_16384" --device-type gpu > "$out/bench-run$i.log" 2>&1
  gen+=("$(awk '/kernels:/ {print $2}' "$out/bench-run$i.log")")
done
hm=$(printf '%s\n' "${hand[@]}" | median)
gs=$(printf '%s\n' "${gen[@]}" | median)
gm=$(awk -v s="$gs" 'BEGIN {printf "%.4f", s}')
gm=$(awk -v s="$gs" 'BEGIN {printf "%.4f", 1000 * s / 1000}')
echo "hand-written ms/step: ${hand[*]}"
echo "generated kernel-loop s (1000 steps): ${gen[*]}"
tail -8 "$out/bench-run1.log"
echo
echo "== OpenCL on the GPU: examples (1 GPU) against the serial references"
printf '%s\n' "${rows[@]}"
echo "== GPU + PoCL CPU in one run (--verify against 1 device, saved arrays against the reference)"
printf '%s\n' "${hetero[@]}"
echo "== 2D 5-point Jacobi 16384^2, 1000 steps, median of 5"
awk -v h="$hm" -v g="$gm" 'BEGIN {printf "hand-written %.4f ms/step, generated %.4f ms/step, ratio %.3f\n", h, g, g / h}'
