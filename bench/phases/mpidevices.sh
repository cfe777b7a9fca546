#!/usr/bin/env bash
# Phase `mpidevices` (after `mpiskew-generate`, whose MPI CUDA trees it builds): issue 51's MPI
# ranks that drive several GPUs (--devices N: each rank's box cut into one part per GPU, peer
# copies between a rank's GPUs, messages between ranks; runtime/stepgen/exec/rank_parts.hpp) on
# every example's MPI CUDA program. Per program: 1 rank x 1 GPU (the reference), 2 ranks x 1
# (the one-GPU-per-rank path), 1 rank x 2 GPUs, 2 ranks x 2 GPUs with --verify, 2 ranks of 3
# parts (--parts 3), 1 rank of 2 GPUs and 5 parts; every saved array compared bit for bit with
# the reference. With one GPU the ranks' GPUs are handles of it
# (STEPGEN_MPI_SHARE_DEVICES=1): the results are what is checked, the times say little.
#
#   bench/run.sh mpiskew-generate   HERE
#   bench/run.sh mpidevices         ON THE GPU MACHINE: builds, runs, prints a table last
set -u
. "$(dirname "$0")/lib.sh"
gen=$gen/mpiskew
names=(acoustic advect blur9 heat3d jacobi2d jacobi2d_fast stepocl_jacobi twostage)

mkdir -p "$out"
w=$work/mpidevices
rm -rf "$w"
mkdir -p "$w"
build_mpi_trees "$gen" "$w" mpidevices "${names[@]}"
gpus=$(gpu_count)
export STEPGEN_MPI_SHARE_DEVICES=1  # 4 GPUs asked for: shared where fewer
flags=(--allow-run-as-root --oversubscribe -x STEPGEN_MPI_SHARE_DEVICES)
arrays_of() { saved_arrays "$w/$1/$1" "$1"; }
same=0 differ=0 rows=()
for n in "${names[@]}"; do
  bin=$w/$n/$n
  [ -x "$bin" ] || { rows+=("FAIL  $n: not built"); differ=$((differ + 1)); continue; }
  for m in "r1x1:1:" "r2x1:2:" "r1x2:1:--devices 2" "r2x2:2:--devices 2 --verify" \
           "r2p3:2:--parts 3" "r1x2p5:1:--devices 2 --parts 5"; do
    tag=${m%%:*} rest=${m#*:}
    ranks=${rest%%:*} args=${rest#*:}
    saves=()
    for a in $(arrays_of "$n"); do saves+=(--save "$a=$w/$n.$tag.$a.raw"); done
    t0=$SECONDS
    # shellcheck disable=SC2086
    mpirun "${flags[@]}" -np "$ranks" "$bin" $args "${saves[@]}" >"$out/mpidevices-$n.$tag.log" 2>&1 ||
      { rows+=("FAIL  $n $tag: exit $? ($out/mpidevices-$n.$tag.log)"); differ=$((differ + 1)); continue; }
    ms=$(grep -m1 -oE "\([0-9.]+ ms/step\)" "$out/mpidevices-$n.$tag.log" | tr -d '()' | awk '{print $1}')
    verdict=-
    if [ "$tag" = r2x2 ]; then
      grep -q "verify: OK" "$out/mpidevices-$n.$tag.log" && verdict="verify OK" || verdict="verify FAILED"
      [ "$verdict" = "verify OK" ] || differ=$((differ + 1))
    fi
    if [ "$tag" != r1x1 ]; then
      for a in $(arrays_of "$n"); do
        if [ -s "$w/$n.r1x1.$a.raw" ] && cmp -s "$w/$n.r1x1.$a.raw" "$w/$n.$tag.$a.raw"; then
          same=$((same + 1))
        else
          differ=$((differ + 1)); rows+=("FAIL  $n $tag ($a) differs from 1 rank x 1 GPU")
        fi
      done
    fi
    rows+=("$(printf '  %-16s %-6s %10s ms/step  %s  (%d s)' "$n" "$tag" "${ms:-?}" "$verdict" $((SECONDS - t0)))")
  done
done
echo
echo "MPI ranks x GPUs per rank on $gpus GPU(s) (STEPGEN_MPI_SHARE_DEVICES=1); arrays against 1 x 1:"
printf '%s\n' "${rows[@]}"
echo "mpidevices: $same same, $differ differ"
