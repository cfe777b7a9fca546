# Sourced by the tests that build a generated OpenCL program with its own CMakeLists.txt.
#   build_program GEN_DIR [CMAKE_ARGS...]: configures GEN_DIR/build and builds it (-j 2).
# The host code builds at -O0: 10 s against 23 s at Release's -O3 for one program on CI's
# cores, and these tests run their kernels on PoCL, which compiles them itself, so the host
# code's optimisation changes no result and little time. STEPGEN_TEST_CXX_OPT names other
# flags: tests/e2e.cmake and tests/mpi.cmake give a few examples "-O3 -DNDEBUG" (Release's), so
# the warnings only the optimiser finds (maybe-uninitialized) stay checked with -Werror. The
# CUDA programs on the emulation build with tests/cuda_emu/build.sh (their kernels run as host
# code there, at -O1).
#
# STEPGEN_OPENCL_CACHE (a folder; every ctest sets it, tests/CMakeLists.txt): the runtime's side
# of the program is compiled once per compiler, flags and runtime and shared
# (tests/opencl_prebuilt/: the engine's entry points instantiated once, their headers
# precompiled), so that a program compiles in a third of the time. The program's own
# CMakeLists.txt still builds it, with its flags (read from a first configure's
# compile_commands.json); only where its runtime/ equals this checkout's (it is then compiled
# against this checkout's headers) and python3 is there; otherwise the whole program is compiled.
build_program() {
  local gen=$1
  shift
  local opt=${STEPGEN_TEST_CXX_OPT:--O0}
  if [ -n "${STEPGEN_OPENCL_CACHE:-}" ]; then
    local status=0
    build_program_prebuilt "$gen" "$opt" "$@" || status=$?
    [ $status -ne 3 ] && return $status  # 3: not for this program, build it whole below
  fi
  cmake -S "$gen" -B "$gen/build" -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_FLAGS=$opt" "$@" >/dev/null &&
    cmake --build "$gen/build" -j 2 >/dev/null
}

# build_program_prebuilt GEN OPT [CMAKE_ARGS...]: 0 built, 3 not possible here, other: failed.
build_program_prebuilt() {
  local gen=$1 opt=$2
  shift 2
  local here repo
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  repo=$(cd "$here/../runtime/include" && pwd)
  command -v python3 >/dev/null && command -v flock >/dev/null || return 3
  [ -d "$gen/runtime/stepgen" ] || return 3
  local f
  while IFS= read -r -d '' f; do
    cmp -s "$gen/runtime/$f" "$repo/$f" || return 3
  done < <(cd "$gen/runtime" && find . -type f -print0)
  local variant=()
  grep -qs '#include "stepgen/mpi_main.hpp"' "$gen"/*.cpp && variant=(-DSTEPGEN_OPENCL_PREBUILT_MPI)
  # The program's compile command, from its CMakeLists.txt: compiler, definitions, flags.
  cmake -S "$gen" -B "$gen/build" -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_FLAGS=$opt" \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$@" >/dev/null || return 1
  local args=()
  mapfile -d '' -t args < <(python3 - "$gen" <<'PY'
import json, os, shlex, sys
gen = os.path.realpath(sys.argv[1])
entries = [e for e in json.load(open(os.path.join(gen, "build", "compile_commands.json")))
           if os.path.dirname(os.path.realpath(e["file"])) == gen]
if len(entries) != 1:
    sys.exit(3)
words, out, skip = shlex.split(entries[0]["command"]), [], 0
for i, w in enumerate(words):
    if skip:
        skip -= 1
    elif w in ("-o", "-c", "-MT", "-MF"):
        skip = 1
    elif w == "-MD" or (w.startswith("-I") and os.path.realpath(w[2:]).startswith(gen)):
        pass
    else:
        out.append(w)
sys.stdout.write("".join(a + "\0" for a in out))
PY
  ) || return 3
  [ ${#args[@]} -gt 0 ] || return 3
  local key dir
  key=$( {
    printf '%s\n' "${args[@]}" "${variant[@]}"
    "${args[0]}" --version 2>&1
    (cd "$repo" && find . -type f -print0 | sort -z | xargs -0 cat)
    cat "$here/opencl_prebuilt/prebuilt.hpp" "$here/opencl_prebuilt/prebuilt.cpp"
  } | sha256sum | cut -c1-16)
  dir=$STEPGEN_OPENCL_CACHE/$key
  mkdir -p "$STEPGEN_OPENCL_CACHE"
  (
    flock 9
    if [ ! -f "$dir/done" ]; then
      rm -rf "$dir" && mkdir -p "$dir" &&
        cp "$here/opencl_prebuilt/prebuilt.hpp" "$here/opencl_prebuilt/prebuilt.cpp" "$dir/" &&
        "${args[@]}" "${variant[@]}" -iquote "$repo" -x c++-header -c "$dir/prebuilt.hpp" \
          -o "$dir/prebuilt.hpp.gch" &&
        "${args[@]}" "${variant[@]}" -iquote "$repo" -x c++ -c "$dir/prebuilt.cpp" -o "$dir/prebuilt.o" &&
        touch "$dir/done"
    fi
  ) 9>"$dir.lock" || return 1
  # The build type's flags, not CMAKE_CXX_FLAGS: find_package's test compiles (MPI) use these.
  cmake -S "$gen" -B "$gen/build" -DCMAKE_BUILD_TYPE=None -DCMAKE_EXPORT_COMPILE_COMMANDS=OFF \
    "-DCMAKE_CXX_FLAGS_NONE=${variant[*]} -iquote $repo -include $dir/prebuilt.hpp" \
    "-DCMAKE_EXE_LINKER_FLAGS_NONE=$dir/prebuilt.o" "$@" >/dev/null &&
    cmake --build "$gen/build" -j 2 >/dev/null
}
