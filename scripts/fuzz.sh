#!/usr/bin/env bash
# Builds the reader fuzz targets with clang (libFuzzer + ASan + UBSan) in their own build tree and
# runs each for a short while over the seed specs. Exits 77 (ctest: skipped) when clang cannot
# link a libFuzzer program.
# Usage: scripts/fuzz.sh [BUILD_DIR] [SECONDS]      (defaults: build-fuzz, 30)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-fuzz}
seconds=${2:-30}
cxx=${CXX_FUZZ:-$(command -v clang++ || command -v clang++-14 || true)}
if [ -z "$cxx" ]; then
  echo "fuzz: no clang++; skipped"
  exit 77
fi
mkdir -p "$build"

probe="$build/probe.cpp"
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' >"$probe"
if ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe" -o "$build/probe" 2>"$build/probe.log"; then
  echo "fuzz: $cxx cannot link -fsanitize=fuzzer (install libclang-rt-dev); skipped"
  exit 77
fi

cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DSTEPGEN_FUZZ=ON -DSTEPGEN_BUILD_TESTS=OFF >"$build/configure.log" ||
  { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target fuzz_xml_reader fuzz_yaml_reader

seeds=()
for d in specs examples tests/errors; do
  [ -d "$root/$d" ] && seeds+=("$root/$d")
done

# Each target writes what it learns to its own corpus in the build tree, never to the seed
# folders; the two run side by side (one core each).
pids=()
for format in xml yaml; do
  corpus="$build/corpus-$format"
  artifacts="$build/artifacts-$format"
  mkdir -p "$corpus" "$artifacts"
  "$build/fuzz/fuzz_${format}_reader" "$corpus" "${seeds[@]}" \
    -dict="$root/fuzz/$format.dict" -max_total_time="$seconds" -rss_limit_mb=1024 -timeout=5 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 >"$build/fuzz-$format.log" 2>&1 &
  pids+=($!)
done
status=0
for i in 0 1; do
  format=$([ $i -eq 0 ] && echo xml || echo yaml)
  if wait "${pids[$i]}"; then
    echo "fuzz: $format reader: $(grep -E '^stat::number_of_executed_units' "$build/fuzz-$format.log" | awk '{print $2}') runs, no failure"
  else
    status=1
    echo "fuzz: $format reader FAILED; log and reproducer:"
    tail -n 60 "$build/fuzz-$format.log"
    ls "$build/artifacts-$format"
  fi
done
exit $status
