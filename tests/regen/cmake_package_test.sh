#!/usr/bin/env bash
# The CMake package: installs stepgen from BUILD_DIR into a fresh prefix, builds
# examples/cmake_project against it (find_package(stepgen) + stepgen_add_program, OpenCL), runs
# the program briefly on PoCL, then checks that the build regenerates when the spec, the kernel
# or the (custom) templates change, and that a hand edit of the generated code survives.
# Usage: cmake_package_test.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -uo pipefail
build=$(realpath "$1") src=$(realpath "$2") work=$3
rm -rf "$work" && mkdir -p "$work" && work=$(realpath "$work") && cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
step() { echo "== $*"; }
run() { "$@" >"$work/last.log" 2>&1 || { fail "$* (exit $?)"; tail -30 "$work/last.log"; return 1; }; }

step "install"
run cmake --install "$build" --prefix "$work/prefix" || exit 1
for f in bin/stepgen include/stepgen/plan/box.hpp share/stepgen/templates/opencl/host.cpp.mustache \
  lib/cmake/stepgen/stepgenConfig.cmake lib/cmake/stepgen/stepgenConfigVersion.cmake; do
  [ -f "prefix/$f" ] && ok "installed $f" || fail "not installed: $f"
done

step "configure and build the example project against the installed package"
cp -r "$src/examples/cmake_project" project
# Build type None (no -O flags): the generated program is rebuilt four times here, and what
# is checked is the regeneration, not the program's speed (Release costs CI ~45 s more).
# STEPGEN_TEST_CXX (ctest: clang++ where installed, tests/CMakeLists.txt): the tests' compiler
# for generated programs (this test took 41.7 s against 96.8 s with g++ in fresh-clone CI runs
# on 2 cores, 2026-11-29).
compiler=()
[ -n "${STEPGEN_TEST_CXX:-}" ] && compiler=("-DCMAKE_CXX_COMPILER=$STEPGEN_TEST_CXX")
run cmake -S project -B project/build -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=None "${compiler[@]}" || exit 1
run cmake --build project/build -j 2 || exit 1
exe=project/build/jacobi2d-opencl-build/jacobi2d
gen=project/build/jacobi2d-opencl
[ -x $exe ] && ok "built $exe" || { fail "no program"; exit 1; }
if POCL_DEVICES="pthread pthread" POCL_MAX_PTHREAD_COUNT=2 $exe --steps 3 >run.log 2>&1; then
  ok "the program runs (3 steps on 2 PoCL devices)"
else
  fail "the program failed"; cat run.log
fi
grep -q "3 steps" run.log && ok "report names 3 steps" || { fail "unexpected report"; cat run.log; }

step "nothing changed: nothing regenerated, nothing rebuilt"
stamp_before=$(stat -c %Y $exe)
sleep 1
run cmake --build project/build -j 2
[ "$(stat -c %Y $exe)" = "$stamp_before" ] && ok "no rebuild" || fail "rebuilt without a change"

step "a hand edit in the generated program, then a spec change: regenerated, edit merged"
sed -i 's|^int main(int argc, char\*\* argv) {|// hand edit kept by the merge\n&|' $gen/jacobi2d.cpp
sed -i 's/steps: 100/steps: 5/' project/jacobi2d.yaml
run cmake --build project/build -j 2
grep -q "kSteps = 5;" $gen/jacobi2d.cpp && ok "regenerated after the spec changed" || fail "spec change not regenerated"
grep -q "hand edit kept by the merge" $gen/jacobi2d.cpp && ok "hand edit merged" || fail "hand edit lost"
[ "$(stat -c %Y $exe)" != "$stamp_before" ] && ok "program rebuilt" || fail "program not rebuilt"
POCL_DEVICES="pthread" $exe >run.log 2>&1 && grep -q "5 steps" run.log && ok "the rebuilt program runs 5 steps" ||
  { fail "rebuilt program"; cat run.log; }

step "a kernel change: regenerated (the kernel copy) and rebuilt"
echo "// kernel edit" >>project/jacobi2d.cl
run cmake --build project/build -j 2
grep -q "kernel edit" $gen/kernels/jacobi2d.cl && ok "kernel copy regenerated" || fail "kernel change not picked up"

step "custom templates: exported, used, and a template change regenerates"
run prefix/bin/stepgen templates export "$work/tpl"
run cmake -S project -B project/build -DSTEPGEN_TEMPLATES="$work/tpl"
run cmake --build project/build -j 2
sed -i '2a // custom template line' tpl/opencl/host.cpp.mustache
run cmake --build project/build -j 2
grep -q "custom template line" $gen/jacobi2d.cpp && ok "template change regenerated" || fail "template change not picked up"
grep -q "hand edit kept by the merge" $gen/jacobi2d.cpp && ok "hand edit still there" || fail "hand edit lost"

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
