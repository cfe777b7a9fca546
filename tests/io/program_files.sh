# Sourced by program_test.sh (its functions, $work, $program, $target), after the straight run
# and ck5 (7 steps: a checkpoint after step 5): the files a run writes (docs/generated.md,
# "Files"; docs/io.md):
#  - a symbolic link at any path the program writes (--save, --checkpoint, the .h5 and .xdmf of
#    an output, a raw output's file, both trace formats) is refused before the run (exit 2),
#    naming the link and its target; the file it points to is unchanged;
#  - the program's inputs (file() initial values, a table's file(), --load's files) are never
#    written: --checkpoint or --save onto one is refused;
#  - a restarted run's series (NAME-from-STEP.h5 and .xdmf) are in the collision check, and the
#    series of the run it resumes may not be written;
#  - a restarted run's traces go to NAME-from-STEP files: the first run's traces keep their rows;
#  - an HDF5 write that fails (a file size limit, EFBIG: the full disk of CI's kind) exits with
#    the error, no SIGSEGV, on every target (OpenCL, CUDA emulation, both under MPI).

# refused NAME PATTERN ARGS...: the run in $work/NAME stops before its first step with an error
# matching PATTERN (status 2; under MPI, any but 0), and the files of `keep` are unchanged.
keep=()
refused() {
  local name=$1 pattern=$2 status=0; shift 2
  (cd "$work/$name" && launch 1 "$@" > log.txt 2>&1) || status=$?
  if [ "$status" -eq 0 ] || { [ "${target%-mpi}" = "$target" ] && [ "$status" -ne 2 ]; } ||
     ! grep -qF -- "$pattern" "$work/$name/log.txt" || grep -q "^time:" "$work/$name/log.txt"; then
    cat "$work/$name/log.txt"; echo "FAIL: $name: expected a refusal matching '$pattern' (status $status)"; exit 1
  fi
  for f in "${keep[@]}"; do
    cmp -s "$f" "$f.keep" || { echo "FAIL: $name: $f was changed"; exit 1; }
  done
}

# --- links: LINK (relative to the run's folder) points to a file of the user's -----------------
printf 'a file of the user, not to be replaced\n' > "$work/mine.dat"
cp "$work/mine.dat" "$work/mine.dat.keep"
keep=("$work/mine.dat")
link_case() {  # link_case NAME LINK ARGS...
  local name=$1 link=$2; shift 2
  rm -rf "${work:?}/$name"
  mkdir -p "$work/$name/$(dirname "$link")"
  ln -s "$work/mine.dat" "$work/$name/$link"
  refused "$name" "'$link' is a symbolic link (to $work/mine.dat); a run writes no file through a link" "$@"
}
link_case link_save s.raw --save p0=s.raw
link_case link_ckpt c.ckpt --checkpoint c.ckpt --checkpoint-every 5
link_case link_h5 snap/wave.h5
link_case link_xdmf snap/wave.xdmf
link_case link_raw raw/p_p1_000006.raw
link_case link_csv trace.csv
link_case link_trace_h5 trace.h5
echo "ok: a symbolic link at a --save, a checkpoint, an output's .h5, .xdmf or raw file, a trace: refused, its target unchanged"

# --- the program's inputs ----------------------------------------------------------------------
for f in vel scale; do cp "$work/spec/data/$f.raw" "$work/spec/data/$f.raw.keep"; done
cp "$work/straight/p0.raw" "$work/p0-input.raw"
cp "$work/p0-input.raw" "$work/p0-input.raw.keep"
keep=("$work/spec/data/vel.raw" "$work/spec/data/scale.raw" "$work/p0-input.raw")
mkdir -p "$work/inputs"
refused inputs "--checkpoint ../spec/data/vel.raw would replace the spec's input file() 'data/vel.raw'" \
  --checkpoint ../spec/data/vel.raw --checkpoint-every 5
refused inputs "--save p0=../spec/data/scale.raw would replace the spec's input file() 'data/scale.raw'" \
  --save p0=../spec/data/scale.raw
refused inputs "--save p1=../p0-input.raw would replace --load p0's file" \
  --load p0=../p0-input.raw --save p1=../p0-input.raw
echo "ok: --checkpoint or --save onto a file() input (an array's, a table's) or a --load file: refused"

# --- a restart: its own series in the collision check, the resumed run's files kept -----------
rm -rf "$work/chain"
cp -r "$work/ck5" "$work/chain"
for f in snap/wave.h5 snap/wave.xdmf trace.csv trace.h5; do cp "$work/chain/$f" "$work/chain/$f.keep"; done
keep=("$work/chain/snap/wave.h5" "$work/chain/snap/wave.xdmf" "$work/chain/trace.csv" "$work/chain/trace.h5")
refused chain "the <output> file 'snap/wave-from-000005.h5' and --save p0=snap/wave-from-000005.h5 would write the same file" \
  --restart run.ckpt --checkpoint-every 0 --save p0=snap/wave-from-000005.h5
refused chain "the XDMF file of <output> 'snap/wave-from-000005.h5' and --checkpoint snap/wave-from-000005.xdmf would write the same file" \
  --restart run.ckpt --checkpoint snap/wave-from-000005.xdmf --checkpoint-every 5
refused chain "--save p0=snap/wave.h5 would replace the series 'snap/wave.h5' of the run this one resumes" \
  --restart run.ckpt --checkpoint-every 0 --save p0=snap/wave.h5
refused chain "--save p0=trace.csv would replace the trace 'trace.csv' of the run this one resumes" \
  --restart run.ckpt --checkpoint-every 0 --save p0=trace.csv
echo "ok: a restart's series in the collision check; the resumed run's series and traces not written"

# --- a restart's traces: files of their own, the first run's rows kept --------------------------
(cd "$work/chain" && launch 1 --restart run.ckpt --checkpoint-every 0 > log.txt 2>&1) ||
  { cat "$work/chain/log.txt"; echo "FAIL: the restart in the first run's folder failed"; exit 1; }
for f in "${keep[@]}"; do cmp -s "$f" "$f.keep" || { echo "FAIL: the restart changed the first run's $f"; exit 1; }; done
[ "$(cut -d, -f1 "$work/chain/trace.csv" | tr '\n' ' ')" = "step 1 3 5 " ] ||
  { cat "$work/chain/trace.csv"; echo "FAIL: the first run's trace.csv"; exit 1; }
[ "$(awk -F, 'NR > 1 && $1 >= 5' "$work/straight/trace.csv")" = "$(tail -n +2 "$work/chain/trace-from-000005.csv")" ] ||
  { cat "$work/chain/trace-from-000005.csv"; echo "FAIL: trace-from-000005.csv is not the straight run's rows from step 5"; exit 1; }
$check trace "$work/chain/trace-from-000005.h5" "$work/chain/trace-from-000005.csv" p2 2
$check series "$work/straight/snap/wave.h5" "$work/chain/snap/wave-from-000005.h5" 8,12,14
echo "ok: a restart's traces in trace-from-000005.csv and .h5 (rows from step 5), the first run's kept"

# --- a failed HDF5 write: exit 1 with the error, no crash --------------------------------------
# Every target (issue 50 item 7 was found on the CUDA program; OpenCL and MPI share the writer,
# MPI through parallel HDF5). A file size limit of the program's own process (MPI: set inside
# the rank, so that mpirun's PMIx files are not limited) stands in for a full disk, with SIGXFSZ
# ignored (a full disk sends no signal: the write fails with an error). 2400 KiB: above what
# PoCL's compiler writes for these kernels, below the series of 80 steps (about 50 KiB a step).
mkdir -p "$work/full"
status=0
limited='trap "" XFSZ; ulimit -f 2400; exec "$0" "$@"'
case $target in
  opencl) (cd "$work/full" && POCL_DEVICES=pthread sh -c "$limited" "$program" --device-type cpu --devices 1 \
             --checkpoint-every 0 --steps 80 > log.txt 2>&1) || status=$? ;;
  opencl-mpi) (cd "$work/full" && POCL_DEVICES=pthread stepgen_mpirun 1 sh -c "$limited" "$program" \
                 --device-type cpu --checkpoint-every 0 --steps 80 > log.txt 2>&1) || status=$? ;;
  cuda-emu-mpi) (cd "$work/full" && STEPGEN_CUDA_EMULATE=1 stepgen_mpirun 1 sh -c "$limited" "$program" \
                   --checkpoint-every 0 --steps 80 > log.txt 2>&1) || status=$? ;;
  *) (cd "$work/full" && STEPGEN_CUDA_EMULATE=1 sh -c "$limited" "$program" --devices 1 \
        --checkpoint-every 0 --steps 80 > log.txt 2>&1) || status=$? ;;
esac
if [ "$status" -eq 0 ] || [ "$status" -ge 128 ] ||
   ! grep -qE "error: .*cannot write snapshot file 'snap/wave.h5' \(step [0-9]+, array [a-z0-9]+\): H5Dwrite .* failed" "$work/full/log.txt" ||
   grep -q "stopped after an earlier error" "$work/full/log.txt"; then
  cat "$work/full/log.txt"; echo "FAIL: a failed HDF5 write ($target): status $status (expected an error exit, the error once)"; exit 1
fi
case $target in *mpi) ;; *) [ "$status" -eq 1 ] || { cat "$work/full/log.txt"; echo "FAIL: a failed HDF5 write: status $status, not 1"; exit 1; } ;; esac
echo "ok: an HDF5 write past a file size limit ($target): exit $status, the error named once"
