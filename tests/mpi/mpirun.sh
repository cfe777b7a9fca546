# Sourced by the MPI tests: stepgen_mpirun N PROGRAM ARGS... runs N ranks on this machine with
# a bounded wall time (a hang fails the test instead of stalling CI).
mpirun_flags=(--oversubscribe -x POCL_DEVICES -x POCL_MAX_PTHREAD_COUNT)
[ "$(id -u)" -eq 0 ] && mpirun_flags+=(--allow-run-as-root)
# Few cores, several ranks: waiting ranks yield the processor instead of spinning.
export OMPI_MCA_mpi_yield_when_idle=1
export POCL_MAX_PTHREAD_COUNT=${POCL_MAX_PTHREAD_COUNT:-1}
# Each job gets its own session folder: Open MPI 4.1 creates /tmp/ompi.HOST.UID with a racy
# mkdir, and two jobs starting at once (ctest -j) could fail with "File exists".
stepgen_mpirun() {
  local n=$1 tmp status=0
  shift
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/stepgen-mpi.XXXXXX")
  OMPI_MCA_orte_tmpdir_base=$tmp timeout 120 mpirun "${mpirun_flags[@]}" -np "$n" "$@" || status=$?
  rm -rf "$tmp"
  return "$status"
}
