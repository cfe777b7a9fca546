#!/usr/bin/env bash
# The generated program's command line and files, on PoCL: numeric flags out of range or of the
# wrong form are usage errors (exit 2, the flag and its range named); every --load and --save
# target is checked before the devices and the run (exit 1, the flag named); --save writes
# atomically (a write error or a kill -9 in the middle of a save leaves the previous file
# byte-identical, never a partial file under its name); no device found lists what was searched.
# jacobi2d on a 4096x4096 grid (64 MiB per array), so that a save lasts long enough to be caught.
# Usage: program_io_test.sh STEPGEN SOURCE_DIR WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../build_program.sh"
stepgen=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work/spec"
cp "$src/examples/jacobi2d/jacobi2d".{xml,cl,cu} "$work/spec/"
sed -i 's/name="NX" value="1024"/name="NX" value="4096"/; s/size="NX 768"/size="NX 4096"/g' \
  "$work/spec/jacobi2d.xml"
grep -q 'size="NX 4096"' "$work/spec/jacobi2d.xml" || { echo "FAIL: the grid was not enlarged"; exit 1; }
"$stepgen" generate "$work/spec/jacobi2d.xml" --target opencl -o "$work/out" >/dev/null
build_program "$work/out"
prog="$work/out/build/jacobi2d"
bytes=$((4096 * 4096 * 4))
export POCL_DEVICES="pthread pthread"
# A run that got past the checks would compute for hours: these fail before the run or time out.
long=(--device-type cpu --steps 1000000000)

expect() {  # expect STATUS "MESSAGE PART" ARGS...: the program fails with STATUS and the message
  local want_status=$1 want=$2
  shift 2
  set +e
  timeout 20 "$prog" "$@" > "$work/err.txt" 2>&1 < /dev/null
  local status=$?
  set -e
  if [ "$status" -ne "$want_status" ] || ! grep -qF -- "$want" "$work/err.txt"; then
    echo "FAIL: '$*' exited $status (124: timed out); expected $want_status and '$want' in:"
    cat "$work/err.txt"
    exit 1
  fi
  echo "ok: '$*' -> $status: $(head -1 "$work/err.txt")"
}

# --- numeric flags: the whole text, in range, or a usage error (status 2) naming both ----------
for v in 4294967297 2147483648 0 -1 3x '' ' 3' 1e3; do
  expect 2 "--devices expects an integer from 1 to 2147483647, got '$v'" "${long[@]}" --devices "$v"
done
for v in 3x -1 9223372036854775808 1.5 0x10; do
  expect 2 "--steps expects an integer from 0 to 9223372036854775807, got '$v'" --devices 1 --steps "$v"
done
for v in 1,0 1,inf nan 1e400 1,,2 0x10 -1,1 1,2000000; do
  expect 2 "--weights expects numbers from 1e-6 to 1e6 separated by commas" "${long[@]}" --weights "$v"
done
expect 2 "--ooc-chunks expects an integer from 1 to 2147483647, got '4294967297'" "${long[@]}" --ooc-chunks 4294967297
expect 2 "--steps-per-pass expects an integer from 1 to 2147483647, got '0'" "${long[@]}" --steps-per-pass 0
expect 2 "--ooc-buffers expects an integer from 3 to 64, got '2'" "${long[@]}" --ooc-buffers 2
expect 2 "--ooc-buffers expects an integer from 3 to 64, got '4294967299'" "${long[@]}" --ooc-buffers 4294967299
for v in inf nan 1e3 -5 0 99999999TiB 0x10GiB 8XiB; do
  expect 2 "from 1 byte to 4 EiB, got" "${long[@]}" --device-memory "$v"
done
expect 2 "unknown option '--bogus'" --bogus
expect 2 "--steps needs a value" --steps
expect 2 "--save: no array named 'Q'" --save Q=x.raw
expect 2 "another --save writes the same file" "${long[@]}" --save "A=$work/same.raw" --save "B=$work/./same.raw"
# --- files the user wrote and files the run writes twice: refused before the run, so that a
# --save or --checkpoint never overwrites a spec, a kernel, a checkpoint or a monitor table -----
cp "$work/spec/jacobi2d.xml" "$work/mine.xml"
cp "$work/mine.xml" "$work/mine.keep"
expect 2 "--save A=$work/mine.xml: '$work/mine.xml' exists and looks like a file you wrote (.xml)" \
  "${long[@]}" --save "A=$work/mine.xml"
expect 2 "looks like a file you wrote (.xml)" "${long[@]}" --checkpoint "$work/mine.xml" --checkpoint-every 5
cmp -s "$work/mine.xml" "$work/mine.keep" || { echo "FAIL: the spec was changed"; exit 1; }
expect 2 "is this program's own binary" "${long[@]}" --save "A=$prog"
expect 2 "--checkpoint $work/x.raw and --save A=$work/./x.raw would write the same file" \
  "${long[@]}" --checkpoint "$work/x.raw" --checkpoint-every 5 --save "A=$work/./x.raw"

# --- --load: checked before the devices and the run (status 1, the flag named) ------------------
mkdir -p "$work/dir"
mkfifo "$work/fifo"
head -c 100 /dev/zero > "$work/short.raw"
expect 1 "--load A=$work/dir: '$work/dir' is a directory, not a regular file" "${long[@]}" --load "A=$work/dir"
expect 1 "'$work/fifo' is a FIFO, not a regular file" "${long[@]}" --load "A=$work/fifo"
expect 1 "'/dev/null' is a character device, not a regular file" "${long[@]}" --load A=/dev/null
expect 1 "--load A=$work/missing.raw: '$work/missing.raw' does not exist" "${long[@]}" --load "A=$work/missing.raw"
expect 1 "'$work/short.raw' holds 100 bytes but array A needs $bytes bytes" "${long[@]}" --load "A=$work/short.raw"

# --- --save: the target and its folder checked before the run --------------------------------
expect 1 "--save A=/dev/full: '/dev/full' is a character device, not a regular file" "${long[@]}" --save A=/dev/full
expect 1 "'$work/dir' is a directory, not a regular file" "${long[@]}" --save "A=$work/dir"
expect 1 "'$work/fifo' is a FIFO, not a regular file" "${long[@]}" --save "A=$work/fifo"
expect 1 "--save A=$work/no/such/A.raw: the folder '$work/no/such' does not exist" "${long[@]}" --save "A=$work/no/such/A.raw"
expect 1 "'$work/short.raw' is not a folder" "${long[@]}" --save "A=$work/short.raw/A.raw"
expect 1 "cannot create a file in the folder '/proc'" "${long[@]}" --save A=/proc/stepgen-test.raw
ln -s "$work/nowhere/x.raw" "$work/dangling.raw"
expect 2 "'$work/dangling.raw' is a symbolic link (to $work/nowhere/x.raw); a run writes no file through a link" "${long[@]}" --save "A=$work/dangling.raw"
# (the checks leave nothing behind)
if compgen -G "$work/.*.stepgen-*" > /dev/null || compgen -G "/proc/.stepgen-test.raw.*" > /dev/null; then
  echo "FAIL: a check left a temporary file"; ls -la "$work"; exit 1
fi

# --- a save that works: the new file, with the usual permissions; never through a link ---------
io="$work/io"
mkdir -p "$io"
"$prog" --device-type cpu --devices 1 --steps 1 --quiet --save "A=$io/new.raw"
[ "$(stat -c %s "$io/new.raw")" -eq "$bytes" ] || { echo "FAIL: new.raw has the wrong size"; exit 1; }
[ "$(stat -c %a "$io/new.raw")" = "$(printf '%o' $((0666 & ~$(umask))))" ] ||
  { echo "FAIL: new.raw has mode $(stat -c %a "$io/new.raw")"; exit 1; }
head -c "$bytes" /dev/urandom > "$io/old.raw"
cp "$io/old.raw" "$io/linked.raw"
ln -s linked.raw "$io/link.raw"
expect 2 "--save A=$io/link.raw: '$io/link.raw' is a symbolic link (to linked.raw); a run writes no file through a link" \
  --device-type cpu --devices 1 --steps 1 --quiet --save "A=$io/link.raw"
[ -L "$io/link.raw" ] && cmp -s "$io/linked.raw" "$io/old.raw" ||
  { echo "FAIL: a save onto a symbolic link must leave the link and the file it points to"; exit 1; }
echo "ok: a save writes the array; onto a symbolic link it is refused, the file it points to kept"

# --- a write error (EFBIG: a file size limit, SIGXFSZ ignored): status 1, the old file kept -----
cp "$io/old.raw" "$io/A.raw"
set +e
(trap '' XFSZ; ulimit -f 1024; exec "$prog" --device-type cpu --devices 1 --steps 1 --quiet --save "A=$io/A.raw") \
  > "$work/err.txt" 2>&1
status=$?
set -e
if [ "$status" -ne 1 ] || ! grep -qF "cannot write '$io/A.raw' for array A: File too large (the previous file is unchanged)" "$work/err.txt"; then
  echo "FAIL: a save over the size limit exited $status:"; cat "$work/err.txt"; exit 1
fi
cmp -s "$io/A.raw" "$io/old.raw" || { echo "FAIL: a failed save changed the previous file"; exit 1; }
if compgen -G "$io/.A.raw.stepgen-*" > /dev/null; then echo "FAIL: a failed save left its temporary file"; exit 1; fi
echo "ok: a failed write: $(head -1 "$work/err.txt"); the previous file is intact"

# --- kill -9 in the middle of a save: the previous file survives byte-identical ----------------
# Caught in the act: the program is stopped (SIGSTOP) once a save is under way (a non-empty
# temporary file beside A.raw, or A.raw itself changed), then killed. If the save has finished
# by then (the new file complete under its name), nothing was tested: try again.
mkfifo "$work/tick"
exec {tick}<> "$work/tick"  # read -t on it: a short sleep without a process per poll
caught=0
for attempt in 1 2 3 4 5 6; do
  cp "$io/old.raw" "$io/A.raw"
  rm -f "$io"/.A.raw.stepgen-*
  touch -d '-1 second' "$io/A.raw"
  touch "$io/marker"
  "$prog" --device-type cpu --devices 1 --steps 1 --quiet --save "A=$io/A.raw" &
  pid=$!
  under_way=
  while kill -0 "$pid" 2>/dev/null; do
    for t in "$io"/.A.raw.stepgen-*; do [ -s "$t" ] && under_way=$t; done
    if [ -n "$under_way" ] || [ "$io/A.raw" -nt "$io/marker" ]; then
      under_way=${under_way:-changed}
      break
    fi
    read -t 0.002 -u "$tick" || true
  done
  kill -STOP "$pid" 2>/dev/null || true
  temp_now=
  for t in "$io"/.A.raw.stepgen-*; do [ -s "$t" ] && temp_now=$t; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  [ -n "$under_way" ] || { echo "attempt $attempt: the program ended before the poll saw its save"; continue; }
  if cmp -s "$io/A.raw" "$io/old.raw"; then
    if [ -n "$temp_now" ]; then
      echo "ok: killed with $(stat -c %s "$temp_now") of $bytes bytes in $(basename "$temp_now"): A.raw is the previous file, byte for byte"
      caught=1
      break
    fi
    echo "attempt $attempt: stopped between saves"; continue
  fi
  if cmp -s "$io/A.raw" "$io/new.raw"; then
    echo "attempt $attempt: the save had finished when the program was stopped"; continue
  fi
  echo "FAIL: kill -9 during a save left a partial file under the final name" \
    "($(stat -c %s "$io/A.raw") of $bytes bytes, not the previous file)"
  exit 1
done
[ "$caught" -eq 1 ] || { echo "FAIL: no attempt caught a save in the act"; exit 1; }

# --- no device: what was searched, and how to fix it -----------------------------------------
POCL_DEVICES= expect 1 "no OpenCL device found: every platform has no devices; searched 1 platform:" \
  --device-type cpu --steps 1
grep -qF "POCL_DEVICES" "$work/err.txt" && ! grep -q "devices present:$" "$work/err.txt" ||
  { echo "FAIL: no hint at POCL_DEVICES:"; cat "$work/err.txt"; exit 1; }
echo "ok: POCL_DEVICES='': $(tr '\n' ' ' < "$work/err.txt")"
expect 1 "no OpenCL device matches (type gpu); searched 1 platform:" --device-type gpu --steps 1
grep -qF -- "--device-type cpu (or all) selects the devices listed" "$work/err.txt" || { echo "FAIL: no hint at --device-type"; exit 1; }
expect 1 "no OpenCL device matches (type cpu, platform 'NoSuchVendor'); searched 1 platform:" \
  --device-type cpu --platform NoSuchVendor --steps 1
grep -qF -- "--platform takes a part of a platform's name" "$work/err.txt" || { echo "FAIL: no hint at --platform"; exit 1; }
