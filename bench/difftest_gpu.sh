#!/usr/bin/env bash
# The differential tester's random stencil programs (tests/difftest/gen.py) on one GPU: CUDA and
# NVIDIA's OpenCL, every mode one GPU allows, each run's saved arrays compared bit for bit (cmp)
# with the one-GPU in-core run of the same program and backend.
#
#   bash bench/difftest_gpu.sh generate N SEED [NOCL] [NMPI]    HERE (needs the built stepgen):
#       N programs from seeds SEED.., their CUDA trees, the first NOCL also as OpenCL trees, every
#       program whose index is below NMPI also as a CUDA MPI tree; into bench/generated/difftest/
#       with the runtime headers once (the trees link to them), the OpenCL headers and ICD loader
#   bash bench/difftest_gpu.sh run                               ON THE GPU MACHINE (carry
#       bench/generated): builds every tree with nvcc / g++ (the generated CMakeLists' flags:
#       --fmad=false, -Wall -Wextra -Werror), runs, prints a tally and the failures last
#
# Modes per program (gpu_modes.txt, LABEL<TAB>ENV<TAB>FLAGS): the program's own modes.txt lines
# that fit one device (out of core with chunks, k, trapezoid, band and region sharing, overlap,
# pinned, the model under a budget), four more drawn here, and for MPI trees 2 and 3 ranks sharing
# the GPU (STEPGEN_MPI_SHARE_DEVICES=1: overlap on views between ranks), in core and out of core.
# A run refused with a stated reason (a budget no chunk fits, a grid too small to split) is
# counted as refused, as tests/difftest does. Logs and failing programs go to $OUT.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
gen=$root/bench/generated/difftest

if [ "${1:-}" = generate ]; then
  set -e
  n=${2:?N} seed=${3:?SEED} nocl=${4:-100} nmpi=${5:-60}
  stepgen=${STEPGEN:-$root/build/stepgen}
  rm -rf "$gen"
  mkdir -p "$gen/_runtime" "$gen/_ocl/include" "$gen/_ocl/lib"
  cp -r "$root/runtime/include/stepgen" "$gen/_runtime/"
  cp -r /usr/include/CL "$gen/_ocl/include/"
  cp -P /usr/lib/x86_64-linux-gnu/libOpenCL.so* "$gen/_ocl/lib/"
  for ((i = 0; i < n; i++)); do
    s=$((seed + i)) d=$gen/p$((seed + i))
    python3 "$root/tests/difftest/gen.py" "$s" "$d" >/dev/null
    spec=$(ls "$d"/prog.xml "$d"/prog.yaml 2>/dev/null | head -1)
    trees=(cuda)
    "$stepgen" generate "$spec" --target cuda -o "$d/cuda" >"$d/gen.log" 2>&1 || echo "GENFAIL cuda" >>"$d/gen.log"
    if [ "$i" -lt "$nmpi" ]; then
      "$stepgen" generate "$spec" --target cuda --distribution mpi -o "$d/cuda-mpi" >>"$d/gen.log" 2>&1 || echo "GENFAIL cuda-mpi" >>"$d/gen.log"
      trees+=(cuda-mpi)
    fi
    if [ "$i" -lt "$nocl" ]; then
      "$stepgen" generate "$spec" --target opencl -o "$d/ocl" >>"$d/gen.log" 2>&1 || echo "GENFAIL ocl" >>"$d/gen.log"
      (cd "$d/ocl" && cmake -DOUT="$d/ocl/kernel_source.hpp" "-DFILES=$(grep -oE 'KERNEL_FILES [^)]*' CMakeLists.txt | cut -d' ' -f2- | tr ' ' ';')" \
        -P cmake/embed_kernels.cmake) >>"$d/gen.log" 2>&1
      trees+=(ocl)
    fi
    for t in "${trees[@]}"; do
      [ -d "$d/$t/runtime/stepgen" ] || continue
      rm -rf "$d/$t/runtime/stepgen" "$d/$t/.stepgen"
      ln -s ../../../_runtime/stepgen "$d/$t/runtime/stepgen"
    done
    # The modes for one GPU: modes.txt's one-device lines, MPI lines (ranks share the GPU), and
    # four more out-of-core ones drawn from the seed.
    python3 - "$d" "$s" <<'PY'
import random, re, sys
d, seed = sys.argv[1], int(sys.argv[2])
rng = random.Random(seed * 7919 + 1)
keep = []
for line in open(d + "/modes.txt"):
    label, env, flags = line.rstrip("\n").split("\t")
    m = re.search(r"--devices (\d+)", flags)
    if label.startswith("mpi") or not m or int(m.group(1)) == 1:
        keep.append((label, env, flags.replace("--strategy stepocl", "").replace("--strategy min-exchange", "")))
for j in range(4):
    f = ["--devices 1 --out-of-core on", "--ooc-chunks %d" % rng.randint(1, 4),
         "--steps-per-pass %d" % rng.randint(1, 4)]
    for flag in ("--trapezoid", "--band-sharing", "--region-sharing", "--overlap", "--pinned"):
        v = rng.choice(["on", "off", None])
        if v: f.append("%s %s" % (flag, v))
    keep.append(("gpu-ooc%d" % j, "-", " ".join(f)))
keep.append(("mpi2", "-", ""))
keep.append(("mpi3", "-", "--out-of-core off"))
with open(d + "/gpu_modes.txt", "w") as out:
    for label, env, flags in keep:
        out.write("%s\t%s\t%s\n" % (label, env, re.sub(" +", " ", flags).strip()))
PY
  done
  du -sh "$gen"
  echo "generated $n programs into $gen"
  exit 0
fi

[ "${1:-}" = run ] || { echo "usage: $0 generate N SEED [NOCL] [NMPI] | run" >&2; exit 2; }
out=${OUT:-/tmp/out}
jobs=${JOBS:-16}
mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  nvcc --version | tail -1
  command -v mpirun >/dev/null && mpirun --version 2>&1 | head -1
} 2>&1 | tee "$out/machine.txt"
export LD_LIBRARY_PATH=$gen/_ocl/lib:${LD_LIBRARY_PATH:-}
vend=/tmp/vendors
mkdir -p $vend
ls /etc/OpenCL/vendors/*nvidia* >/dev/null 2>&1 && cp /etc/OpenCL/vendors/*nvidia* $vend/
[ -f $vend/nvidia.icd ] || echo libnvidia-opencl.so.1 > $vend/nvidia.icd
export OCL_ICD_VENDORS=$vend
mpi_flags=(--allow-run-as-root --oversubscribe)
mpi_cflags=() mpi_lflags=()
if command -v mpicxx >/dev/null; then
  # Open MPI's include and library folders and libraries, for nvcc.
  mpi_cflags=($(mpicxx --showme:incdirs | tr ' ' '\n' | sed 's/^/-I/'))
  mpi_lflags=($(mpicxx --showme:libdirs | tr ' ' '\n' | sed 's/^/-L/') $(mpicxx --showme:libs | tr ' ' '\n' | sed 's/^/-l/'))
fi

# build DIR TREE: the tree's program as DIR/TREE.bin (log DIR/TREE.build.log)
build() {
  local d=$1 t=$2 src
  src=$(ls "$d/$t"/*.cu "$d/$t"/*.cpp 2>/dev/null | head -1)
  [ -n "$src" ] || return 1
  case $t in
    cuda) nvcc -std=c++17 -O1 --fmad=false -arch=native -Xcompiler=-Wall,-Wextra -Werror all-warnings \
            -Xcompiler=-Werror -I "$d/$t" -I "$d/$t/runtime" "$src" -o "$d/$t.bin" ;;
    cuda-mpi) nvcc -std=c++17 -O1 --fmad=false -arch=native -Xcompiler=-Wall,-Wextra -I "$d/$t" \
            -I "$d/$t/runtime" "${mpi_cflags[@]}" "$src" -o "$d/$t.bin" "${mpi_lflags[@]}" ;;
    ocl) g++ -std=c++17 -O1 -Wall -Wextra -Werror -DCL_TARGET_OPENCL_VERSION=120 -I "$gen/_ocl/include" \
            -I "$d/$t" -I "$d/$t/runtime" "$src" -o "$d/$t.bin" -L "$gen/_ocl/lib" -lOpenCL -pthread ;;
  esac >"$d/$t.build.log" 2>&1
}
start=$SECONDS
for d in "$gen"/p*; do
  for t in cuda cuda-mpi ocl; do
    [ -d "$d/$t" ] || continue
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    build "$d" "$t" &
  done
done
wait
echo "built in $((SECONDS - start)) s"

skip='can be split into only|thinner than|cannot be split|cannot fit|out of core is not available|owns only|use fewer|fewer chunks|into that many parts|too small for|set exchange_every|only [0-9]+ match|does not fit|one rank per|at most that many ranks'
programs=0 runs=0 same=0 differ=0 refused=0 builds_failed=0
declare -A by_backend_programs
fails=()
# run_one DIR TREE LABEL ENV FLAGS RANKS: runs and saves into DIR/TREE.LABEL/
run_one() {
  local d=$1 t=$2 label=$3 env=$4 flags=$5 ranks=$6 o="$1/$2.$3"
  rm -rf "$o"; mkdir -p "$o"
  local saves=() a
  for a in $(cat "$d/saves.txt"); do saves+=(--save "$a=$o/$a.raw"); done
  local e=()
  [ "$env" != "-" ] && e=($env)
  # shellcheck disable=SC2086
  if [ "$ranks" -gt 0 ]; then
    (cd "$d" && env "${e[@]}" STEPGEN_MPI_SHARE_DEVICES=1 timeout 300 mpirun "${mpi_flags[@]}" -np "$ranks" \
       "$d/$t.bin" $flags "${saves[@]}") </dev/null >"$o/log.txt" 2>&1
  else
    (cd "$d" && env "${e[@]}" timeout 300 "$d/$t.bin" $flags "${saves[@]}") </dev/null >"$o/log.txt" 2>&1
  fi
}
compare() {  # compare DIR REFDIR RUNDIR: 0 same, 1 differs
  local a
  for a in $(cat "$1/saves.txt"); do cmp -s "$2/$a.raw" "$3/$a.raw" || return 1; done
  return 0
}
for d in "$gen"/p*; do
  programs=$((programs + 1))
  for t in cuda ocl; do
    [ -d "$d/$t" ] || continue
    if [ ! -x "$d/$t.bin" ]; then
      builds_failed=$((builds_failed + 1)); fails+=("$(basename "$d") $t: BUILD $(grep -m1 -E 'error' "$d/$t.build.log")")
      continue
    fi
    by_backend_programs[$t]=$(( ${by_backend_programs[$t]:-0} + 1 ))
    run_one "$d" "$t" ref - "--devices 1 --out-of-core off" 0
    if ! [ -s "$d/$t.ref/$(head -1 "$d/saves.txt").raw" ]; then
      fails+=("$(basename "$d") $t: the reference run failed: $(tail -1 "$d/$t.ref/log.txt")"); continue
    fi
    while IFS=$'\t' read -r label env flags; do
      ranks=0
      case $label in mpi*) [ "$t" = cuda ] && [ -x "$d/cuda-mpi.bin" ] || continue; ranks=${label#mpi}; ranks=${ranks%%[!0-9]*} ;; esac
      tree=$t; [ "$ranks" -gt 0 ] && tree=cuda-mpi
      run_one "$d" "$tree" "$label" "$env" "$flags" "$ranks"
      runs=$((runs + 1))
      o="$d/$tree.$label"
      if compare "$d" "$d/$t.ref" "$o"; then same=$((same + 1))
      elif grep -qE "$skip" "$o/log.txt"; then refused=$((refused + 1))
      else
        differ=$((differ + 1))
        fails+=("$(basename "$d") $t $label [$env] $flags: $(grep -m1 -iE 'error|differ' "$o/log.txt")")
        cp -r "$d" "$out/fail-$(basename "$d")" 2>/dev/null
      fi
    done < "$d/gpu_modes.txt"
  done
done
[ "$builds_failed" -gt 0 ] && for d in "$gen"/p*; do [ -d "$d/cuda-mpi" ] && [ ! -x "$d/cuda-mpi.bin" ] && fails+=("$(basename "$d") cuda-mpi: BUILD $(grep -m1 error "$d/cuda-mpi.build.log")"); done
echo
printf '%s\n' "${fails[@]:0:40}"
echo "difftest_gpu: programs $programs (cuda ${by_backend_programs[cuda]:-0}, opencl ${by_backend_programs[ocl]:-0}), runs $runs: same $same, refused $refused, differ $differ, builds failed $builds_failed"
