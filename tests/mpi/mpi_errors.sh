# Sourced by mpi_test.sh for jacobi2d ($out/build/jacobi2d is the MPI program, $work a scratch
# folder): each case must fail (non-zero exit) within the time limit and print its message.
prog="$out/build/$example"
expect_failure() {  # expect_failure "MESSAGE PART" RANKS DEVICES ARGS...   (ARGS may use ':' MPMD)
  local want=$1 n=$2 devices=$3
  shift 3
  set +e
  POCL_DEVICES="$devices" stepgen_mpirun "$n" "$@" > "$work/err.txt" 2>&1
  local status=$?
  set -e
  if [ "$status" -eq 0 ] || [ "$status" -eq 124 ] || ! grep -qF -- "$want" "$work/err.txt"; then
    echo "FAIL: mpirun -np $n $* exited $status (124: timed out); expected a failure and '$want' in:"
    cat "$work/err.txt"
    exit 1
  fi
  echo "ok: mpirun -np $n ${*#$prog} fails ($status) with: $(grep -F -- "$want" "$work/err.txt" | head -1)"
}
expect_once() {  # the message must appear once (rank 0 reports errors every rank meets alike)
  local count
  count=$(grep -cF -- "$1" "$work/err.txt")
  [ "$count" -eq 1 ] || { echo "FAIL: '$1' printed $count times"; cat "$work/err.txt"; exit 1; }
}

# More ranks on a node than devices there.
expect_failure "3 ranks run on node $(hostname) but only 2 OpenCL device(s) match there (type cpu): start at most one rank per device" \
  3 "pthread pthread" "$prog" --device-type cpu
# One rank fails alone (its node has no OpenCL driver) while the other waits in a collective:
# the failing rank names itself and aborts the job.
expect_failure "rank 1 of 2 on $(hostname): no OpenCL platform found" \
  1 "pthread pthread" "$prog" --device-type cpu : -np 1 env OCL_ICD_VENDORS=/nonexistent "$prog" --device-type cpu
# Ranks started with different options (they would wait for each other forever).
expect_failure "rank 1 of 2 on $(hostname): started with other arguments than rank 0" \
  1 "pthread pthread" "$prog" --device-type cpu --steps 100 : -np 1 "$prog" --device-type cpu --steps 10
# Errors every rank meets alike: reported once by rank 0, exit status 1, no abort.
expect_failure "unknown option '--bogus'" 2 "pthread pthread" "$prog" --bogus
expect_once "unknown option '--bogus'"
expect_failure "--weights gives 3 weights for 2 ranks (one per rank)" 2 "pthread pthread" "$prog" --weights 1,2,3
expect_once "--weights gives 3 weights"
expect_failure "--device-memory expects a size" 2 "pthread pthread" "$prog" --device-memory lots
expect_once "--device-memory expects a size"
# Files read and written by MPI-IO.
expect_failure "--load A=$work/missing.raw: '$work/missing.raw' does not exist" 2 "pthread pthread" "$prog" \
  --device-type cpu --load "A=$work/missing.raw"
expect_once "does not exist"
head -c 100 /dev/zero > "$work/short.raw"
expect_failure "'$work/short.raw' holds 100 bytes but array A needs 3145728" 2 "pthread pthread" "$prog" \
  --device-type cpu --load "A=$work/short.raw"
# --save targets are checked by rank 0 before the devices and the run (a run of 10^9 steps that
# got past the checks would time out), reported once.
expect_failure "--save A=$work/no/such/dir/A.raw: the folder '$work/no/such/dir' does not exist" 2 "pthread pthread" \
  "$prog" --device-type cpu --steps 1000000000 --save "A=$work/no/such/dir/A.raw"
expect_once "does not exist"
expect_failure "--save A=/dev/full: '/dev/full' is a character device, not a regular file" 2 "pthread pthread" \
  "$prog" --device-type cpu --steps 1000000000 --save A=/dev/full
expect_once "is a character device"
# A bad command line is a usage error: status 2 from every rank, reported once.
expect_usage() {  # expect_usage "MESSAGE PART" DEVICES ARGS...   (on 2 ranks)
  local want=$1 devices=$2 status
  shift 2
  set +e
  POCL_DEVICES="$devices" stepgen_mpirun 2 "$prog" "$@" > "$work/err.txt" 2>&1
  status=$?
  set -e
  if [ "$status" -ne 2 ] || ! grep -qF -- "$want" "$work/err.txt"; then
    echo "FAIL: $* on 2 ranks exited $status (expected 2):"; cat "$work/err.txt"; exit 1
  fi
  expect_once "$want"
  echo "ok: mpirun -np 2 $* exits 2 with: $(head -1 "$work/err.txt")"
}
expect_usage "--devices expects an integer from 1 to 2147483647, got '4294967297'" "pthread pthread" \
  --devices 4294967297
# --devices N gives each rank N devices (issue 51): too few on the node, out of core (a rank
# with several parts runs in core only) and --parts fewer than the devices are clear errors.
expect_failure "2 ranks of 2 devices each run on node" 2 "pthread pthread pthread" "$prog" \
  --device-type cpu --devices 2
expect_failure "2 parts a rank (--devices, --parts): a rank with several parts runs in core only, and this run goes out of core (--out-of-core on)" \
  2 "pthread pthread pthread pthread" "$prog" --device-type cpu --devices 2 --out-of-core on
expect_once "a rank with several parts runs in core only"
expect_usage "--parts 1 is fewer than the 2 devices of a rank" "pthread pthread pthread pthread" \
  --device-type cpu --devices 2 --parts 1

# --load through MPI-IO: a saved state loaded back continues the run exactly (50 + 50 = 100 steps).
half="$work/half"
rm -rf "$half" && mkdir -p "$half"
POCL_DEVICES="pthread pthread pthread" stepgen_mpirun 3 "$prog" --device-type cpu --quiet --steps 50 \
  --save "A=$half/A.raw" --save "B=$half/B.raw"
POCL_DEVICES="pthread pthread" stepgen_mpirun 2 "$prog" --device-type cpu --quiet --steps 50 \
  --load "A=$half/A.raw" --load "B=$half/B.raw" --save "A=$half/A100.raw" --verify > "$half/log.txt"
grep -q "verify: OK" "$half/log.txt" || { cat "$half/log.txt"; echo "FAIL: --load --verify"; exit 1; }
cmp "$half/A100.raw" "$refdir/A.raw" || { echo "FAIL: 50 steps, saved, loaded and 50 more differ from 100 steps"; exit 1; }
# The saves replaced nothing but their own files, atomically: no temporary file is left.
if compgen -G "$half/.*.stepgen-*" > /dev/null; then echo "FAIL: a save left a temporary file"; ls -la "$half"; exit 1; fi
# A save over an existing file replaces it (MPI-IO into a temporary file, renamed).
head -c 3145728 /dev/urandom > "$half/again.raw"
POCL_DEVICES="pthread pthread" stepgen_mpirun 2 "$prog" --device-type cpu --quiet --steps 50 \
  --load "A=$half/A.raw" --load "B=$half/B.raw" --save "A=$half/again.raw"
cmp "$half/again.raw" "$refdir/A.raw" || { echo "FAIL: a save over an existing file"; exit 1; }
echo "ok: 50 steps on 3 ranks, saved, loaded on 2 ranks, 50 more: equal to the reference's 100 steps"

# The generator: the CUDA target writes MPI programs too (tests/cuda/mpi_compile_test.sh builds them).
"$stepgen" generate "$src/examples/jacobi2d/jacobi2d.xml" --target cuda --distribution mpi -o "$work/cuda-mpi" \
  > "$work/gen.txt" 2>&1 || { echo "FAIL: --target cuda --distribution mpi:"; cat "$work/gen.txt"; exit 1; }
if ! grep -q '#include "stepgen/exec/engine_mpi_cuda.hpp"' "$work/cuda-mpi/jacobi2d.cu" || ! grep -q 'rt::Ranks<Backend, cuda::MpiRank>' "$work/cuda-mpi/jacobi2d.cu" ||
   ! grep -q 'find_package(MPI REQUIRED COMPONENTS CXX)' "$work/cuda-mpi/CMakeLists.txt" ||
   [ ! -f "$work/cuda-mpi/runtime/stepgen/exec/mpi_cuda.hpp" ]; then
  echo "FAIL: --target cuda --distribution mpi did not write the CUDA MPI program"; exit 1
fi
echo "ok: --target cuda --distribution mpi writes the CUDA MPI program"
