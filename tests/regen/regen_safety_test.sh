#!/usr/bin/env bash
# Regeneration into hostile or damaged folders, and every file stepgen writes (issue 21):
# symbolic links inside the output folder and in .stepgen/ (never followed, nothing outside
# touched, nothing written at all), FIFOs, devices and folders where a file goes (never replaced),
# edits that cannot be merged as text (a NUL byte, UTF-16, a corrupted pristine copy: the user's
# file is left as is; --force saves it byte for byte as .orig), --depfile and plan --svg aimed at
# a FIFO, a device or a link, spec names that would break the generated files (a line break:
# refused; a quote: escaped), 30 concurrent runs into one folder, and kill -9 during generate.
# Usage: regen_safety_test.sh STEPGEN SOURCE_DIR WORK_DIR
set -uo pipefail
stepgen=$(realpath "$1") src=$(realpath "$2") work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
work=$(pwd)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
# expect STATUS DESCRIPTION COMMAND...: runs COMMAND (stdout+stderr to last.txt), checks the exit.
expect() {
  local want=$1 what=$2; shift 2
  "$@" >last.txt 2>&1
  local got=$?
  if [ "$got" -eq "$want" ]; then ok "$what (exit $got)"; else fail "$what: exit $got, expected $want"; cat last.txt; fi
}
has() { grep -qF -- "$2" "$1" && return 0; fail "$1 lacks: $2"; cat "$1"; return 1; }
same() { cmp -s "$1" "$2" && ok "$3" || fail "$3 ($1 and $2 differ)"; }
# Everything in a folder: each entry's type and link target, and each regular file's hash.
snapshot() {
  (cd "$1" && find . -printf '%p %y %l\n' | LC_ALL=C sort && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha1sum)
}
unchanged() { [ "$(snapshot "$1")" = "$2" ] && ok "$3" || fail "$3 ($1 changed)"; }
temps() { find "$1" -name '*.stepgen-tmp-*' | LC_ALL=C sort; }

cp "$src/examples/jacobi2d/jacobi2d".{xml,cl,cu} .
steps() { sed -i -E "s/steps=\"[0-9]+\"/steps=\"$1\"/" jacobi2d.xml; }
gen() { "$stepgen" generate jacobi2d.xml "$@"; }
# fresh DIR: DIR generated from the spec with 100 steps; the spec then says 200 steps, so that
# regenerating DIR would write jacobi2d.cpp.
fresh() { rm -rf "$1" && steps 100 && gen -o "$1" >/dev/null 2>&1 && steps 200; }

# --- a symbolic link in .stepgen/ to a file outside the folder: nothing outside is removed ---
echo "precious" >precious.txt && cp precious.txt precious.bak
fresh s1 && ln -s "$work/precious.txt" s1/.stepgen/notes.txt && ln -s ../../precious.txt s1/.stepgen/notes2.txt
before=$(snapshot s1)
expect 1 "a symbolic link in .stepgen/" gen -o s1
same precious.txt precious.bak "the file the link points to survives"
has last.txt "s1/.stepgen/notes.txt: error: is a symbolic link"
has last.txt "s1/.stepgen/notes2.txt: error: is a symbolic link"
unchanged s1 "$before" "nothing written or removed in the folder (the links included)"
expect 1 "--force does not follow it either" gen -o s1 --force
same precious.txt precious.bak "the file the link points to survives --force"
unchanged s1 "$before" "nothing written or removed under --force"
expect 1 "--check reports it" gen -o s1 --check
has last.txt "s1/.stepgen/notes.txt: error: is a symbolic link"

# --- .stepgen itself a link to a folder outside: nothing there is read as a pristine copy ---
fresh s2 && mkdir elsewhere && cp -r s2/.stepgen/. elsewhere/ && echo "keep me" >elsewhere/precious.txt
rm -rf s2/.stepgen && ln -s "$work/elsewhere" s2/.stepgen
before=$(snapshot elsewhere) before2=$(snapshot s2)
expect 1 "a symbolic link for .stepgen/" gen -o s2
has last.txt "s2/.stepgen: error: is a symbolic link"
unchanged elsewhere "$before" "the linked folder outside is untouched"
unchanged s2 "$before2" "nothing written in the folder"

# --- a folder of .stepgen/ or of the output linked outside: nothing is written there ---
fresh s3 && mkdir outside-k outside-pk
rm -rf s3/kernels s3/.stepgen/kernels && ln -s "$work/outside-k" s3/kernels && ln -s "$work/outside-pk" s3/.stepgen/kernels
before=$(snapshot s3)
expect 1 "linked folders inside the output folder (--force)" gen -o s3 --force
has last.txt "s3/kernels: error: is a symbolic link"
has last.txt "s3/.stepgen/kernels: error: is a symbolic link"
[ -z "$(find outside-k outside-pk -mindepth 1)" ] && ok "nothing written into the linked folders" || fail "written outside: $(find outside-k outside-pk -mindepth 1)"
unchanged s3 "$before" "nothing written in the folder"

# --- a generated file that is a link, a FIFO or a folder: never replaced, even under --force ---
fresh s4 && echo "my cmake" >my-cmake.txt && cp my-cmake.txt my-cmake.bak
ln -sf "$work/my-cmake.txt" s4/CMakeLists.txt
rm s4/kernels/jacobi2d.cl && mkfifo s4/kernels/jacobi2d.cl
rm s4/.clang-format && mkdir s4/.clang-format && echo mine >s4/.clang-format/keep
mkfifo s4/.stepgen/pipe
before=$(snapshot s4)
expect 1 "a link, a FIFO and a folder where files go (--force)" gen -o s4 --force
has last.txt "s4/CMakeLists.txt: error: is a symbolic link"
has last.txt "s4/kernels/jacobi2d.cl: error: is a FIFO"
has last.txt "s4/.clang-format: error: is a folder"
has last.txt "s4/.stepgen/pipe: error: is a FIFO"
unchanged s4 "$before" "none of them replaced, nothing written"
same my-cmake.txt my-cmake.bak "the linked file is untouched"

# --- edits that cannot be merged as text: left as is, said so, exit 3; --force keeps the bytes ---
# binary_case DIR DESCRIPTION CAUSE: DIR was damaged by the caller (the spec asks for 200 steps);
# the message must name CAUSE.
binary_case() {
  local d=$1 what=$2 cause=$3
  cp "$d/jacobi2d.cpp" "$d.mine" && cp "$d/.stepgen/jacobi2d.cpp" "$d.base"
  expect 3 "$what: regenerate" gen -o "$d"
  has last.txt "$cause"
  same "$d/jacobi2d.cpp" "$d.mine" "$what: the user's file is untouched"
  same "$d/.stepgen/jacobi2d.cpp" "$d.base" "$what: the pristine copy is kept"
  has last.txt "cannot merge"
  has last.txt "$d/jacobi2d.cpp"
  [ ! -e "$d/jacobi2d.cpp.orig" ] && ok "$what: no .orig" || fail "$what: an .orig was written"
  expect 3 "$what: regenerate again (still reported)" gen -o "$d"
  same "$d/jacobi2d.cpp" "$d.mine" "$what: still untouched"
  expect 1 "$what: --check" gen -o "$d" --check
  expect 0 "$what: --force" gen -o "$d" --force
  same "$d/jacobi2d.cpp.orig" "$d.mine" "$what: --force saved the user's exact bytes as .orig"
  has "$d/jacobi2d.cpp" "kSteps = 200;"
}
fresh s5-nul && sed -i '3s/$/\x00 mine/' s5-nul/jacobi2d.cpp
binary_case s5-nul "a NUL byte in the edit" "your file holds NUL bytes"
fresh s5-utf16 && iconv -f UTF-8 -t UTF-16 s5-utf16/jacobi2d.cpp >utf16.tmp && cat utf16.tmp >s5-utf16/jacobi2d.cpp
binary_case s5-utf16 "a UTF-16 re-encoding" "your file holds NUL bytes"
fresh s5-corrupt && printf 'corrupted\0\001\002 pristine copy\n' >s5-corrupt/.stepgen/jacobi2d.cpp
binary_case s5-corrupt "a corrupted pristine copy" "its pristine copy s5-corrupt/.stepgen/jacobi2d.cpp holds NUL bytes"

# --- --depfile and plan --svg: a FIFO, a device node or a link there is never replaced ---
mkfifo dep.fifo
fresh d1 && before=$(snapshot d1)
expect 1 "--depfile at a FIFO" gen -o d1 --depfile dep.fifo
[ -p dep.fifo ] && ok "the FIFO is still a FIFO" || fail "the FIFO was replaced"
has last.txt "dep.fifo: error: is a FIFO"
unchanged d1 "$before" "nothing written when the depfile cannot be"
echo "my notes" >notes.d && cp notes.d notes.bak && ln -s notes.d dep.link
expect 1 "--depfile at a symbolic link" gen -o d1 --depfile dep.link
[ -L dep.link ] && ok "the link is still a link" || fail "the link was replaced"
same notes.d notes.bak "the file it points to is untouched"
mkdir dep.dir
expect 1 "--depfile at a folder" gen -o d1 --depfile dep.dir
unchanged d1 "$before" "nothing written"
# A device node in the test folder (as root) rather than /dev/full, which the unfixed stepgen replaced.
if mknod dev.null c 1 3 2>/dev/null; then
  expect 1 "--depfile at a device node" gen -o d1 --depfile dev.null
  [ -c dev.null ] && ok "the device node is still a device node" || fail "the device node was replaced"
  expect 1 "plan --svg at a device node" "$stepgen" plan jacobi2d.xml --svg dev.null
  [ -c dev.null ] && ok "plan --svg left the device node" || fail "plan --svg replaced the device node"
else
  echo "skipped: device nodes (mknod not permitted)"
fi
expect 1 "plan --svg at a FIFO" timeout 20 "$stepgen" plan jacobi2d.xml --svg dep.fifo
[ -p dep.fifo ] && ok "plan --svg left the FIFO" || fail "plan --svg replaced the FIFO"
expect 0 "--depfile, a new file" gen -o d1 --depfile new.d
has new.d "d1:"
expect 0 "plan --svg, a new file" "$stepgen" plan jacobi2d.xml --svg plan.svg
has plan.svg "<svg"
[ -z "$(temps .)" ] && ok "no temporary file left" || fail "temporary files left: $(temps .)"

# --- 30 concurrent runs into one folder: all succeed, the tree is what one run gives ---
# A kernel of some megabytes keeps each run writing long enough for the runs to overlap.
mkdir conc && cp jacobi2d.xml jacobi2d.cu conc/ && cp jacobi2d.cl conc/
for i in $(seq 1 60000); do echo "// padding line $i, so that writing this kernel's copy takes a while"; done >>conc/jacobi2d.cl
concurrent() {
  local what=$1 pids=() i bad=0
  for i in $(seq 1 30); do (cd conc && exec "$stepgen" generate jacobi2d.xml -o c1) >"c1-$i.log" 2>&1 & pids+=($!); done
  for i in "${!pids[@]}"; do wait "${pids[$i]}" || { bad=$((bad + 1)); cat "c1-$((i + 1)).log"; }; done
  [ "$bad" -eq 0 ] && ok "$what: 30 concurrent runs succeeded" || fail "$what: $bad of 30 concurrent runs failed"
  [ "$(snapshot conc/c1)" = "$(snapshot conc/ref)" ] && ok "$what: the tree is complete and correct" ||
    { fail "$what: the tree differs from one run's"; diff <(snapshot conc/c1) <(snapshot conc/ref) | head; }
}
(cd conc && "$stepgen" generate jacobi2d.xml -o ref >/dev/null)
concurrent "into a new folder"
echo "// one more line" >>conc/jacobi2d.cl && sed -i -E 's/steps="[0-9]+"/steps="300"/' conc/jacobi2d.xml
rm -rf conc/ref && (cd conc && "$stepgen" generate jacobi2d.xml -o ref >/dev/null)
concurrent "into an existing folder"

# --- spec names that would break the generated files: a line break in the spec's name must
# not put a CMake command into CMakeLists.txt (configure would run it), nor a quote break the
# C++ ---
mkdir -p names && cp "$src"/examples/jacobi2d/jacobi2d.{xml,cl,cu} names/
nl_spec=$'names/x\nmessage(WARNING "INJECTED")\n#.xml'
cp names/jacobi2d.xml "$nl_spec"
expect 1 "a line break in the spec's name: refused" "$stepgen" generate "$nl_spec" -o names/nl
has last.txt "holds a control character" && [ ! -e names/nl ] && ok "... and nothing written"
cp names/jacobi2d.xml 'names/a"b\q.xml'
expect 0 "a quote and a backslash in the spec's name" "$stepgen" generate 'names/a"b\q.xml' -o names/q
has names/q/jacobi2d.cpp 'p.info.spec = "a\"b\\q.xml";'

# --- kill -9 during generate: old or new complete files, never a partial one; a rerun completes ---
rm -rf ref-old ref-new && steps 100 && gen -o ref-old >/dev/null && steps 500 && gen -o ref-new >/dev/null
steps 500
start=$(date +%s%N) && gen -o timing >/dev/null && took=$((($(date +%s%N) - start) / 1000)) && rm -rf timing
interrupted=0
for trial in $(seq 1 24); do
  rm -rf k
  [ $((trial % 2)) -eq 0 ] && cp -a ref-old k  # even trials regenerate, odd ones generate afresh
  "$stepgen" generate jacobi2d.xml -o k >/dev/null 2>&1 &  # not through gen(): $! must be stepgen
  pid=$!
  sleep "$(printf '0.%06d' $((RANDOM * took / 32768)))"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  bad=""
  while IFS= read -r -d '' f; do
    rel=${f#k/}
    case "$(basename "$rel")" in .*.stepgen-tmp-*) continue ;; esac
    # The manifest a run writes first (every hash old or new) is neither side's: a rerun must
    # complete it (below), and it must list every file the killed run may have written.
    if [ "$rel" = .stepgen/manifest ] && [ -f "$f" ] && ! cmp -s "$f" "ref-new/$rel"; then
      while read -r hashes _ path; do
        case "$hashes" in "#"*) continue ;; esac
        [ -f "k/.stepgen/$path" ] || continue
        case ",$hashes," in *",$(git hash-object "k/.stepgen/$path"),"*) ;; *) bad+=" $rel(lacks $path's hash)" ;; esac
      done < "$f"
      continue
    fi
    if [ ! -f "$f" ] || [ -L "$f" ]; then bad+=" $rel(not a file)"; continue; fi
    cmp -s "$f" "ref-new/$rel" || { [ $((trial % 2)) -eq 0 ] && cmp -s "$f" "ref-old/$rel"; } || bad+=" $rel"
  done < <(find k -mindepth 1 -not -type d -print0 2>/dev/null)
  if [ $((trial % 2)) -eq 0 ]; then  # nothing there before may be missing
    while IFS= read -r -d '' f; do
      rel=${f#ref-old/}
      [ -e "k/$rel" ] || [ ! -e "ref-new/$rel" ] || bad+=" $rel(missing)"
    done < <(find ref-old -type f -print0)
  fi
  [ -z "$bad" ] || fail "kill -9, trial $trial: partial or wrong files:$bad"
  [ "$(snapshot k 2>/dev/null)" = "$(snapshot ref-new)" ] || interrupted=$((interrupted + 1))
  gen -o k >last.txt 2>&1 || { fail "kill -9, trial $trial: the rerun failed"; cat last.txt; }
  [ "$(snapshot k)" = "$(snapshot ref-new)" ] || { fail "kill -9, trial $trial: the rerun did not complete the folder";
    diff <(snapshot k) <(snapshot ref-new) | head; }
done
[ "$interrupted" -gt 0 ] && ok "kill -9: $interrupted of 24 runs were interrupted, each rerun completed the folder" ||
  fail "kill -9: no run was interrupted (the test proved nothing)"

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
