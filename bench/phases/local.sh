#!/usr/bin/env bash
# Phase `local` (HERE): the parts of the GPU benchmarks that can be checked without a GPU (ctest
# runs them, label bench; see tests/bench.cmake):   bench/run.sh local MODE WORK ...
#   emulate WORK             jacobi2d_fast.cu's kernel run as C++ thread by thread on many grid
#                            shapes (8, 16 and 32 rows per thread), equal to the serial sweep
#   acoustic-omp WORK REF    bench/cpu/acoustic_omp at the example's size equals the serial
#                            reference REF (build/examples/reference_acoustic) bit for bit
#   nvcc WORK [NVCC]         every hand-written CUDA baseline compiles for sm_90 with warnings
#                            as errors (bench/cuda/build.sh)
#   tables WORK              the tables of `oocauto`, `localsweep` and `sim`'s output cadence
#                            computed from stand-in programs that print the reports' lines
#                            (a PoCL run's, the times made up): the bound, the ratios, the
#                            sweep's best and the rates, the checkpoint rows (a few seconds)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:?usage: bench/run.sh local emulate|acoustic-omp|nvcc|tables WORK ...}
work=${2:?WORK folder}
mkdir -p "$work"
case $mode in
  emulate)
    for rows in 16 8 32; do
      g++ -std=c++17 -O1 -ffp-contract=off -Wall -Wextra -Werror -Wno-unknown-pragmas \
        -DJACOBI_FAST_ROWS=$rows -I "$root/runtime/include" "$root/bench/cuda/emulate_jacobi2d_fast.cpp" \
        -o "$work/emulate_rows$rows"
      "$work/emulate_rows$rows"
    done
    ;;
  acoustic-omp)
    ref=${3:?reference_acoustic binary}
    g++ -std=c++17 -O3 -march=native -fopenmp -ffp-contract=off -Wall -Wextra -Werror \
      -I "$root/runtime/include" "$root/bench/cpu/acoustic_omp.cpp" -o "$work/acoustic_omp"
    rm -rf "$work/omp" "$work/ref"
    mkdir -p "$work/omp" "$work/ref"
    "$work/acoustic_omp" 64 56 48 10 2 --out "$work/omp"
    "$ref" --out "$work/ref" >/dev/null
    for a in p0 p1 p2; do
      cmp "$work/omp/$a.raw" "$work/ref/$a.raw" || { echo "FAIL: acoustic_omp's $a differs from the reference"; exit 1; }
    done
    echo "ok: acoustic_omp (2 threads) equals reference_acoustic (p0 p1 p2, 10 steps)"
    # Bad arguments: usage and status 2.
    if "$work/acoustic_omp" 64 56 >/dev/null 2>&1; then echo "FAIL: missing arguments accepted"; exit 1; fi
    if "$work/acoustic_omp" 64 56 48 x 2 >/dev/null 2>&1; then echo "FAIL: bad STEPS accepted"; exit 1; fi
    echo "ok: acoustic_omp refuses bad arguments"
    ;;
  nvcc)
    NVCC=${3:-${NVCC:-}} JOBS=2 "$root/bench/cuda/build.sh" "$work/bin" sm_90
    ;;
  tables)
    # A stand-in program: the report's lines as a generated program prints them, kernels
    # 1 ms/step x (1 + A / 1000), A the first size of --local (the smallest is the fastest),
    # else 32 for an auto program (its tuned shape 32x1x16), 10 for a fixed one; 4.00 GiB
    # moved, the link 50 GB/s each way; the whole run = the bound. --checkpoint-every N: a
    # checkpoint of 2 GiB after every N steps, 1 s each in the background, the run waiting
    # 0.1 s for each (added to time:).
    rm -rf "$work/gen" "$work/work" "$work/out"
    mkdir -p "$work/gen/tts/opencl/bin" "$work/gen/sim/opencl/bin" "$work/work/sim"
    cat >"$work/prog" <<'PROG'
#!/usr/bin/env bash
steps=10 shape="" mode=off every=0 retune=on
while [ $# -gt 0 ]; do
  case $1 in
    --steps) steps=$2; shift ;;
    --checkpoint-every) every=$2; shift ;;
    --checkpoint) shift ;;
    --local) shape=${2#*=}; shift ;;
    --out-of-core) mode=$2; shift ;;
    --ooc-retune) retune=$2; shift ;;
    --save) printf 'the same bits' >"${2#*=}"; shift ;;
  esac
  shift
done
kernel=$(basename "$0" | sed 's/_.*//; s/heat3d/heat/; s/jacobi2d/jacobi/')
a=${shape%%x*}
if [ -z "$shape" ]; then
  case $0 in
    *_auto) a=32 && echo "local size: kernel '$kernel' tuned: 32x1x16 (0.100 ms per launch on the tuning box)" ;;
    *) a=10 ;;
  esac
else
  echo "local size: kernel '$kernel': $shape given by --local (not tuned; 0.100 ms per launch on the tuning box)"
fi
k=$(awk -v s="$steps" -v a="$a" 'BEGIN {printf "%.6f", s * 1e-3 * (1 + a / 1000)}')
c=0
[ "$every" -gt 0 ] && c=$((steps / every))
t=$(awk -v k="$k" -v c="$c" 'BEGIN {printf "%.6f", k + 4294967296 / 50e9 + 0.1 * c}')
echo "time: $t s for $steps steps (1.000 ms/step)"
echo "  kernels:      $k s"
echo "  exchange:     0.000000 s, 0 B moved (0.00 GB/s)"
echo "  host<->device: 0.085899 s, 4.00 GiB moved (50.00 GB/s; link measured at start-up: 50.00 GB/s to the devices, 50.00 GB/s back)"
[ "$mode" = on ] && echo "out-of-core: on (asked for with --out-of-core on)"
# Out of core, an auto program's shapes timed again on the chunks (ooc/retune.hpp).
case $0 in *_auto) [ "$mode" = on ] && [ -z "$shape" ] && [ "$retune" != off ] &&
  echo "  local size: kernel '$kernel' retuned on the chunks: 64x1x8 (0.0100 ns per cell-step), 1.10x faster than the start-up choice 32x1x16; 10 chunk commands timed" ;; esac
[ "$mode" = auto ] && echo "out of core: auto -> in core (predicted 1.000000 s vs 2.000000 s out of core)"
[ "$c" -gt 0 ] && echo "checkpoints: $c x 2.00 GiB in $c.00 s (2.15 GB/s) written in the background, the run waited 0.${c}0 s"
exit 0
PROG
    chmod +x "$work/prog"
    for n in jacobi2d_16384 acoustic_512 wave2k_512 heat3d_512 acoustic_1160 acoustic_512_auto heat3d_512_auto \
      jacobi2d_16384_auto acoustic_1160_auto; do
      mkdir -p "$work/work/build-$n" "$work/gen/tts/cuda-$n"
      touch "$work/work/build-$n/Makefile"  # configured: build_cuda only brings it up to date (fails)
      cp "$work/prog" "$work/work/build-$n/$n"
      cp "$work/prog" "$work/gen/tts/opencl/bin/$n"
    done
    for n in jacobi2d_16384 jacobi_output_e1000 jacobi_output_e500; do
      mkdir -p "$work/work/sim/build-$n"
      cp "$work/prog" "$work/work/sim/build-$n/$n"
      cp "$work/prog" "$work/gen/sim/opencl/bin/$n"
    done
    export GEN=$work/gen WORK=$work/work
    OUT=$work/out/oocauto bash "$root/bench/phases/oocauto.sh" >"$work/oocauto.txt" 2>&1
    SHAPES_ACOUSTIC="16x16x1 32x1x16" SHAPES_HEAT="64x1x4 8x4x2" SHAPES_JACOBI="32x8 256x1" SHAPES_1160="32x1x16 64x1x8" \
      OUT=$work/out/localsweep bash "$root/bench/phases/localsweep.sh" >"$work/localsweep.txt" 2>&1
    SIM_CADENCE=only CADENCE_REPS=1 CADENCE_DD_MIB=4 OUT=$work/out/sim bash "$root/bench/phases/sim.sh" >"$work/sim.txt" 2>&1
    fail=0
    expect() {  # expect FILE LINE...: each LINE is in FILE
      local f=$1 l
      shift
      for l in "$@"; do grep -qF -- "$l" "$work/$f" || { echo "FAIL: $f lacks: $l"; fail=1; }; done
    }
    expect oocauto.txt "| cuda | jacobi2d_16384 | 1000 | 1.010000 | 4.00 GiB | 50.00, 50.00 | 1.095899 | off | 1.095899 | 1.000 |" \
      "| opencl | wave2k_512 | 40 | 0.040400 | 4.00 GiB | 50.00, 50.00 | 0.126299 | auto | 0.126299 | 1.000 |"
    # In core no noretune column; out of core the auto run's shape kept on the chunks and the
    # run without retuning; OpenCL at 1160^3: no sweep.
    expect localsweep.txt "| cuda | acoustic_512 | 100 | 1.0100 (16x16x1) | 1.0320 (32x1x16) | - | 1.0160 (16x16x1) | 1.016 | 0.979 |" \
      "| opencl | heat3d_512 | 100 | 1.0100 (8x4x2) | 1.0320 (32x1x16) | - | 1.0080 (8x4x2) | 1.024 | 0.979 |" \
      "| cuda | acoustic_1160 | 240 | 1.3679 (32x1x16) | 1.3899 (32x1x16 -> 64x1x8) | 1.3899 (32x1x16) | 1.3899 (32x1x16) | 1.000 | 0.984 |" \
      "| opencl | acoustic_1160 | 240 | 1.3679 (32x1x16) | 1.3899 (32x1x16 -> 64x1x8) | 1.3899 (32x1x16) | ? (?) | - | 0.984 |" \
      "opencl: acoustic 512^3 with --local acoustic=32x1x16 = the fixed 16x16x1, bit for bit"
    # fixed: 2.105899 s for 2000 steps: 1 GiB every 1000 steps needs 1 / (1000 x 2.105899 / 2000)
    expect sim.txt "| cuda | 1000 | disk |" "| opencl | 500 | /dev/shm |" "| 0.950 |" "| 1.899 |"
    # The checkpoint rows: every 1000 steps (2 checkpoints, +0.2 s) and 500 (4, +0.4 s).
    expect sim.txt "| 2.305899 | +9.5% |" "| 2.505899 | +19.0% |" \
      "| 2 x 2.00 GiB in 2.00 s (2.15 GB/s) written in the background, the run waited 0.20 s |" \
      "| 4 x 2.00 GiB in 4.00 s (2.15 GB/s) written in the background, the run waited 0.40 s |"
    [ "$(grep -c '^| opencl | 500 | /dev/shm |' "$work/sim.txt")" = 2 ] || { echo "FAIL: sim.txt: no checkpoint rows"; fail=1; }
    if [ "$fail" -ne 0 ]; then
      for f in oocauto localsweep sim; do echo "== $f"; tail -25 "$work/$f.txt"; done
      exit 1
    fi
    echo "ok: the tables of oocauto, localsweep and sim's output cadence from stand-in reports"
    ;;
  *)
    echo "unknown mode '$mode'" >&2
    exit 2
    ;;
esac
