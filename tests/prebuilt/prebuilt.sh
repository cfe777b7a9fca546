# Sourced by the tests that build generated programs (tests/build_program.sh, tests/cuda_emu/build.sh,
# tests/cuda/*compile_test.sh, tests/difftest/difftest.sh): the runtime's side of a program, built
# once per backend, compiler and flags and shared by every program of a test run (CI time).
#
# A generated program is one file that includes the header-only runtime and instantiates its
# engine (rt::main_program, rt::InCore, rt::ChunkRun) over its backend: 20-30 s of
# a compiler's time, the same for every program. Here the program is compiled with cuda.hpp or
# opencl.hpp included first, which declare those instantiations `extern template`, and linked
# with one object that holds them (cuda.cpp, opencl.cpp); with g++ and clang++ that header is
# also precompiled (clang's with the templates it uses instantiated). The program's own file then
# takes a few seconds with g++, about 1 s with clang++ at -O0 (ctest's STEPGEN_TEST_CXX). The
# same headers are compiled with the same flags: no result changes. Only where the program's runtime/ equals this
# checkout's runtime/include (the program is then compiled against this checkout's headers,
# found first with -iquote, as the precompiled header was); otherwise the caller compiles the
# whole program, as without STEPGEN_PREBUILT_CACHE.
#
# STEPGEN_PREBUILT_CACHE: the folder of the shared builds (tests/CMakeLists.txt sets it for every
# ctest: build/tests/prebuilt); one subfolder per backend, compile command and runtime.

prebuilt_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prebuilt_repo=$(cd "$prebuilt_here/../../runtime/include" && pwd)

# prebuilt_same_runtime GEN: whether GEN/runtime/ holds this checkout's runtime headers.
prebuilt_same_runtime() {
  [ -n "${STEPGEN_PREBUILT_CACHE:-}" ] && [ -d "$1/runtime/stepgen" ] || return 1
  command -v flock > /dev/null || return 1
  local f
  while IFS= read -r -d '' f; do
    cmp -s "$1/runtime/$f" "$prebuilt_repo/$f" || return 1
  done < <(cd "$1/runtime" && find . -type f -print0)
}

# prebuilt_variant FILE...: -DSTEPGEN_PREBUILT_MPI when the program is an MPI program.
prebuilt_variant() {
  if grep -qs '#include "stepgen/exec/ranks.hpp"' "$@"; then echo -DSTEPGEN_PREBUILT_MPI; fi
}

# prebuilt_build KIND COMPILE_ARGS...: builds (once, under a lock) the shared build for a
# program compiled with COMPILE_ARGS (the compiler first; no source, no output) and prints its
# folder: prebuilt.hpp (to include first) and prebuilt.o (to link). KIND: opencl (g++, header
# precompiled), cuda (nvcc), cuda-emu (g++ with the CPU emulation of
# CUDA, tests/cuda_emu, included first; header precompiled).
prebuilt_build() {
  local kind=$1 src=cuda
  shift
  [ "$kind" = opencl ] && src=opencl
  local key dir
  key=$( {
    printf '%s\n' "$kind" "$@"
    "$1" --version 2>&1
    "$1" --showme 2>/dev/null  # an MPI compiler wrapper's own flags
    (cd "$prebuilt_repo" && find . -type f -print0 | sort -z | xargs -0 cat)
    # clang refuses a precompiled header older than a header it read: their times too
    (cd "$prebuilt_repo" && find . -type f -printf '%p %T@\n' | sort)
    cat "$prebuilt_here/$src.hpp" "$prebuilt_here/$src.cpp" "$prebuilt_here/../../templates/common/embed_kernels.cmake.mustache"
    [ "$kind" = cuda-emu ] && cat "$prebuilt_here/../cuda_emu/include/stepgen_cuda_emu.hpp"
  } | sha256sum | cut -c1-16)
  dir=$STEPGEN_PREBUILT_CACHE/$kind-$key
  mkdir -p "$STEPGEN_PREBUILT_CACHE" || return 1
  (
    flock 9
    [ -f "$dir/done" ] && exit 0
    rm -rf "$dir" && mkdir -p "$dir" && cp "$prebuilt_here/$src.hpp" "$prebuilt_here/$src.cpp" "$dir/" || exit 1
    printf '%s\n' "$@" > "$dir/args"  # which compiler and flags it is for (CI time, by hand)
    { [ "$kind" = cuda-emu ] && echo '#include "stepgen_cuda_emu.hpp"'; echo "#include \"$src.hpp\""; } > "$dir/prebuilt.hpp"
    if [ "$kind" = cuda ]; then  # .cu: nvcc compiles it as CUDA whatever COMPILE_ARGS say
      printf '#include "prebuilt.hpp"\n#include "%s.cpp"\n' "$src" > "$dir/prebuilt.cu"
      "$@" -I "$prebuilt_repo" -c "$dir/prebuilt.cu" -o "$dir/prebuilt.o" || exit 1
    else
      printf '#include "prebuilt.hpp"\n#include "%s.cpp"\n' "$src" > "$dir/prebuilt.cpp"
      # clang: its own precompiled header (.pch, found by -include as g++ finds .gch), with the
      # templates the headers use instantiated in it, not again in every program (1 s a
      # program's file, against 5 s with g++'s, whose every user instantiates them again); the
      # shared object is compiled against it too, as the programs are (2.5-3 s less).
      local pch=(-o "$dir/prebuilt.hpp.gch") use=()
      "$1" --version 2>&1 | grep -qi clang &&
        pch=(-fpch-instantiate-templates -o "$dir/prebuilt.hpp.pch") use=(-include "$dir/prebuilt.hpp")
      # The runtime's OpenCL kernels as headers (cmake/runtime_kernels.cmake), as the program's
      # build makes them from its copy.
      cmake -DOUT_DIR="$dir/kernels" -P "$prebuilt_here/../../cmake/runtime_kernels.cmake" || exit 1
      "$@" -iquote "$prebuilt_repo" -I "$dir/kernels" -x c++-header -c "$dir/prebuilt.hpp" "${pch[@]}" &&
        "$@" -iquote "$prebuilt_repo" -I "$dir/kernels" "${use[@]}" -x c++ -c "$dir/prebuilt.cpp" -o "$dir/prebuilt.o" || exit 1
    fi
    touch "$dir/done"
  ) 9> "$dir.lock" || { echo "prebuilt: the shared build in $dir failed" >&2; return 1; }
  echo "$dir"
}

# prebuilt_flags KIND DIR: the flags that compile a program against the shared build in DIR,
# after the program's own include flags (nvcc, no precompiled header: the program's headers
# first, this checkout's for those its runtime/ does not hold).
prebuilt_flags() {
  if [ "$1" = cuda ]; then
    echo "-include $2/prebuilt.hpp -I$prebuilt_repo"
  else
    echo "-iquote $prebuilt_repo -include $2/prebuilt.hpp"
  fi
}

# prebuilt_cmake GEN BUILD CONFIG LANG KIND BASE [CMAKE_ARGS...]: configures the generated
# program GEN in GEN/BUILD with its own CMakeLists.txt (build type CONFIG, CMAKE_<LANG>_FLAGS_<CONFIG>
# = BASE, after CMAKE_ARGS) to compile against the shared build: a first configure gives the program's compile
# command (compile_commands.json), the shared build is made for it, and a second configure adds
# its flags to CMAKE_<LANG>_FLAGS_<CONFIG> and its object to CMAKE_EXE_LINKER_FLAGS_<CONFIG>
# (the build type's flags: find_package's test compiles, MPI's, do not see them).
# Returns 0 (configured; build it), 3 (not for this program: configure and build it as usual)
# or 1 (a configure or the shared build failed).
prebuilt_cmake() {
  local gen=$1 build=$2 config=$3 lang=$4 kind=$5 base=$6
  shift 6
  prebuilt_same_runtime "$gen" && command -v python3 > /dev/null || return 3
  local upper
  upper=$(echo "$config" | tr '[:lower:]' '[:upper:]')
  local variant
  variant=$(prebuilt_variant "$gen"/*.cpp "$gen"/*.cu)
  cmake -S "$gen" -B "$gen/$build" "$@" "-DCMAKE_BUILD_TYPE=$config" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    "-DCMAKE_${lang}_FLAGS_$upper=$base" > /dev/null || return 1
  local args=()
  mapfile -d '' -t args < <(python3 - "$gen" "$gen/$build" << 'PY'
import json, os, shlex, sys
gen, build = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
entries = [e for e in json.load(open(os.path.join(sys.argv[2], "compile_commands.json")))
           if os.path.dirname(os.path.realpath(e["file"])) == gen]
if len(entries) != 1:
    sys.exit(3)
words, i = shlex.split(entries[0]["command"]), 0
while i < len(words):  # nvcc's include flags in a response file: inline them
    if words[i] == "--options-file" and i + 1 < len(words):
        path = os.path.join(entries[0]["directory"], words[i + 1])
        words[i:i + 2] = shlex.split(open(path).read())
    i += 1
def inside(path):  # the program's folders, which the runtime's side does not need
    path = os.path.realpath(path)
    return any(path == d or path.startswith(d + "/") for d in (gen, build))
out, skip = [], 0
for w in words:
    if skip:
        skip -= 1
    elif w in ("-o", "-c", "-MT", "-MF"):
        skip = 1
    elif w != "-MD" and not (w.startswith("-I") and inside(w[2:])):
        out.append(w)
sys.stdout.write("".join(a + "\0" for a in out))
PY
  ) || return 3
  [ ${#args[@]} -gt 0 ] || return 3
  local dir
  # shellcheck disable=SC2086  # variant: empty or one word
  dir=$(prebuilt_build "$kind" "${args[@]}" $variant) || return 1
  cmake -S "$gen" -B "$gen/$build" "$@" "-DCMAKE_BUILD_TYPE=$config" \
    "-DCMAKE_${lang}_FLAGS_$upper=$base $variant $(prebuilt_flags "$kind" "$dir")" \
    "-DCMAKE_EXE_LINKER_FLAGS_$upper=$dir/prebuilt.o" > /dev/null || return 1
}

# prebuilt_cuda_configure GEN BUILD_TYPE NVCC: configures the generated CUDA program GEN in
# GEN/build with its CMakeLists for sm_90 and NVCC (tests/cuda/: the nvcc compile tests): build
# type None against the runtime's shared build (prebuilt_cmake), any other build type, or a
# program whose runtime/ is not this checkout's, on its own. Returns 1 when a configure fails.
prebuilt_cuda_configure() {
  local gen=$1 type=$2 nvcc=$3 status=3
  if [ "$type" = None ]; then
    prebuilt_cmake "$gen" build None CUDA cuda "" -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_COMPILER="$nvcc"
    status=$?
  fi
  if [ $status -eq 3 ]; then
    cmake -S "$gen" -B "$gen/build" -DCMAKE_BUILD_TYPE="$type" -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCMAKE_CUDA_COMPILER="$nvcc" > /dev/null || return 1
  elif [ $status -ne 0 ]; then
    return 1
  fi
}
