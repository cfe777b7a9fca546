# Sourced by every phase of bench/run.sh: the paths and the helpers they share.
#   root  the repository root          gen   bench/generated (GEN=...): what `generate` and
#   out   the logs ($OUT, /tmp/out)          `prepare` write here and the GPU machine reads
#   work  the builds and runs on the GPU machine ($WORK, /tmp/stepgen-bench), shared by the
#         phases so that `build` builds once for all of them
# shellcheck shell=bash
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
gen=${GEN:-$root/bench/generated}
out=${OUT:-/tmp/out}
work=${WORK:-/tmp/stepgen-bench}
export PATH=$PATH:/usr/local/cuda/bin

# The median of the numbers on stdin, "?" when there are none.
median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "?"; else print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# The built stepgen (STEPGEN=..., else build/stepgen, else the first build-*/stepgen): for the
# phases that run here.
find_stepgen() {
  local s
  for s in ${STEPGEN:-} "$root"/build/stepgen "$root"/build-*/stepgen; do
    [ -x "$s" ] && { echo "$s"; return 0; }
  done
  echo "bench: no stepgen binary (build it, or set STEPGEN=path)" >&2
  return 2
}

# The GPUs the programs see: nvidia-smi's count, at most CUDA_VISIBLE_DEVICES's.
gpu_count() {
  local n vis_n
  n=$(nvidia-smi -L 2>/dev/null | wc -l)
  if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
    vis_n=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
    [ "$vis_n" -lt "$n" ] && n=$vis_n
  fi
  echo "$n"
}

# NVIDIA's OpenCL driver lives in the driver's folders: register it with the ICD loader
# (OCL_ICD_VENDORS) when the image has no vendors file for it.
register_nvidia_opencl() {
  ls /etc/OpenCL/vendors/*nvidia* >/dev/null 2>&1 && return 0
  local lib
  lib=$( (ldconfig -p | awk '/libnvidia-opencl.so.1/ {print $NF; exit}'); find /usr/local/nvidia /usr/lib /usr/lib64 -name 'libnvidia-opencl.so.1' 2>/dev/null | head -1)
  lib=$(echo "$lib" | head -1)
  echo "registering NVIDIA OpenCL: ${lib:-not found}"
  mkdir -p /tmp/vendors && echo "$lib" >/tmp/vendors/nvidia.icd
  export OCL_ICD_VENDORS=/tmp/vendors
}

# Puts mpirun on PATH when the image has it in a folder of its own; fails when there is none.
find_mpirun() {
  command -v mpirun >/dev/null && return 0
  local d
  for d in /usr/mpi/gcc/openmpi-*/bin /opt/hpcx/ompi/bin /usr/local/mpi/bin /opt/openmpi/bin /usr/lib64/openmpi/bin; do
    [ -x "$d/mpirun" ] && export PATH=$d:$PATH && export LD_LIBRARY_PATH=$d/../lib:${LD_LIBRARY_PATH:-} && break
  done
  command -v mpirun >/dev/null
}

# The generated CUDA tree of NAME: bench/generated/cuda-NAME, .../bench/cuda-NAME (the benchmark
# specs), .../tts/cuda-NAME (`tts-generate`), or for mpi-NAME the MPI program .../mpi-cuda/NAME.
cuda_tree() {
  local d
  case $1 in
    mpi-*) d=$gen/mpi-cuda/${1#mpi-}; [ -d "$d" ] && echo "$d" ;;
    *) for d in "$gen/cuda-$1" "$gen/bench/cuda-$1" "$gen/tts/cuda-$1"; do [ -d "$d" ] && { echo "$d"; return 0; }; done ;;
  esac
}
# build_cuda NAME [JOBS]: builds the generated CUDA program NAME (see cuda_tree) into
# $work/build-NAME (Release, CMAKE_CUDA_ARCHITECTURES=${CUDA_ARCH:-native}), log
# $out/build-NAME.log. A tree configured before (by `build` or another phase) is only brought
# up to date. The binary: $work/build-NAME/PROGRAM (PROGRAM: NAME without mpi-).
build_cuda() {
  local name=$1 jobs=${2:-4} tree b=$work/build-$1
  tree=$(cuda_tree "$name")
  [ -n "$tree" ] || { echo "no generated tree for $name (run bench/run.sh generate here)" >"$out/build-$name.log"; return 1; }
  mkdir -p "$out"
  if [ ! -f "$b/Makefile" ] && [ ! -f "$b/build.ninja" ]; then
    cmake -S "$tree" -B "$b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-native}" \
      >"$out/build-$name.log" 2>&1 || return 1
  fi
  cmake --build "$b" -j "$jobs" >>"$out/build-$name.log" 2>&1
}
# build_cuda_tree TREE DIR: builds the generated CUDA tree TREE in DIR (Release,
# CMAKE_CUDA_ARCHITECTURES=${CUDA_ARCH:-native}, 8 jobs), log DIR.log.
build_cuda_tree() {
  cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-native}" \
    >"$2.log" 2>&1 && cmake --build "$2" -j 8 >>"$2.log" 2>&1
}
# build_mpi_trees GEN W LOG NAME...: builds the MPI CUDA trees GEN/mpi-NAME into W/NAME, six at a
# time (4 jobs each), logs $out/LOG-build-NAME.log; prints the time it took.
build_mpi_trees() {
  local gen=$1 w=$2 log=$3 start=$SECONDS n
  shift 3
  for n in "$@"; do
    while [ "$(jobs -rp | wc -l)" -ge 6 ]; do wait -n; done
    (cmake -S "$gen/mpi-$n" -B "$w/$n" -DCMAKE_BUILD_TYPE=Release \
       -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-native}" >"$out/$log-build-$n.log" 2>&1 &&
      cmake --build "$w/$n" -j 4 >>"$out/$log-build-$n.log" 2>&1) &
  done
  wait
  echo "built in $((SECONDS - start)) s"
}
# saved_arrays BIN NAME: the arrays program NAME (BIN) saves for comparison: its --help's
# `arrays:` line (twostage: U V, wave2k: u uprev unew, the arrays its time loop writes).
saved_arrays() {
  case $2 in
    wave2k) echo "u uprev unew" ;;
    twostage) echo "U V" ;;
    *) "$1" --help | awk '/^arrays:/ {for (i = 2; i <= NF; i++) print $i}' ;;
  esac
}
# The serial references of the examples (plain C++, runtime/include only) into $work/ref.
build_references() {
  mkdir -p "$out"
  cmake -S "$root/examples" -B "$work/ref" -DCMAKE_BUILD_TYPE=Release >"$out/ref-build.log" 2>&1 &&
    cmake --build "$work/ref" -j 8 >>"$out/ref-build.log" 2>&1
}

# MPI runs of 2 ranks: one GPU each where there are 2 or more, else sharing the one
# (STEPGEN_MPI_SHARE_DEVICES, exported for mpirun -x); says which. $1: the GPU count.
mpi_two_ranks() {
  if [ "$1" -ge 2 ]; then
    export STEPGEN_MPI_SHARE_DEVICES=0
    echo "MPI runs: 2 ranks, one GPU each ($1 GPUs)"
  else
    export STEPGEN_MPI_SHARE_DEVICES=1
    echo "MPI runs: 2 ranks sharing the GPU"
  fi
}
