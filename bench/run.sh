#!/usr/bin/env bash
# The benchmarks and the GPU checks: one entry, in phases. The GPU machine has nvcc, cmake,
# mpirun and g++ but not the generator's libraries: the programs are generated HERE into
# bench/generated/ (ignored by git) and that folder is carried to the GPU machine, where the
# other phases build and run them from the repository root.
#
#   bench/run.sh PHASE [ARG...] [PHASE [ARG...]]...
#
# Phases run HERE (a built stepgen: build/stepgen, or STEPGEN=path):
#   generate            the CUDA trees of every example and every bench/specs/*.xml, and the MPI
#                       CUDA trees of the examples and jacobi2d_16384, into bench/generated/
#   prepare             generate, then the OpenCL programs built here (the GPU image has no OpenCL
#                       headers): every example and jacobi2d_16384, acoustic_1160, acoustic_1750
#                       with the serial references, the hand-written OpenCL loop and the ICD
#                       loader (bench/generated/opencl/), and the MPI OpenCL programs with their
#                       sources (bench/generated/opencl-mpi/)
#   unseen-generate     the programs of the `unseen` phase and the PoCL reference run
#   difftest-generate N SEED [NOCL] [NMPI]   N random programs for the `difftest` phase
#   local emulate|acoustic-omp|nvcc|tables WORK [...]   what runs without a GPU (ctest label bench)
#   trapezoid-cpu [BUILD_DIR]  out-of-core chunk steps on a PoCL CPU device (REPS)
#   replay FOLDER...    the out-of-core model replayed on the logs of GPU runs (OLD=REV)
#   sim-generate [BUILD_DIR]  the programs of `sim` (CUDA trees; OpenCL built here)
#   tts-generate [BUILD_DIR]  only the programs of `oocauto` and `localsweep` (a small carry:
#                       bench/generated/tts)
#   fpcontract-generate  the programs of `fpcontract` (bench/generated/fpcontract)
#   untilstop-generate  the programs of `untilstop` and their expected files (PoCL)
#   maskprobe-generate  the programs of `maskprobe` and their expected files (PoCL)
#   boundcoef-generate  the programs of `boundcoef` and their expected files (PoCL)
#   vecwrap-generate    the programs of `vecwrap` and their expected files (PoCL)
#   probeblind-generate the programs of `probeblind` and their serial references' arrays
#   mpiskew-generate    the MPI CUDA programs of `mpiskew`
#   oocmixed-generate   the programs of `oocmixed` (CUDA and OpenCL trees, OpenCL headers)
#   parts-generate      the programs of `parts` (OLD_STEPGEN=path: also the previous revision's)
# Phases run ON THE GPU MACHINE (carry bench/generated):
#   build               builds every carried CUDA tree, the serial references and the hand-
#                       written CUDA baselines, in parallel (each phase builds what it lacks)
#   check               every example, CUDA, on 1 GPU and all GPUs (peer and host staging),
#                       against the serial references; compute-sanitizer; error paths; Jacobi 16384^2
#   incore              the CUDA in-core benchmarks: 1 GPU against the hand-written loops, 2-GPU
#                       efficiency, strong and weak scaling on 4 and 8 GPUs (MAX_GPUS, REPS, HREPS)
#   opencl              the OpenCL programs on NVIDIA's OpenCL against the serial references,
#                       Jacobi 16384^2 against the hand-written OpenCL loop
#   ooc                 out of core, CUDA: acoustic 1750^3 and 1160^3 (model, sweep, naive, in
#                       core, 16-thread OpenMP)
#   ooc-opencl [PART...]  out of core through OpenCL and CUDA, PARTs (default opencl): opencl big
#                       cuda sweep incore budget (ROWS=0: checks only)
#   ooc-2gpu            out of core on 1 and 2 GPUs at once (SWEEP=0, TIMING=0)
#   multi-gpu           every example on all GPUs --verify (peer, host), the partition strategies
#                       and out of core on all GPUs (a 4-GPU machine)
#   mpi                 MPI + CUDA: every example on 1, 2, 3 ranks, both message paths; Jacobi
#                       16384^2 on 2 ranks against one process on 2 GPUs
#   mpi-opencl          MPI + OpenCL: every example on 2 ranks; Jacobi 16384^2 on 2 ranks
#   blocks [ARGS]       launch shapes of the unmodified acoustic kernel (bench/cuda/acoustic_blocks.cu)
#   reduce [NX NY N3 REPS]  exact device reductions (CUDA; OpenCL after `prepare`): each op over
#                       16384^2 floats and 1160^3 doubles vs a plain sum and the peak bandwidth
#   unseen              kernels we never wrote (wave2k) and every example, every one-GPU mode
#   difftest            the random programs of difftest-generate, every mode one GPU allows
#   new-examples        grayscott, seismic and tables (CUDA, 1 GPU) against their references
#   oocauto             --out-of-core auto on data that fits: Jacobi 16384^2 (1000, 100 steps),
#                       acoustic 512^3 (500), wave2k 512^3 (40) in core, out of core and auto,
#                       predicted vs measured; whole run vs kernels + bytes / link
#   setupcost           the fixed cost of an in-core run: time: and kernels: at --steps 0, 1, 2, N
#                       (Jacobi 16384^2, wave2k 512^3, acoustic 512^3), CUDA lazy vs eager module loading
#   loadcopy            --load A with B = copy(A) on Jacobi 16384^2: B made on the device, on the
#                       host, out of core, auto out of core: the same A (after tts-generate)
#   localsweep          launch shapes: the spec's, <local size="auto"/>'s and a hand sweep
#                       (--local) on acoustic, heat 512^3, Jacobi 16384^2, acoustic 1160^3 out of core
#   sim                 periodic boundaries, l2 norm, snapshots and checkpoints on Jacobi 16384^2:
#                       their cost against fixed boundaries, both backends
#   l2cost              l2 every 100 steps on Jacobi 16384^2 against the same without, both
#                       backends, alternating runs (after SIM_ONLY="jacobi2d_16384 jacobi_l2"
#                       sim-generate)
#   fpcontract          B = A * C + D with no contraction pragma in the OpenCL file: CUDA and
#                       NVIDIA's OpenCL round twice, as the serial reference (after fpcontract-generate)
#   untilstop           a run an `until` stops (receivers, last="true"), CUDA: one GPU and 2 MPI
#                       ranks, in core and out of core, against PoCL (after untilstop-generate)
#   boundcoef           periodic boundaries with a coefficient read without a halo, CUDA: in core, deep
#                       halos, out of core, 2 MPI ranks: PoCL's bits (after boundcoef-generate)
#   vecwrap             float4 kernels (parts cut at multiples of 4, out of core refused along x
#                       in 1D) and a kernel wrapping its buffer (refused), CUDA (after vecwrap-generate)
#   probeblind          a masked LBM, a seidel-2d wavefront, PolyBench adi: too-small halos refused
#                       by the start-up probe, right ones the serial bits, CUDA (after probeblind-generate)
#   mpiskew             the MPI out-of-core model on small runs (2 ranks, k = 1 and 2): predicted
#                       against measured and the pass boundaries' cost (after mpiskew-generate)
#   mpidevices          MPI ranks of several GPUs (--devices 2 per rank): 1x1, 2x1, 1x2, 2x2 of
#                       every example, bit for bit against 1x1 (after mpiskew-generate)
#   maskprobe           the start-up probe on a land/sea-mask kernel and an upwind kernel, CUDA: an
#                       undersized halo refused, the right one PoCL's bits in and out of core (after
#                       maskprobe-generate)
#   oocmixed            <boundary> kinds differing along a dimension out of core, CUDA and
#                       NVIDIA OpenCL: k = 2, 3, 4 and the model's against in core on 1 GPU,
#                       2 GPUs, 2 MPI ranks (after oocmixed-generate; BACKENDS=ocl
#                       OCL_DEVICE_TYPE=cpu: the OpenCL part on PoCL)
#   parts               --parts: the price of a part (Jacobi 16384^2 on 1, 2, 4, 8 parts of the
#                       GPU, acoustic 512^3 on 1 and 8), bits of 3 and 8 parts against 1, Jacobi
#                       against the hand-written loop, acoustic 1160^3 out of core at 20 GiB,
#                       each against the previous revision (after parts-generate)
#   restart             checkpoint/restart of Jacobi 16384^2 (in core, out of core, a corrupted
#                       file) and grayscott's CUDA MPI program on 2-3 ranks sharing the GPU
# Anywhere:
#   table               the table of every phase whose output is in $OUT (PHASE.txt: several
#                       phases run in one call, e.g. unpacked here)
#
# Output: one phase writes its logs to $OUT (default /tmp/out) and prints its table last. Several
# phases in one call: each writes its logs to $OUT/PHASE/ and its output to $OUT/PHASE.txt, and
# the tables of all come last. PACK=1: the logs go to /tmp/bench-logs/ and come back packed as
# $OUT/logs.tgz (the device tool brings back a few files only). TIMEOUT=SECONDS limits each
# GPU phase. The exit status is the first failing phase's (every phase runs).
# Common environment: CUDA_ARCH (default native), WORK (builds, default /tmp/stepgen-bench),
# REPS, MPIRUN_FLAGS; each phase's file under bench/phases/ says the rest.
set -u
here=$(cd "$(dirname "$0")" && pwd)
phases=$here/phases

usage() {
  sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# Which file runs a phase and with which leading arguments; "here" phases take no $OUT.
declare -A file=(
  [generate]=generate.sh [prepare]=prepare.sh [unseen-generate]=unseen.sh
  [difftest-generate]=difftest.sh [local]=local.sh [trapezoid-cpu]=trapezoid_cpu.sh [replay]=replay.sh
  [sim-generate]=sim_generate.sh [sim]=sim.sh [l2cost]=l2cost.sh [new-examples]=newex.sh
  [build]=build.sh [check]=check.sh [incore]=incore.sh [opencl]=opencl.sh [ooc]=ooc.sh
  [ooc-opencl]=ooc_opencl.sh [ooc-2gpu]=ooc_2gpu.sh [multi-gpu]=multi_gpu.sh [mpi]=mpi.sh
  [mpi-opencl]=mpi_opencl.sh [unseen]=unseen.sh [difftest]=difftest.sh [blocks]=blocks.sh [reduce]=reduce.sh
  [oocauto]=oocauto.sh [restart]=restart.sh [table]=-
  [tts-generate]=tts_generate.sh [localsweep]=localsweep.sh [setupcost]=setupcost.sh
  [loadcopy]=loadcopy.sh [fpcontract-generate]=fpcontract.sh [fpcontract]=fpcontract.sh
  [untilstop-generate]=untilstop.sh [untilstop]=untilstop.sh
  [maskprobe-generate]=maskprobe.sh [maskprobe]=maskprobe.sh
  [boundcoef-generate]=boundcoef.sh [boundcoef]=boundcoef.sh
  [vecwrap-generate]=vecwrap.sh [vecwrap]=vecwrap.sh
  [probeblind-generate]=probeblind.sh [probeblind]=probeblind.sh
  [mpiskew-generate]=mpiskew.sh [mpiskew]=mpiskew.sh [mpidevices]=mpidevices.sh
  [oocmixed-generate]=oocmixed.sh [oocmixed]=oocmixed.sh
  [parts-generate]=parts.sh [parts]=parts.sh)
declare -A lead=([unseen-generate]=generate [difftest-generate]=generate [unseen]=run [difftest]=run
  [fpcontract-generate]=generate [untilstop-generate]=generate [maskprobe-generate]=generate
  [boundcoef-generate]=generate [vecwrap-generate]=generate [mpiskew-generate]=generate
  [probeblind-generate]=generate [oocmixed-generate]=generate [parts-generate]=generate)
is_here() {
  case $1 in generate | prepare | unseen-generate | difftest-generate | sim-generate | local | trapezoid-cpu | replay | fpcontract-generate | untilstop-generate | maskprobe-generate | boundcoef-generate | vecwrap-generate | mpiskew-generate | probeblind-generate | oocmixed-generate | parts-generate) return 0 ;; esac
  [ "$1" = tts-generate ] && return 0
  return 1
}

# Split the command line into phases, each with the arguments that follow it.
names=() argv=()
for a in "$@"; do
  if [ -n "${file[$a]:-}" ]; then
    names+=("$a") argv+=("")
  elif [ ${#names[@]} -eq 0 ]; then
    echo "bench/run.sh: unknown phase '$a'" >&2
    usage
  else
    argv[-1]+="${argv[-1]:+$'\x1f'}$a"
  fi
done
[ ${#names[@]} -gt 0 ] || usage

out=${OUT:-/tmp/out}
export OUT=$out
table() {  # table [PHASE...]: the table of each PHASE.txt in $OUT (default: every *.txt there): the
  # phases print their table last, after an empty line; else its last 30 lines
  local f n files=()
  if [ $# -gt 0 ]; then for n in "$@"; do files+=("$out/$n.txt"); done; else files=("$out"/*.txt); fi
  for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    n=$(grep -n '^$' "$f" | tail -1 | cut -d: -f1)
    echo "==== $(basename "$f" .txt)"
    if [ -n "$n" ] && [ $(($(wc -l <"$f") - n)) -lt 200 ]; then tail -n +"$n" "$f"; else tail -30 "$f"; fi
  done
}

status=0
several=$([ ${#names[@]} -gt 1 ] && echo 1)
ran=()
for i in "${!names[@]}"; do
  name=${names[$i]}
  args=()
  [ -n "${argv[$i]}" ] && IFS=$'\x1f' read -r -a args <<<"${argv[$i]}"
  [ -n "${lead[$name]:-}" ] && args=("${lead[$name]}" "${args[@]}")
  if [ "$name" = table ]; then
    table
    continue
  fi
  cmd=(bash "$phases/${file[$name]}" "${args[@]}")
  if is_here "$name" || { [ -z "$several" ] && [ -z "${PACK:-}" ]; }; then
    # One phase (or a phase run here): as the phase's own script, logs straight into $OUT.
    if ! is_here "$name" && [ -n "${TIMEOUT:-}" ]; then cmd=(timeout "$TIMEOUT" "${cmd[@]}"); fi
    "${cmd[@]}"
    s=$?
  else
    logs=$out/$name
    mkdir -p "$out"
    [ -n "${PACK:-}" ] && logs=/tmp/bench-logs/$name && rm -rf "$logs"
    mkdir -p "$logs"
    [ -n "${TIMEOUT:-}" ] && cmd=(timeout "$TIMEOUT" "${cmd[@]}")
    start=$SECONDS
    echo "== bench/run.sh: $name ${args[*]} (logs in $logs)"
    OUT=$logs "${cmd[@]}" >"$out/$name.txt" 2>&1
    s=$?
    echo "   $name: exit $s, $((SECONDS - start)) s"
    ran+=("$name")
  fi
  [ "$s" -ne 0 ] && [ "$status" -eq 0 ] && status=$s
done
if [ ${#ran[@]} -gt 0 ]; then
  [ -n "${PACK:-}" ] && tar czf "$out/logs.tgz" -C /tmp/bench-logs . && echo "logs: $out/logs.tgz"
  echo
  table "${ran[@]}"
fi
exit "$status"
