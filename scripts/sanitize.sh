#!/usr/bin/env bash
# The sanitizer build: configures a build tree of its own with clang++ where it is installed
# (else the default compiler; CXX_SANITIZE picks another) and
# -fsanitize=address,undefined -fno-sanitize-recover=all, builds the generator and its unit
# tests, and runs against it: the unit tests (runtime and generator doctest binaries, which hold
# the error suite and the golden files), the regeneration tests (tests/regen/regen_test.sh) and a
# short fuzz: scripts/fuzz.sh (clang's libFuzzer on the readers, ASan + UBSan) whose corpus is
# then replayed through this build's `stepgen check` (readers, validation and plan under the
# sanitizers). Any sanitizer report fails the run, even where the program's exit status is
# expected to be non-zero (see step() below). Uses ccache when it is installed.
# Usage: scripts/sanitize.sh [BUILD_DIR] [FUZZ_BUILD_DIR] [FUZZ_SECONDS]
#        (defaults: build-sanitize, BUILD_DIR/fuzz, 10)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-sanitize}
fuzz_build=${2:-$build/fuzz}
fuzz_seconds=${3:-10}
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$build"
build=$(cd "$build" && pwd)
logs=$build/sanitizer-logs
rm -rf "$logs" && mkdir -p "$logs"

sanitizers="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# -O0: builds in about 100 s on CI's 2 cores, against 288 s at -O1 (the whole test took 323 s
# in a fresh-clone CI run at -O1, making CI 29.8 min of its 30). The optimiser's warnings
# (maybe-uninitialized) stay live in the Release build every other test uses. (-O0 was reverted
# once for a LeakSanitizer tracer crash that turned out to come from the generator tests'
# working directory at -O1 as well: see below.)
# clang++: the build takes 150 s on 2 cores against 243 s with g++ at -O0 (both ASan + UBSan;
# the main build is the default compiler's, g++ on Debian; the generated programs' tests
# build with clang++ too, but for the e2e tests and the -O3 MPI builds: tests/CMakeLists.txt).
cxx=${CXX_SANITIZE:-$(command -v clang++ || true)}
compiler=()
[ -n "$cxx" ] && compiler=(-DCMAKE_CXX_COMPILER="$cxx")
# A tree configured with another compiler is configured afresh (CMake keeps a cache's compiler).
if [ -n "$cxx" ] && [ -f "$build/CMakeCache.txt" ] &&
   ! grep -qx "CMAKE_CXX_COMPILER:[A-Z]*=$cxx" "$build/CMakeCache.txt"; then
  rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles"
fi
# Not a unity build (scripts/setup.sh's is): with one, LeakSanitizer's tracer crashed at the
# exit of every run of the sanitized stepgen_tests (3 of 3, all tests passed; see below).
cmake -S "$root" -B "$build" "${launcher[@]}" "${compiler[@]}" -DCMAKE_BUILD_TYPE=Sanitize \
      -DCMAKE_CXX_FLAGS_SANITIZE="-O0 -g $sanitizers" \
      -DCMAKE_EXE_LINKER_FLAGS_SANITIZE="$sanitizers" >"$build/configure.log" ||
  { cat "$build/configure.log"; exit 1; }
SECONDS=0
cmake --build "$build" -j "$jobs" --target stepgen stepgen_tests runtime_tests >"$build/build.log" 2>&1 ||
  { grep -E 'error|Error' -A5 "$build/build.log" | head -n 80; echo "sanitize: build FAILED"; exit 1; }
echo "sanitize: built in ${SECONDS}s"

# A sanitizer report ends the process with status 86 (ASan and UBSan alike), which no test takes
# for a normal outcome; ASan's reports also go to files in a folder per step (GCC's UBSan ignores
# log_path, so its reports, "runtime error: ...", are looked for in the step's output too).
# A step fails on any of the three even where the program's own exit status is not checked.
status=0
# LeakSanitizer's own tracer can crash while it stops the threads at exit ("Tracer caught signal
# 11 ... LeakSanitizer has encountered a fatal error", no leak reported: the generator tests run
# from a build folder, below): a failure of the tool, not a finding. A step whose only report is
# that runs once more, and says so; any other report fails it at once.
tool_crash_only() {  # tool_crash_only DIR LOG: the reports in DIR are LSan tracer crashes only
  grep -qs 'LeakSanitizer has encountered a fatal error' "$1"/* &&
    ! grep -qsE 'ERROR: (Address|Leak|UndefinedBehavior)Sanitizer|runtime error: ' "$1"/* "$2"
}
step() {  # step NAME COMMAND...: runs COMMAND, output to BUILD_DIR/NAME.log; 1 on any failure
  local name=$1 rc=0 try; shift
  local dir=$logs/$name start=$SECONDS
  for try in 1 2; do
    rm -rf "$dir" && mkdir -p "$dir"
    rc=0
    ASAN_OPTIONS="log_path=$dir/asan:exitcode=86:detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1" \
    UBSAN_OPTIONS="exitcode=86:print_stacktrace=1:halt_on_error=1" \
      "$@" >"$build/$name.log" 2>&1 || rc=$?
    [ "$try" = 1 ] && tool_crash_only "$dir" "$build/$name.log" || break
    echo "sanitize: $name: LeakSanitizer's tracer crashed (a tool failure, no report); once more:"
    grep -h -m 2 -E 'Tracer caught|fatal error' "$dir"/* | sed 's/^/  /'
  done
  if compgen -G "$dir/*" >/dev/null ||
     grep -qE 'runtime error: |ERROR: (Address|Leak|UndefinedBehavior)Sanitizer' "$build/$name.log"; then
    echo "sanitize: $name: SANITIZER REPORT(S) (exit $rc):"
    grep -E -A12 'runtime error: |ERROR: (Address|Leak|UndefinedBehavior)Sanitizer' "$build/$name.log" | head -n 40
    for f in "$dir"/*; do [ -e "$f" ] && { echo "--- $f"; head -n 40 "$f"; }; done
    return 1
  fi
  if [ "$rc" -ne 0 ]; then
    echo "sanitize: $name FAILED (exit $rc$([ "$rc" -eq 86 ] && echo ': a sanitizer report'), $((SECONDS - start))s); the end of $build/$name.log:"
    tail -n 40 "$build/$name.log"
    return 1
  fi
  echo "sanitize: $name passed ($((SECONDS - start))s)"
}

# Two lines side by side (one core each, about 30 s apiece on CI's cores): the doctest
# binaries; the regeneration script, then the fuzz.
# From the source tree: run from a build folder (ctest's working directory), LeakSanitizer's
# tracer crashed at the sanitized stepgen_tests' exit every time (all its tests passed; "Tracer
# caught signal 11"), from the checkout's top never (2 of 2, and 3 of 3 before); cause unknown.
(
  rc=0
  step runtime-tests "$build/tests/runtime_tests" || rc=1
  (cd "$root" && step generator-tests "$build/tests/stepgen_tests") || rc=1
  exit $rc
) &
p1=$!
# A short fuzz of the readers (clang, libFuzzer, its own build tree), then every input it kept,
# and the seeds, through this build's `stepgen check` (below): what libFuzzer only fed to the
# readers also goes through validation and the plan. Exit 1 of check (a located error) is
# expected.
fuzz() {
  local start=$SECONDS fuzz_status=0
  "$root/scripts/fuzz.sh" "$fuzz_build" "$fuzz_seconds" >"$build/fuzz.log" 2>&1 || fuzz_status=$?
  if [ "$fuzz_status" -eq 0 ]; then
    echo "sanitize: fuzz passed ($((SECONDS - start))s): $(grep -E '^fuzz:' "$build/fuzz.log" | tr '\n' ' ')"
  elif [ "$fuzz_status" -eq 77 ]; then
    echo "sanitize: fuzz skipped: $(tail -n 1 "$build/fuzz.log")"
  else
    echo "sanitize: fuzz FAILED; the end of $build/fuzz.log:"; tail -n 60 "$build/fuzz.log"
    return 1
  fi
}
(
  rc=0
  step regen "$root/tests/regen/regen_test.sh" "$build/stepgen" "$root" "$build/regen" || rc=1
  fuzz || rc=1
  exit $rc
) &
p2=$!
wait $p1 || status=1
wait $p2 || status=1
replay() {  # replay STEPGEN WORK: `stepgen check` on each seed spec and kept fuzz input
  local stepgen=$1 work=$2 n=0 bad=0 rc f ext
  rm -rf "$work" && mkdir -p "$work"
  cp "$root"/examples/*/*.cl "$root"/examples/*/*.cu "$root"/tests/errors/*.cl "$work"/ 2>/dev/null || true
  local inputs=()  # FILE:EXTENSION
  while IFS= read -r -d '' f; do inputs+=("$f:${f##*.}"); done < <(
    find "$root/specs" "$root/examples" "$root/tests/errors" -type f \
         \( -name '*.xml' -o -name '*.yaml' -o -name '*.yml' \) -print0)
  for ext in xml yaml; do
    [ -d "$fuzz_build/corpus-$ext" ] || continue
    while IFS= read -r -d '' f; do inputs+=("$f:$ext"); done < <(
      find "$fuzz_build/corpus-$ext" -type f -size -64k -print0 | head -z -n "${SANITIZE_REPLAY_MAX:-100}")
  done
  for entry in "${inputs[@]}"; do
    f=${entry%:*} ext=${entry##*:}
    cp "$f" "$work/spec.$ext"
    rc=0
    (cd "$work" && timeout 20 "$stepgen" check "spec.$ext" >/dev/null 2>&1) || rc=$?
    n=$((n + 1))
    # 0: valid, 1: a located error; anything else (a crash, a sanitizer, a hang) is a failure.
    if [ "$rc" -gt 1 ]; then
      bad=$((bad + 1))
      echo "check of $f as .$ext: exit $rc"
      cp "$f" "$work/failed-$bad.$ext"
    fi
  done
  echo "replay: $n checks, $bad failure(s)"
  [ "$bad" -eq 0 ]
}
# LSAN_OPTIONS=use_tls=0 for the replay: `stepgen check` builds the kernels with PoCL, which
# dlopens LLVM, and LeakSanitizer's tracer crashed (signal 11, no report) scanning that library's dynamic TLS
# ("DTLS 10 at 0x...123e-0x...2340", a range that is not memory) on
# examples/stepocl_jacobi/stepocl_jacobi.yaml every time, its .xml twin never. Without thread-local
# storage as a root LeakSanitizer can only report more, never fewer: an object held only there
# would be reported as a leak. (print_suppressions=0: the count of LeakSanitizer's own suppression
# of __tls_get_addr's blocks, which it then prints, is not a report.)
LSAN_OPTIONS=use_tls=0:print_suppressions=0 step replay replay "$build/stepgen" "$build/replay" || status=1
tail -n 1 "$build/replay.log"

[ "$status" -eq 0 ] && echo "sanitize: no sanitizer report, every step passed"
exit $status
