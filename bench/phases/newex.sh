#!/usr/bin/env bash
# Phase `new-examples` (GPU machine, after `generate` here; carry bench/generated/cuda-grayscott,
# cuda-seismic, cuda-tables): the CUDA programs of examples/grayscott (periodic boundaries),
# seismic (sources and receivers) and tables (<table>) on one GPU, in core and out of core,
# against their serial references (grayscott out of core: refused, boundaries are in core only).
# Usage: bench/run.sh new-examples
set -u
. "$(dirname "$0")/lib.sh"
work=$work/newex
mkdir -p "$work"
cd "$root" || exit 1
cmake -S examples -B $work/ref -DCMAKE_BUILD_TYPE=Release >/dev/null 2>&1 && cmake --build $work/ref -j 8 >/dev/null 2>&1 || echo "refs failed"
for ex in grayscott seismic tables; do
  (cmake -S $gen/cuda-$ex -B $work/b-$ex -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native >/dev/null 2>&1 && cmake --build $work/b-$ex -j 8 >$work/build-$ex.log 2>&1) &
done
wait
for ex in grayscott seismic tables; do
  rm -rf $work/r-$ex; mkdir -p $work/r-$ex
  (cd examples/$ex && $work/ref/reference_$ex --out $work/r-$ex >/dev/null 2>&1)
  arrays=$(cd $work/r-$ex && ls *.raw | sed 's/\.raw$//')
  modes=("incore:" "ooc:--out-of-core on --ooc-chunks 3 --steps-per-pass 2")
  for m in "${modes[@]}"; do
    tag=${m%%:*} args=${m#*:}
    d=$work/o-$ex-$tag; rm -rf $d; mkdir -p $d
    saves=(); for a in $arrays; do saves+=(--save "$a=$d/$a.raw"); done
    # shellcheck disable=SC2086
    (cd examples/$ex && STEPGEN_SPEC_DIR=$root/examples/$ex $work/b-$ex/$ex $args "${saves[@]}" >$d/log 2>&1)
    v=ok
    for a in $arrays; do cmp -s $work/r-$ex/$a.raw $d/$a.raw || v="DIFF($a)"; done
    echo "$ex $tag: $v  $(grep -m1 -E 'error' $d/log)"
  done
done
