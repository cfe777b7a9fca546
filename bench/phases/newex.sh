#!/usr/bin/env bash
# Phase `new-examples` (GPU machine, after `generate` here; carry bench/generated/cuda-grayscott,
# cuda-seismic, cuda-tables): the CUDA programs of examples/grayscott (periodic boundaries),
# seismic (sources and receivers) and tables (<table>) on one GPU, in core and out of core,
# against their serial references (grayscott out of core too: periodic frames out of core);
# then (carry bench/generated/sim/cuda-seismic128, made by `sim-generate`) the issue's 128^3
# acoustic wave, bench/specs/sim/seismic128.xml, in core and out of core (k = 1 and 4), fields
# and both traces against examples/seismic/reference.cpp --size 128; and <boundary> mirror, copy
# and value(v) out of core at k = 3 and 2 against in core (carry bench/generated/boundary, made by
# hand: `stepgen generate SPEC --target cuda -o bench/generated/boundary/cuda-NAME`).
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
# --- <boundary> out of core on the GPU (oocphys): mirror/copy and mirror/value(v) frames refilled on
# the device between the steps of a pass and between the two launches of a step
# (tests/boundary/mirror_copy_twice.xml, bench/specs/boundary/value_twice.xml; carry
# bench/generated/boundary): out of core at k = 3 and k = 2 against in core, bit for bit.
for n in mirror_copy_twice value_twice; do
  t=$gen/boundary/cuda-$n
  [ -d "$t" ] || { echo "$n: not generated (bench/generated/boundary)"; continue; }
  (cmake -S "$t" -B $work/b-$n -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native >/dev/null 2>&1 &&
    cmake --build $work/b-$n -j 8 >$work/build-$n.log 2>&1) || { echo "$n: build failed"; continue; }
  for m in "incore:" "ooc-k3:--out-of-core on --ooc-chunks 3 --steps-per-pass 3" \
    "ooc-k2:--out-of-core on --ooc-chunks 4 --steps-per-pass 2"; do
    tag=${m%%:*} args=${m#*:}
    d=$work/o-$n-$tag; rm -rf $d; mkdir -p $d
    # shellcheck disable=SC2086
    (cd $d && $work/b-$n/$n $args --save A=A.raw --save B=B.raw >log 2>&1) || echo "$n $tag: FAILED $(tail -1 $d/log)"
    [ "$tag" = incore ] && continue
    v=ok
    for f in A.raw B.raw; do cmp -s $work/o-$n-incore/$f $d/$f && [ -s $d/$f ] || v="DIFF($f)"; done
    echo "$n $tag vs in core: $v  $(grep -m1 -E 'steps per pass|chunks' $d/log)"
  done
done
# --- seismic128 (io2): 128^3, sources and receivers on seams, fields and traces ---------------
s128=$gen/sim/cuda-seismic128
if [ -d "$s128" ]; then
  cmake -S "$s128" -B $work/b-seismic128 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native >/dev/null 2>&1 &&
    cmake --build $work/b-seismic128 -j 8 >$work/build-seismic128.log 2>&1 || echo "seismic128: build failed"
  r=$work/r-seismic128; rm -rf $r; mkdir -p $r
  start=$(date +%s%N)
  $work/ref/reference_seismic --size 128 --out $r >/dev/null 2>&1 || echo "seismic128: reference failed"
  echo "seismic128 reference: $(( ($(date +%s%N) - start) / 1000000 )) ms"
  modes=("incore:" "ooc-k1:--out-of-core on --ooc-chunks 3 --steps-per-pass 1"
    "ooc-k4:--out-of-core on --ooc-chunks 4 --steps-per-pass 4")
  for m in "${modes[@]}"; do
    tag=${m%%:*} args=${m#*:}
    d=$work/o-seismic128-$tag; rm -rf $d; mkdir -p $d
    # shellcheck disable=SC2086
    (cd $d && $work/b-seismic128/seismic128 $args --save p1=p1.raw --save p2=p2.raw --save p3=p3.raw >log 2>&1)
    v=ok
    for f in p1.raw p2.raw p3.raw traces.csv receivers.csv; do cmp -s $r/$f $d/$f || v="DIFF($f)"; done
    echo "seismic128 $tag: $v  $(grep -m1 -E 'error' $d/log)  $(grep -m1 -iE 'steps/s|time' $d/log)"
  done
else
  echo "seismic128: not generated (run sim-generate first)"
fi
