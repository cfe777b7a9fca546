#!/usr/bin/env bash
# The differential tester: random valid stencil programs, each run in many modes, every mode's
# saved arrays compared bit for bit with the one-device in-core run.
#
#   tests/difftest/difftest.sh [N] [SEED]      (scripts/difftest.sh is the same)
#   tests/difftest/difftest.sh --dir DIR...    saved programs (tests/difftest/regressions/*): each
#                                              DIR holds prog.xml|yaml, prog.cl, prog.cu,
#                                              saves.txt, modes.txt, summary.txt as gen.py writes
#
# Program i (0 <= i < N) is written by gen.py from seed SEED+i, so `difftest.sh 1 S` reruns
# program S exactly, modes included. Per program: generate (stepgen generate), build (once, for
# every in-core and out-of-core mode), run the reference (--devices 1 --out-of-core off), run
# each mode of modes.txt, cmp every saved array. MPI modes get their own generate + build
# (--distribution mpi). A run the program refuses with a clear error (a split the grid is too
# small for, chunks too thin for k steps) is a SKIP, counted, not a failure.
#
# Environment:
#   STEPGEN            the stepgen binary (default: build/stepgen of this checkout)
#   DIFFTEST_WORK      where programs are written (default: build/difftest); passing programs
#                      are deleted unless DIFFTEST_KEEP=1
#   DIFFTEST_MODES     modes per program besides the reference (default 8)
#   DIFFTEST_MPI       probability that a program also runs 2 MPI modes (default 0.2; 0: none)
#   DIFFTEST_OPT       optimization of the generated programs' build (default -O0: builds take
#                      a third of -O2's time; the host code's logic is what is tested)
#   DIFFTEST_BUILD     how the OpenCL programs (and their MPI programs) are built: `direct`
#                      (default) runs the embedding, compile and link commands of the generated
#                      CMakeLists, taken from one configure per distinct CMakeLists (build_direct);
#                      `cmake` configures and builds each program with its CMakeLists; `both`
#                      builds it both ways and requires the same binary (cmp), then runs it. CUDA
#                      programs are always built with cmake.
#   DIFFTEST_CUDA=1    also build the CUDA program (--target cuda) and run the reference and
#                      the CUDA modes on the GPUs (needs nvcc and a GPU), compared with the
#                      OpenCL reference; see build_cuda and run_cuda below
#   DIFFTEST_CMAKE_ARGS  more arguments for the generated programs' cmake configure (e.g.
#                      -DCMAKE_CUDA_ARCHITECTURES=90 to build CUDA programs where no GPU is)
#   DIFFTEST_CUDA=compile  only build the CUDA programs (and CUDA MPI programs where the modes
#                      have MPI runs), run nothing: where no GPU is
#   DIFFTEST_CUDA_EMU=1  (with DIFFTEST_CUDA=1) build and run the CUDA programs under the CPU
#                      emulation of the CUDA runtime (tests/cuda_emu/build.sh; a path instead
#                      of 1 names another checkout's build.sh): see build_cuda
#   DIFFTEST_WIDE_RIMS=1  kernels skip rims up to 3 cells wider than their halos anywhere
#                      (gen.py --wide-rims): wider than the halos alone allow; the probe widens for them
#   DIFFTEST_SUMMARY   append one line per program (seed, modes, verdict) to this file
# Exit status: 0 when every mode of every program equals its reference, 1 otherwise.
set -uo pipefail

n_programs=${1:-10}
[ "$n_programs" = --dir ] && n_programs=0
seed0=${2:-1}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
stepgen=${STEPGEN:-$root/build/stepgen}
work=${DIFFTEST_WORK:-$root/build/difftest}
opt=${DIFFTEST_OPT:--O0}
build_mode=${DIFFTEST_BUILD:-direct}
case $build_mode in direct | cmake | both) ;; *) echo "difftest: DIFFTEST_BUILD=$build_mode: direct, cmake or both"; exit 2 ;; esac
export POCL_MAX_PTHREAD_COUNT=${POCL_MAX_PTHREAD_COUNT:-1}
# Open MPI as root and with more ranks than cores (tests/mpi/mpirun.sh)
source "$root/tests/mpi/mpirun.sh"
source "$root/tests/prebuilt/prebuilt.sh"
# STEPGEN_TEST_CXX (ctest: clang++ where installed, tests/CMakeLists.txt): the OpenCL programs'
# compiler, as tests/build_program.sh's; the CUDA emulation's too (tests/cuda_emu/build.sh).
cxx_args=()
[ -n "${STEPGEN_TEST_CXX:-}" ] && cxx_args=("-DCMAKE_CXX_COMPILER=$STEPGEN_TEST_CXX")
[ -x "$stepgen" ] || { echo "difftest: no stepgen at $stepgen (build it, or set STEPGEN)"; exit 2; }
mkdir -p "$work"

# Messages of runs refused for a reason the program states: not wrong answers.
skip_pattern='can be split into only|frame [0-9]* cells wide is too narrow for the cells a pass reads|at most 1 can be exact|cannot run out of core exactly|thinner than|cannot be split|cannot fit|no plan can be made|out of core is not available|CUDA device\(s\) are present|owns only|use fewer|fewer chunks|into that many parts|too small for|set exchange_every|only [0-9]+ match|does not fit'

total_programs=0 total_modes=0 total_skips=0 total_fails=0 failed_seeds=()

pocl_devices() { printf 'pthread %.0s' $(seq "$1"); }

# spec_of DIR: the program's spec, DIR/prog.xml or DIR/prog.yaml.
spec_of() { ls "$1"/prog.xml "$1"/prog.yaml 2> /dev/null | head -1; }

# generate_and_build DIR NAME [EXTRA GENERATE ARGS...]: the program of DIR/prog.*, generated
# in DIR/NAME and built in DIR/NAME/build (CUDA programs and DIFFTEST_BUILD=cmake: with its
# CMakeLists; otherwise build_direct). Prints the binary's path.
generate_and_build() {
  local dir=$1 name=$2
  shift 2
  "$stepgen" generate "$(spec_of "$dir")" -o "$dir/$name" "$@" > "$dir/$name.generate.log" 2>&1 || return 1
  if [ "$build_mode" = cmake ] || [[ " $* " == *" --target cuda "* ]]; then
    build_cmake "$dir/$name" build > "$dir/$name.build.log" 2>&1 || return 1
  else
    build_direct "$dir/$name" > "$dir/$name.build.log" 2>&1 || return 1
    if [ "$build_mode" = both ]; then  # the CMakeLists' build must give the very same binary
      build_cmake "$dir/$name" build-cmake >> "$dir/$name.build.log" 2>&1 || return 1
      cmp "$dir/$name/build/prog" "$dir/$name/build-cmake/prog" >> "$dir/$name.build.log" 2>&1 || {
        echo "difftest: the direct build's binary differs from the CMakeLists' build" >> "$dir/$name.build.log"
        return 1
      }
    fi
  fi
  echo "$dir/$name/build/prog"
}

# build_cmake SRC BUILD: configures and builds the generated tree SRC with its CMakeLists in SRC/BUILD
# (with STEPGEN_PREBUILT_CACHE, ctest: against the runtime's shared build, tests/prebuilt/prebuilt.sh;
# the build type's flags, $opt or for nvcc DIFFTEST_CMAKE_ARGS' CMAKE_CUDA_FLAGS_RELEASE, kept).
build_cmake() {
  local kind=opencl lang=CXX base=$opt status=0 a compiler=("${cxx_args[@]}")
  if compgen -G "$1/*.cu" > /dev/null; then
    kind=cuda lang=CUDA base="-O3 -DNDEBUG" compiler=()
    for a in ${DIFFTEST_CMAKE_ARGS:-}; do
      case $a in -DCMAKE_CUDA_FLAGS_RELEASE=*) base=${a#*=} ;; esac
    done
  fi
  # shellcheck disable=SC2086  # DIFFTEST_CMAKE_ARGS: words
  prebuilt_cmake "$1" "$2" Release "$lang" "$kind" "$base" "-DCMAKE_CXX_FLAGS_RELEASE=$opt" \
    "${compiler[@]}" ${DIFFTEST_CMAKE_ARGS:-} || status=$?
  if [ $status -eq 3 ]; then
    # shellcheck disable=SC2086
    cmake -S "$1" -B "$1/$2" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=$opt" \
      "${compiler[@]}" ${DIFFTEST_CMAKE_ARGS:-} || return 1
  elif [ $status -ne 0 ]; then
    return 1
  fi
  cmake --build "$1/$2" -j 2
}

# build_direct SRC: builds the generated tree SRC in SRC/build without configuring it: with the
# commands (kernel embedding, compile, link) of a cmake configure of the same CMakeLists done once
# and kept in $work/.configured/KEY, KEY a hash of the CMakeLists and cmake/*.cmake without their
# provenance comment (which names the spec and its hash), of the configure's arguments and of the
# runtime (the commands may name its shared build, tests/prebuilt). Every
# program of one kind (OpenCL, MPI) has the same CMakeLists, so one configure serves all, and a
# CMakeLists that differs gets its own. Prints each command before running it.
build_direct() {
  local src=$1 key conf dir cmd
  key=$(cd "$src" && for f in CMakeLists.txt cmake/*.cmake; do
    echo "== $f"
    grep -Ev '^# (Generated by stepgen |\(path from this folder; spec and templates hash )' "$f"
  done; echo "== $opt ${DIFFTEST_CMAKE_ARGS:-} ${STEPGEN_PREBUILT_CACHE:-} ${cxx_args[*]}"
    find runtime -type f -print0 | sort -z | xargs -0 cat)  # the runtime's shared build's
  key=$(echo "$key" | sha1sum | cut -c1-16)
  conf=$work/.configured/$key
  # Configured again where the runtime's shared build it names is gone (tests/prebuilt).
  local shared
  for shared in $(grep -so "${STEPGEN_PREBUILT_CACHE:-/nonexistent}/[a-z-]*[0-9a-f]\{16\}" "$conf/commands" | sort -u); do
    [ -f "$shared/done" ] || rm -rf "$conf"
  done
  [ -f "$conf/commands" ] || configure_once "$src" "$conf" || return 1
  mkdir -p "$src/build"
  while IFS=$'\t' read -r dir cmd; do
    dir=${dir//@SRC@/$src} dir=${dir//@BUILD@/$src/build}
    cmd=${cmd//@SRC@/$src} cmd=${cmd//@BUILD@/$src/build}
    echo "+ (cd $dir && $cmd)"
    (cd "$dir" && eval "$cmd" < /dev/null) || return 1
  done < "$conf/commands"
}

# configure_once SRC CONF: configures a copy of the generated tree SRC (Unix Makefiles, the
# build's arguments) and writes CONF/commands, one `DIR<TAB>COMMAND` line per step in build
# order, the tree's paths replaced by @SRC@ and @BUILD@: the kernel embedding commands (the custom
# commands of the generated CMakeLists: the user's kernels, the runtime's), each compile (compile_commands.json) after a mkdir of its
# object's folder, the link (link.txt).
configure_once() {
  local src=$1 conf=$2 tmp="$2.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp/src"
  cp -r "$src"/. "$tmp/src/"
  echo "+ configure once for every program with this CMakeLists: $conf"
  # Against the runtime's shared build as build_cmake (the same commands: DIFFTEST_BUILD=both).
  local status=0
  # shellcheck disable=SC2086
  prebuilt_cmake "$tmp/src" ../build Release CXX opencl "$opt" -G "Unix Makefiles" \
    "-DCMAKE_CXX_FLAGS_RELEASE=$opt" "${cxx_args[@]}" ${DIFFTEST_CMAKE_ARGS:-} || status=$?
  if [ $status -eq 3 ]; then
    # shellcheck disable=SC2086
    cmake -G "Unix Makefiles" -S "$tmp/src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release \
      "-DCMAKE_CXX_FLAGS_RELEASE=$opt" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "${cxx_args[@]}" ${DIFFTEST_CMAKE_ARGS:-} ||
      return 1
  elif [ $status -ne 0 ]; then
    return 1
  fi
  python3 - "$tmp" > "$tmp/commands" << 'EOF' || { echo "difftest: no build commands in $tmp (DIFFTEST_BUILD=cmake builds without them)"; return 1; }
import glob, json, os, shlex, sys
tmp = sys.argv[1]
src, build = tmp + "/src", tmp + "/build"
def out(directory, command):
    if "$(" in command or "\t" in command or "\n" in command:
        sys.exit(f"unexpected command: {command}")
    print(f"{directory}\t{command}".replace(build, "@BUILD@").replace(src, "@SRC@"))
embeds = [line.strip() for f in glob.glob(build + "/CMakeFiles/*.dir/build.make")
          for line in open(f) if line.startswith("\t") and "embed_kernels.cmake" in line
          and " -P " in line]
links = glob.glob(build + "/CMakeFiles/*.dir/link.txt")
compiles = json.load(open(build + "/compile_commands.json"))
if not embeds or len(links) != 1 or not compiles:
    sys.exit(f"expected kernel embedding commands and one link: {embeds} {links}")
for e in embeds:  # `cd SRC && cmake -DOUT=... -P .../embed_kernels.cmake`: the user's, the runtime's
    out(build, e)
for c in compiles:
    args = shlex.split(c["command"])
    obj = os.path.dirname(args[args.index("-o") + 1])
    if obj:
        out(c["directory"], "mkdir -p " + shlex.quote(obj))
    out(c["directory"], c["command"])
out(build, open(links[0]).read().strip())
EOF
  cat "$tmp/commands"
  rm -rf "$tmp/build" "$tmp/src"
  mkdir -p "$(dirname "$conf")"
  mv -T "$tmp" "$conf" 2> /dev/null || rm -rf "$tmp"  # another stream configured it first
}

# build_cuda DIR [mpi]: the CUDA program of DIR's spec (with `mpi`: the CUDA MPI program);
# prints the binary's path. The one place that decides how CUDA programs are built:
#  - on a GPU machine: the generated CMakeLists with nvcc (--fmad=false, the default);
#  - DIFFTEST_CUDA_EMU=1: the CPU emulation of the CUDA runtime, tests/cuda_emu/build.sh
#    GENERATED_DIR BINARY [--mpi] (branch cudaemu: NAME.cu compiled as host C++ against the
#    emulated runtime, -ffp-contract=off); run_cuda and the MPI runs then set
#    STEPGEN_CUDA_EMULATE. If that harness's interface changes, change only these lines.
build_cuda() {
  local dir=$1 name=cuda extra=()
  [ "${2:-}" = mpi ] && name=cuda-mpi extra=(--distribution mpi)
  if [ -n "${DIFFTEST_CUDA_EMU:-}" ]; then
    local emu="$root/tests/cuda_emu/build.sh"
    [ "$DIFFTEST_CUDA_EMU" = 1 ] || emu=$DIFFTEST_CUDA_EMU  # another checkout's build.sh
    [ -x "$emu" ] || { echo "difftest: DIFFTEST_CUDA_EMU set but $emu is missing" >&2; return 1; }
    "$stepgen" generate "$(spec_of "$dir")" --target cuda "${extra[@]}" -o "$dir/$name" \
      > "$dir/$name.generate.log" 2>&1 || return 1
    mkdir -p "$dir/$name/build"
    "$emu" "$dir/$name" "$dir/$name/build/prog" ${extra:+--mpi} > "$dir/$name.build.log" 2>&1 || return 1
    echo "$dir/$name/build/prog"
    return 0
  fi
  generate_and_build "$dir" "$name" --target cuda "${extra[@]}"
}

# cuda_env RANKS: the environment of a CUDA run: the emulation's virtual devices (4, or one per
# rank), or on GPUs ranks sharing them where there are fewer than ranks (a testing aid).
cuda_env() {
  if [ -n "${DIFFTEST_CUDA_EMU:-}" ]; then
    echo "STEPGEN_CUDA_EMULATE=${1:-4}"
  elif [ -n "${1:-}" ]; then
    echo "STEPGEN_MPI_SHARE_DEVICES=1"
  fi
}

# save_args DIR: --save NAME=DIR/NAME.raw for every array the program keeps.
save_args() {
  local a
  for a in $(cat "$prog_dir/saves.txt"); do printf -- '--save %s=%s/%s.raw ' "$a" "$1" "$a"; done
}

# compare DIR: 0 when DIR holds every saved array equal to the reference's.
compare() {
  local a bad=0
  for a in $(cat "$prog_dir/saves.txt"); do
    if ! cmp -s "$prog_dir/ref/$a.raw" "$1/$a.raw"; then
      echo "      array $a differs: $(cmp "$prog_dir/ref/$a.raw" "$1/$a.raw" 2>&1 | head -1)"
      bad=1
    fi
  done
  return $bad
}

# ran_as_asked LABEL LOG ARGS: the run's report shows the mode it was asked for, so that a mode
# quietly run another way cannot pass for it: out of core (or in core, or auto made to take out
# of core), N MPI ranks. (The device count is not checked: `--strategy stepocl`'s gcd rule may
# leave devices idle.)
ran_as_asked() {
  local label=${1#cuda-} log=$2 args=$3
  if [[ $args == *"--out-of-core on"* ]]; then
    grep -q '^out-of-core: on' "$log" || return 1
  elif [[ $args == *"STEPGEN_AUTO_CHOICE=out-of-core"* ]]; then
    # `--out-of-core auto` made to take out of core: it does, or it does not compare (no plan,
    # <boundary> or <record>: in core, its line says why).
    grep -q '^out-of-core: on (--out-of-core auto: taken by STEPGEN_AUTO_CHOICE)' "$log" ||
      grep -q '^out of core: auto -> in core (\(no out-of-core plan\|the spec\)' "$log" || return 1
  else
    ! grep -q '^out-of-core: on' "$log" || return 1
  fi
  if [[ $label == mpi* ]]; then
    grep -q "^mpi: ${label#mpi} rank(s)" "$log" || return 1
  fi
  # --parts: several parts on a device (or the partitioner's note that the grid took fewer)
  if [[ $label == parts* ]]; then
    grep -q -e ' part(s) on [0-9]* device(s), grid' -e "uses [0-9]* of ${label#*x} parts" "$log" || return 1
  fi
  return 0
}

# verdict LABEL DIR STATUS CMD: counts and prints the result of one mode.
verdict() {
  local label=$1 out=$2 status=$3 cmd=$4
  total_modes=$((total_modes + 1))
  if [ "$status" -ne 0 ]; then
    if [ "$status" -eq 1 ] && grep -Eq "$skip_pattern" "$out/log.txt"; then
      total_skips=$((total_skips + 1))
      mode_list+="$label(skip) "
      # why, to check now and then that only infeasible runs are refused
      echo "$name $label: $(grep -m1 'error' "$out/log.txt")" >> "$work/refused.txt"
      return 0
    fi
    echo "    FAIL $label: exit status $status"
    grep -m3 -i "error" "$out/log.txt" | sed 's/^/      /'
  elif ! ran_as_asked "$label" "$out/log.txt" "$cmd"; then
    echo "    FAIL $label: the report does not show the mode asked for (see $out/log.txt)"
  elif compare "$out"; then
    mode_list+="$label "
    return 0
  else
    echo "    FAIL $label: saved arrays differ from the one-device in-core run"
  fi
  echo "      reproduce: (cd $prog_dir && $cmd)"
  echo "      then: for a in \$(cat saves.txt); do cmp ref/\$a.raw ${out#"$prog_dir"/}/\$a.raw; done"
  prog_failed=1
  return 1
}

# run_program DIR NAME: generate, build and run the program of DIR in every mode of its
# modes.txt; prints PASS/FAIL and counts. NAME says how to rerun it.
run_program() {
  prog_dir=$1
  local name=$2
  total_programs=$((total_programs + 1))
  prog_failed=0 mode_list=""
  echo "$name: $(cat "$prog_dir/summary.txt")"

  if [ "${DIFFTEST_CUDA:-}" = compile ]; then
    compile_cuda_only
  else
    run_modes
  fi
  finish_program
}

# compile_cuda_only: DIFFTEST_CUDA=compile, where no GPU is: build the CUDA program (and the
# CUDA MPI program when the modes have MPI runs and MPI is installed), run nothing.
compile_cuda_only() {
  total_modes=$((total_modes + 1))
  if [ -n "$(build_cuda "$prog_dir")" ]; then
    mode_list+="cuda-build "
  else
    echo "    FAIL cuda build: $(grep -m1 -E 'error' "$prog_dir"/cuda.*.log)"
    echo "      reproduce: $stepgen generate $(spec_of "$prog_dir") --target cuda -o cuda &&" \
      "cmake -S cuda -B cuda/build ${DIFFTEST_CMAKE_ARGS:-} && cmake --build cuda/build"
    prog_failed=1
  fi
  if grep -q '^mpi' "$prog_dir/modes.txt" && command -v mpirun > /dev/null; then
    total_modes=$((total_modes + 1))
    if [ -n "$(build_cuda "$prog_dir" mpi)" ]; then
      mode_list+="cuda-mpi-build "
    else
      echo "    FAIL cuda MPI build: $(grep -m1 -E 'error' "$prog_dir"/cuda-mpi.*.log)"
      prog_failed=1
    fi
  fi
}

# run_modes: the OpenCL reference and every mode (and with DIFFTEST_CUDA=1 the CUDA modes).
run_modes() {
  bin=$(generate_and_build "$prog_dir" opencl)
  if [ -z "$bin" ]; then
    echo "    FAIL: generate or build: see $prog_dir/opencl.generate.log, opencl.build.log"
    tail -n 5 "$prog_dir"/opencl.*.log | sed 's/^/      /'
    prog_failed=1
  else
    # the reference: one device, in core
    mkdir -p "$prog_dir/ref"
    cmd="POCL_DEVICES=pthread $bin --devices 1 --out-of-core off $(save_args ref)"
    mode_list="ref "
    (cd "$prog_dir" && POCL_DEVICES=pthread timeout 300 "$bin" --devices 1 --out-of-core off \
      $(save_args ref) < /dev/null > ref/log.txt 2>&1)
    status=$?
    if [ $status -ne 0 ]; then
      echo "    FAIL reference run: exit status $status"; tail -5 "$prog_dir/ref/log.txt" | sed 's/^/      /'
      echo "      reproduce: (cd $prog_dir && $cmd)"
      prog_failed=1
    else
      m=0
      while IFS=$'\t' read -r label env args; do
        m=$((m + 1))
        out="m$m-$label"
        mkdir -p "$prog_dir/$out"
        env_args=()
        [ "$env" != "-" ] && env_args=(${env//,/ })
        if [[ $label == mpi* ]]; then
          if ! command -v mpirun > /dev/null; then
            mode_list+="$label(no-mpirun) "
            continue
          fi
          ranks=${label#mpi}
          [ -n "${mpi_bin:-}" ] && [ "$mpi_for" = "$prog_dir" ] || {
            mpi_bin=$(generate_and_build "$prog_dir" mpi --distribution mpi)
            mpi_for=$prog_dir
          }
          if [ -z "$mpi_bin" ]; then
            echo "    FAIL $label: MPI generate or build: see $prog_dir/mpi.*.log"; prog_failed=1; continue
          fi
          per_rank=$(echo "$args" | sed -n 's/.*--devices \([0-9]*\).*/\1/p')  # devices of a rank
          cmd="POCL_DEVICES=\"$(pocl_devices $((ranks * ${per_rank:-1})))\" ${env_args[*]} timeout 120 mpirun ${mpirun_flags[*]} -np $ranks $mpi_bin $args $(save_args "$out")"
        else
          devices=$(echo "$args" | sed -n 's/.*--devices \([0-9]*\).*/\1/p')
          cmd="POCL_DEVICES=\"$(pocl_devices "${devices:-1}")\" ${env_args[*]} timeout 300 $bin $args $(save_args "$out")"
        fi
        (cd "$prog_dir" && eval "$cmd" < /dev/null > "$out/log.txt" 2>&1)
        verdict "$label" "$prog_dir/$out" $? "$cmd"
      done < "$prog_dir/modes.txt"

      [ "${DIFFTEST_CUDA:-}" = 1 ] && run_cuda_modes
    fi
  fi
}

# run_cuda_modes: the CUDA program in the reference mode (1 GPU, against the OpenCL reference:
# the same arithmetic, so the same bits) and in every mode of modes.txt, MPI included.
run_cuda_modes() {
  local cbin cmbin="" m=0 label env args out cmd ranks
  cbin=$(build_cuda "$prog_dir")
  if [ -z "$cbin" ]; then
    echo "    FAIL cuda: generate or build: see $prog_dir/cuda.*.log"
    prog_failed=1
    return
  fi
  while IFS=$'\t' read -r label env args; do
    m=$((m + 1))
    out="cuda$m-$label"
    mkdir -p "$prog_dir/$out"
    cmd=""
    [ "$env" != "-" ] && cmd="${env//,/ } "
    if [[ $label == mpi* ]]; then
      command -v mpirun > /dev/null || continue
      ranks=${label#mpi}
      [ -n "$cmbin" ] || cmbin=$(build_cuda "$prog_dir" mpi)
      if [ -z "$cmbin" ]; then
        echo "    FAIL cuda-$label: MPI generate or build: see $prog_dir/cuda-mpi.*.log"
        prog_failed=1
        continue
      fi
      local e
      e=$(cuda_env "$ranks")
      cmd+="POCL_DEVICES=pthread $e timeout 120 mpirun ${mpirun_flags[*]} -x ${e%%=*} -np $ranks $cmbin $args $(save_args "$out")"
    else
      cmd+="$(cuda_env) timeout 300 $cbin $args $(save_args "$out")"
    fi
    (cd "$prog_dir" && eval "$cmd" < /dev/null > "$out/log.txt" 2>&1)
    verdict "cuda-$label" "$prog_dir/$out" $? "$cmd"
  done < <(printf 'ref\t-\t--devices 1 --out-of-core off\n'; cat "$prog_dir/modes.txt")
}

# finish_program: the verdict of one program, the counts, and its folder kept or deleted.
finish_program() {
  if [ $prog_failed -eq 0 ]; then
    echo "    PASS: $mode_list"
    [ -n "${DIFFTEST_KEEP:-}" ] || rm -rf "$prog_dir"
    result=PASS
  else
    total_fails=$((total_fails + 1))
    failed_seeds+=("$name")
    echo "    program kept in $prog_dir; rerun it: $rerun"
    result=FAIL
  fi
  [ -n "${DIFFTEST_SUMMARY:-}" ] && echo "$name $result $mode_list" >> "$DIFFTEST_SUMMARY"
}

if [ "${1:-}" = --dir ]; then  # saved programs (tests/difftest/regressions/*), copied to $work
  shift
  for src in "$@"; do
    src=$(cd "$src" && pwd) || exit 2
    name=$(basename "$src")
    if [ "$src" != "$work/$name" ]; then  # only the program's own files, never a build
      rm -rf "${work:?}/$name"
      mkdir -p "$work/$name"
      cp "$src"/prog.* "$src"/saves.txt "$src"/modes.txt "$src"/summary.txt "$work/$name/"
      for f in "$src"/*.raw; do [ -f "$f" ] && cp "$f" "$work/$name/"; done  # init="file(...)" inputs
    fi
    rerun="tests/difftest/difftest.sh --dir $src"
    run_program "$work/$name" "$name"
  done
else
  for ((i = 0; i < n_programs; i++)); do
    seed=$((seed0 + i))
    dir="$work/p$seed"
    rm -rf "$dir"
    gen_args=()
    [ -n "${DIFFTEST_WIDE_RIMS:-}" ] && gen_args+=(--wide-rims)
    python3 "$here/gen.py" "$seed" "$dir" "${gen_args[@]}" || { echo "seed $seed: gen.py failed"; exit 2; }
    rerun="scripts/difftest.sh 1 $seed"
    run_program "$dir" "seed $seed"
  done
fi


echo "difftest: $total_programs program(s), $total_modes mode(s) run ($total_skips refused by the program as infeasible), $total_fails program(s) failed${failed_seeds:+: ${failed_seeds[*]}}"
[ $total_fails -eq 0 ]
