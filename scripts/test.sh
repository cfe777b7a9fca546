#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit, error suite, fuzz, end-to-end).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" "$build"
cd "$build"
ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)"
