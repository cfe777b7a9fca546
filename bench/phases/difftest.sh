#!/usr/bin/env bash
# Phases `difftest-generate` and `difftest`: the differential tester's random stencil programs
# (tests/difftest/gen.py) on one GPU: CUDA and NVIDIA's OpenCL, every mode one GPU allows, each
# run's saved arrays compared bit for bit (cmp) with the one-GPU in-core run of the same program
# and backend.
#
#   bench/run.sh difftest-generate N SEED [NOCL] [NMPI]         HERE (needs the built stepgen):
#       the saved regressions (tests/difftest/regressions) then N programs from seeds SEED..:
#       their CUDA trees, the first NOCL also as OpenCL trees, every program whose index is
#       below NMPI also as a CUDA MPI tree; into bench/generated/difftest/ with the runtime
#       headers once (the trees link to them), the OpenCL headers and ICD loader
#   bench/run.sh difftest                                       ON THE GPU MACHINE (carry
#       bench/generated): builds every tree with nvcc / g++ (the generated CMakeLists' flags:
#       --fmad=false, -Wall -Wextra -Werror), runs, prints a tally and the failures last
#       (REPEAT=N: every differing mode again, alone, N times; JOBS, RUN_JOBS: parallel builds, runs)
#
# Modes per program (gpu_modes.txt, LABEL<TAB>ENV<TAB>FLAGS): the program's own modes.txt lines
# that fit one device (out of core with chunks, k, trapezoid, band and region sharing, overlap,
# pinned, the model under a budget; --parts on one device), four more drawn here, two with
# 2-8 parts on the GPU (--parts: slabs, the min-exchange grid), and for MPI trees 2 and 3 ranks, in
# core and out of core: ranks share a GPU (STEPGEN_MPI_SHARE_DEVICES=1: overlap on views between
# ranks) only where there are fewer GPUs than ranks.
# A run refused with a stated reason (a budget no chunk fits, a grid too small to split) is
# counted as refused, as tests/difftest does. Logs and failing programs go to $OUT.
set -u
. "$(dirname "$0")/lib.sh"
gen=$gen/difftest

if [ "${1:-}" = generate ]; then
  set -e
  n=${2:?N} seed=${3:?SEED} nocl=${4:-100} nmpi=${5:-60}
  stepgen=${STEPGEN:-$root/build/stepgen}
  rm -rf "$gen"
  mkdir -p "$gen/_runtime" "$gen/_ocl/include" "$gen/_ocl/lib"
  cp -r "$root/runtime/include/stepgen" "$gen/_runtime/"
  # The runtime's OpenCL kernels as headers (runtime/stepgen/exec/kernels/*.cl), once for every tree.
  cmake -DOUT_DIR="$gen/_runtime_kernels" -P "$root/cmake/runtime_kernels.cmake"
  rm -f "$gen/_runtime_kernels/embed_kernels.cmake"
  cp -r /usr/include/CL "$gen/_ocl/include/"
  cp -P /usr/lib/x86_64-linux-gnu/libOpenCL.so* "$gen/_ocl/lib/"
  # EXTRA_SEEDS: programs to test again (earlier failures), before the N new ones.
  seeds=(${EXTRA_SEEDS:-})
  for ((i = 0; i < n; i++)); do seeds+=($((seed + i))); done
  # The saved regression programs (tests/difftest/regressions/*, each a failure the tester once
  # found: CI runs their CUDA host code only under the emulation) come first, as programs
  # pr0, pr1, ..., with every tree (CUDA, CUDA MPI, OpenCL).
  regressions=()
  for r in "$root"/tests/difftest/regressions/*/; do [ -f "$r/modes.txt" ] && regressions+=("$r"); done
  for ((i = 0; i < ${#regressions[@]} + ${#seeds[@]}; i++)); do
    if [ "$i" -lt "${#regressions[@]}" ]; then
      s=$((1000000 + i)) d=$gen/pr$i
      mkdir -p "$d" && cp -r "${regressions[$i]}". "$d/"
      echo "${regressions[$i]}" > "$d/regression.txt"
    else
      s=${seeds[$((i - ${#regressions[@]}))]} d=$gen/p$s
      python3 "$root/tests/difftest/gen.py" "$s" "$d" >/dev/null
    fi
    spec=$(ls "$d"/prog.xml "$d"/prog.yaml 2>/dev/null | head -1)
    trees=(cuda)
    "$stepgen" generate "$spec" --target cuda -o "$d/cuda" >"$d/gen.log" 2>&1 || echo "GENFAIL cuda" >>"$d/gen.log"
    if [ "$i" -lt "$nmpi" ]; then
      "$stepgen" generate "$spec" --target cuda --distribution mpi -o "$d/cuda-mpi" >>"$d/gen.log" 2>&1 || echo "GENFAIL cuda-mpi" >>"$d/gen.log"
      trees+=(cuda-mpi)
    fi
    if [ "$i" -lt "$nocl" ]; then
      "$stepgen" generate "$spec" --target opencl -o "$d/ocl" >>"$d/gen.log" 2>&1 || echo "GENFAIL ocl" >>"$d/gen.log"
      (cd "$d/ocl" && cmake -DOUT="$d/ocl/kernel_source.hpp" "-DFILES=$(grep -oE 'KERNEL_FILES [^)]*' CMakeLists.txt | cut -d' ' -f2- | sed 's/" "/;/g; s/"//g')" \
        -P cmake/embed_kernels.cmake) >>"$d/gen.log" 2>&1
      trees+=(ocl)
    fi
    for t in "${trees[@]}"; do
      [ -d "$d/$t/runtime/stepgen" ] || continue
      rm -rf "$d/$t/runtime/stepgen" "$d/$t/.stepgen"
      ln -s ../../../_runtime/stepgen "$d/$t/runtime/stepgen"
    done
    # The modes for one GPU: modes.txt's one-device lines, MPI lines (ranks share the GPU), and
    # four more out-of-core ones drawn from the seed, `--out-of-core auto` made to take out of
    # core, and an MPI out-of-core one.
    python3 - "$d" "$s" <<'PY'
import random, re, sys
d, seed = sys.argv[1], int(sys.argv[2])
rng = random.Random(seed * 7919 + 1)
keep = []
for line in open(d + "/modes.txt"):
    label, env, flags = line.rstrip("\n").split("\t")
    m = re.search(r"--devices (\d+)", flags)
    if label.startswith("parts") and m and int(m.group(1)) == 1:
        keep.append((label, env, flags))  # several parts on the one GPU: every strategy
    elif not m or int(m.group(1)) == 1:  # MPI lines too, but a rank's 2 devices (one GPU here)
        keep.append((label, env, flags.replace("--strategy stepocl", "").replace("--strategy min-exchange", "")))
# --parts on the one GPU: 2-8 parts (slabs with overlap, or the min-exchange grid)
for j, strategy in enumerate(["", "--strategy min-exchange"]):
    keep.append(("gpu-parts%d" % j, "-", "--devices 1 --parts %d %s" % (rng.randint(2, 8), strategy)))
for j in range(4):
    f = ["--devices 1 --out-of-core on", "--ooc-chunks %d" % rng.randint(1, 4),
         "--steps-per-pass %d" % rng.randint(1, 4)]
    for flag in ("--trapezoid", "--band-sharing", "--region-sharing", "--overlap", "--pinned"):
        v = rng.choice(["on", "off", None])
        if v: f.append("%s %s" % (flag, v))
    keep.append(("gpu-ooc%d" % j, "-", " ".join(f)))
# `--out-of-core auto` made to take out of core (calibrated on samples, then the host copies
# the in-core start-up did not make), every program
keep.append(("gpu-auto", "STEPGEN_AUTO_CHOICE=out-of-core", "--devices 1 --out-of-core auto"))
keep.append(("mpi2", "-", ""))
keep.append(("mpi3", "-", "--strategy slabs"))
# MPI out of core on each rank (both backends since the one runner takes the pass-boundary share)
keep.append(("mpi2-ooc", "-", "--out-of-core on --ooc-chunks %d --steps-per-pass %d"
             % (rng.randint(1, 3), rng.randint(1, 3))))
with open(d + "/gpu_modes.txt", "w") as out:
    for label, env, flags in keep:
        out.write("%s\t%s\t%s\n" % (label, env, re.sub(" +", " ", flags).strip()))
PY
  done
  rm -f "$gen".tar.xz
  tar -cJf "$gen.tar.xz" -C "$(dirname "$gen")" difftest
  rm -rf "$gen"
  ls -la "$gen.tar.xz"
  echo "generated $n programs into $gen.tar.xz"
  exit 0
fi

[ "${1:-}" = run ] || { echo "usage: bench/run.sh difftest-generate N SEED [NOCL] [NMPI] | difftest" >&2; exit 2; }
out=${OUT:-/tmp/out}
jobs=${JOBS:-16}
mkdir -p "$out"
# The programs travel packed: unpacked on this machine's disk.
if [ -f "$gen.tar.xz" ]; then
  rm -rf /tmp/difftest-gpu && mkdir -p /tmp/difftest-gpu && tar -xJf "$gen.tar.xz" -C /tmp/difftest-gpu
  gen=/tmp/difftest-gpu/difftest
fi
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
mpi_flags=(--allow-run-as-root --oversubscribe -x STEPGEN_MPI_SHARE_DEVICES)
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
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
    cuda) nvcc -std=c++17 -O0 --fmad=false -arch=native -Xcompiler=-Wall,-Wextra -Werror all-warnings \
            -Xcompiler=-Werror -I "$d/$t" -I "$d/$t/runtime" "$src" -o "$d/$t.bin" ;;
    cuda-mpi) nvcc -std=c++17 -O0 --fmad=false -arch=native -Xcompiler=-Wall,-Wextra -I "$d/$t" \
            -I "$d/$t/runtime" "${mpi_cflags[@]}" "$src" -o "$d/$t.bin" "${mpi_lflags[@]}" ;;
    ocl) g++ -std=c++17 -O1 -Wall -Wextra -Werror -DCL_TARGET_OPENCL_VERSION=120 -I "$gen/_ocl/include" \
            -I "$d/$t" -I "$d/$t/runtime" -I "$gen/_runtime_kernels" "$src" -o "$d/$t.bin" -L "$gen/_ocl/lib" -lOpenCL -pthread ;;
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

skip='can be split into only|frame [0-9]* cells wide is too narrow for the cells a pass reads|at most 1 can be exact|cannot run out of core exactly|thinner than|cannot be split|cannot fit|no plan can be made|out of core is not available|owns only|use fewer|fewer chunks|into that many parts|too small for|set exchange_every|only [0-9]+ match|does not fit|one rank per|at most that many ranks'
# run_one DIR TREE LABEL ENV FLAGS RANKS: runs and saves into DIR/TREE.LABEL/ (--spec-dir: the
# programs were generated on another machine; init="file(mask.raw)" inputs lie beside the spec)
run_one() {
  local d=$1 t=$2 label=$3 env=$4 flags=$5 ranks=$6 o="$1/$2.$3" a
  rm -rf "$o"
  mkdir -p "$o"
  local saves=() e=()
  for a in $(cat "$d/saves.txt"); do saves+=(--save "$a=$o/$a.raw"); done
  [ "$env" != "-" ] && read -r -a e <<<"$env"
  if [ "$ranks" -gt 0 ]; then
    # shellcheck disable=SC2086
    # Ranks share GPUs only where there are fewer GPUs than ranks.
    local share=0
    [ "$ranks" -gt "$gpus" ] && share=1
    (cd "$d" && env "${e[@]}" STEPGEN_MPI_SHARE_DEVICES=$share timeout 300 mpirun "${mpi_flags[@]}" \
       -np "$ranks" "$d/$t.bin" $flags --spec-dir "$d" "${saves[@]}") </dev/null >"$o/log.txt" 2>&1
  else
    # shellcheck disable=SC2086
    (cd "$d" && env "${e[@]}" timeout 300 "$d/$t.bin" $flags --spec-dir "$d" "${saves[@]}") </dev/null >"$o/log.txt" 2>&1
  fi
}
# compare DIR REFDIR RUNDIR: every saved array the same bytes
compare() {
  local a
  for a in $(cat "$1/saves.txt"); do cmp -s "$2/$a.raw" "$3/$a.raw" || return 1; done
  return 0
}
# test_program DIR: every mode of one program on both backends; one line per outcome in DIR/result.txt
# (SAME, REFUSED, DIFFER ..., BUILD ..., NOREF ...).
test_program() {
  local d=$1 t label env flags ranks tree o
  : >"$d/result.txt"
  for t in cuda ocl; do
    [ -d "$d/$t" ] || continue
    if [ ! -x "$d/$t.bin" ]; then
      echo "BUILD $t $(grep -m1 -E 'error' "$d/$t.build.log")" >>"$d/result.txt"; continue
    fi
    echo "PROGRAM $t" >>"$d/result.txt"
    run_one "$d" "$t" ref - "--devices 1 --out-of-core off" 0
    if ! [ -s "$d/$t.ref/$(head -1 "$d/saves.txt").raw" ]; then
      echo "NOREF $t $(tail -1 "$d/$t.ref/log.txt")" >>"$d/result.txt"; continue
    fi
    while IFS=$'\t' read -r label env flags; do
      ranks=0
      case $label in mpi*) [ "$t" = cuda ] && [ -x "$d/cuda-mpi.bin" ] || continue; ranks=${label#mpi}; ranks=${ranks%%[!0-9]*} ;; esac
      tree=$t; [ "$ranks" -gt 0 ] && tree=cuda-mpi
      run_one "$d" "$tree" "$label" "$env" "$flags" "$ranks"
      o="$d/$tree.$label"
      if compare "$d" "$d/$t.ref" "$o"; then
        # retune: the run changed <local size="auto"/> shapes on its chunks mid-run.
        if grep -q "' retuned on the chunks: " "$o/log.txt"; then echo "SAME $t $label retuned" >>"$d/result.txt"
        else echo "SAME $t $label" >>"$d/result.txt"; fi
      elif grep -qE "$skip" "$o/log.txt"; then echo "REFUSED $t $label" >>"$d/result.txt"
      else
        echo "DIFFER $(basename "$d") $t $label [$env] $flags: $(grep -m1 -iE 'error|differ' "$o/log.txt")" >>"$d/result.txt"
        { echo "== $(basename "$d") $t $label: $flags"; tail -15 "$o/log.txt"
          for a in $(cat "$d/saves.txt"); do echo "$a: $(cmp -l "$d/$t.ref/$a.raw" "$o/$a.raw" 2>&1 | wc -l) bytes differ; first: $(cmp -l "$d/$t.ref/$a.raw" "$o/$a.raw" 2>&1 | head -3 | tr '\n' ' ')"; done
        } >>"$d/differ.txt"
      fi
    done <"$d/gpu_modes.txt"
  done
  [ -d "$d/cuda-mpi" ] && [ ! -x "$d/cuda-mpi.bin" ] && echo "BUILD cuda-mpi $(grep -m1 error "$d/cuda-mpi.build.log")" >>"$d/result.txt"
  return 0
}
start=$SECONDS
for d in "$gen"/p*; do
  while [ "$(jobs -rp | wc -l)" -ge "${RUN_JOBS:-8}" ]; do wait -n; done
  test_program "$d" &
done
wait
echo "ran in $((SECONDS - start)) s"
cat "$gen"/p*/result.txt >"$out/results.txt"
cat "$gen"/p*/differ.txt >"$out/differ.txt" 2>/dev/null
for d in "$gen"/p*; do
  grep -E "^(DIFFER|BUILD|NOREF)" "$d/result.txt" | sed "s|^|$(basename "$d") |"
done | head -40
# Every mode that differed, again, alone on the GPU, REPEAT times: a difference that comes and
# goes is a race, one that stays is deterministic.
if [ "${REPEAT:-0}" -gt 0 ]; then
  grep -h "^DIFFER" "$gen"/p*/result.txt | while read -r _ p t label _; do
    d=$gen/$p
    line=$(awk -F'\t' -v l="$label" '$1 == l' "$d/gpu_modes.txt" | head -1)
    IFS=$'\t' read -r label env flags <<<"$line"
    ranks=0 tree=$t
    case $label in mpi*) ranks=${label#mpi}; ranks=${ranks%%[!0-9]*}; tree=cuda-mpi ;; esac
    n_same=0
    for ((k = 0; k < REPEAT; k++)); do
      run_one "$d" "$tree" "$label-again" "$env" "$flags" "$ranks"
      compare "$d" "$d/$t.ref" "$d/$tree.$label-again" && n_same=$((n_same + 1))
    done
    echo "again: $p $t $label: $n_same of $REPEAT the same, alone"
  done | tee "$out/again.txt"
fi
r=$out/results.txt
echo "difftest_gpu: programs: cuda $(grep -c '^PROGRAM cuda' "$r"), opencl $(grep -c '^PROGRAM ocl' "$r");" \
  "runs: same $(grep -c '^SAME' "$r") (cuda $(grep -c '^SAME cuda' "$r"), opencl $(grep -c '^SAME ocl' "$r"); auto shapes retuned mid-run in cuda $(grep -c '^SAME cuda .* retuned$' "$r"), opencl $(grep -c '^SAME ocl .* retuned$' "$r"))," \
  "refused $(grep -c '^REFUSED' "$r"), differ $(grep -c '^DIFFER' "$r"); builds failed $(grep -c '^BUILD' "$r"), references failed $(grep -c '^NOREF' "$r")"
