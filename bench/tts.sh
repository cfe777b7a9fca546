#!/usr/bin/env bash
# Issues 25 and 26 on one GPU in one call of at most about 9 minutes: time to solution
# (`oocauto`: in core / out of core / auto and whole run against kernels + bytes / link, both
# backends, Jacobi 16384^2, acoustic 512^3, wave2k 512^3), launch shapes (`localsweep`: fixed,
# auto and a hand sweep given by --local) and the output cadence (`sim` with SIM_CADENCE=only:
# Jacobi 16384^2, 1 GiB every 1000 and 500 steps to the disk and to /dev/shm, dd's speed).
#   bench/tts.sh prepare [BUILD_DIR]   HERE: `tts-generate` and `SIM_CADENCE=only sim-generate`
#                                      (it replaces a whole `sim-generate`'s programs); carry
#                                      bench/generated/tts and bench/generated/sim (34 MiB)
#   bench/tts.sh run                   ON THE GPU MACHINE (an H100): every CUDA tree built at
#                                      once, then `bench/run.sh oocauto localsweep sim`; the
#                                      tables last, the logs packed into $OUT/logs.tgz
# The budget (H100): builds ~2 min in parallel, oocauto ~2, localsweep ~3, cadence ~1. Knobs:
# TIMEOUT (each phase, default 270 s), REPS (oocauto, 1), CADENCE_REPS (1), STEPS_INCORE,
# STEPS_OOC, SHAPES_* and LOCALSWEEP_OPENCL (localsweep; the defaults here: 8 shapes per
# in-core program, 6 at 1160^3, fewer than the phase's own).
set -u
here=$(cd "$(dirname "$0")" && pwd)
case ${1:-} in
  prepare)
    shift
    bash "$here/run.sh" tts-generate "$@" || exit
    SIM_CADENCE=only bash "$here/run.sh" sim-generate "$@" || exit
    du -sh "$here/generated/tts" "$here/generated/sim"
    ;;
  run)
    # shellcheck source=phases/lib.sh
    . "$here/phases/lib.sh"
    mkdir -p "$out/prebuild" "$work/sim"
    start=$SECONDS
    # Every tree at once (each phase then finds its build up to date).
    for n in jacobi2d_16384 acoustic_512 wave2k_512 heat3d_512 acoustic_1160 acoustic_512_auto \
      heat3d_512_auto jacobi2d_16384_auto acoustic_1160_auto; do
      build_cuda "$n" 2 &
    done
    for n in jacobi2d_16384 jacobi_output_e1000 jacobi_output_e500; do
      { cmake -S "$gen/sim/cuda-$n" -B "$work/sim/build-$n" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-native}" && cmake --build "$work/sim/build-$n" -j 2; } \
        >"$out/prebuild/sim-build-$n.log" 2>&1 &
    done
    wait
    echo "tts: builds $((SECONDS - start)) s"
    export SHAPES_ACOUSTIC=${SHAPES_ACOUSTIC:-16x16x1 32x8x1 32x4x4 32x2x8 32x1x16 32x1x32 64x1x8 128x1x4}
    export SHAPES_HEAT=${SHAPES_HEAT:-8x4x2 32x8x1 32x4x2 32x2x4 32x1x8 32x1x16 64x1x4 128x2x1}
    export SHAPES_JACOBI=${SHAPES_JACOBI:-32x8 32x4 32x16 16x16 64x4 64x8 128x2 256x1}
    export SHAPES_1160=${SHAPES_1160:-32x1x16 16x16x1 32x2x8 32x1x32 64x1x8 128x1x4}
    TIMEOUT=${TIMEOUT:-270} PACK=${PACK:-1} SIM_CADENCE=only CADENCE_REPS=${CADENCE_REPS:-1} \
      bash "$here/run.sh" oocauto localsweep sim
    s=$?
    echo "tts: $((SECONDS - start)) s in all"
    exit "$s"
    ;;
  *)
    sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
