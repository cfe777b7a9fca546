#pragma once
/// \file
/// Out-of-core execution, the backend-neutral part (namespace stepgen::rt::ooc; this header
/// includes all of it): what a generated program runs when its
/// arrays (with ghosts) do not fit the device memory budget. Each device part is streamed
/// through its device in chunks of planes along the slowest dimension (extended PACC, Shen et
/// al. 2020, Algorithm 1):
///
/// - Temporal blocking with overlapped tiling: a pass runs k = steps_per_pass steps on each
///   chunk. A chunk is loaded with k * halo extra cells around its own planes (along every
///   dimension where its part has neighbours, clipped at the grid); each step's valid region
///   shrinks by one step's halo, so after k steps exactly its own planes are valid.
/// - Region sharing: a chunk after the first receives only its remnant from the host; the
///   planes it shares with the previous chunk are copied on the device from that chunk's buffer
///   before its kernels overwrite it.
/// - Pipelining: `buffers` (>= 3) buffer slots per array; loads, kernels and stores of
///   different chunks run on three streams ordered by events only (`ooc::ops` below).
/// - Several parts: each streams its own chunks; at each pass boundary the cells a part reads
///   from its neighbours (`ooc::Part::foreign`) are snapshot from the host arrays, which hold
///   every part's results: that is the halo exchange between parts. In an MPI program (one
///   part per rank) those cells come by messages first (`ooc::foreign_plan`).
///
/// The host arrays keep their names: chunk loads read host array `a` into the slot's current
/// buffer of `a`, the kernels' swap/rotate rename the slot's buffers, and stores write each
/// name's own cells back to host array `a`. Read-only arrays are loaded, never stored.
///
/// Hazards the schedule rules out (tested in tests/runtime/ooc_test.cpp): a store never
/// overwrites host cells a later load of the same pass still has to read (without region
/// sharing, chunk c's store waits for chunk c+1's load; chunks must own at least halo * k
/// planes so that no other load reaches them), and a load of the next pass waits for the stores
/// of the planes it reads. Standard library only.
///
/// The parts, one header each under stepgen/exec/ooc/: options.hpp (the flags), schedule.hpp
/// (chunks and their boxes), foreign.hpp (the cells parts read from each other), pipeline.hpp (the
/// commands and their order), model.hpp (the prediction and the chooser), calibrate.hpp (the
/// start-up measurements), report.hpp (what a run did), plan.hpp (a program's request and
/// plan), runner.hpp (the one runner, over a backend's operations).

#include "stepgen/exec/ooc/calibrate.hpp"
#include "stepgen/exec/ooc/foreign.hpp"
#include "stepgen/exec/ooc/options.hpp"
#include "stepgen/exec/ooc/plan.hpp"
#include "stepgen/exec/ooc/report.hpp"
#include "stepgen/exec/ooc/runner.hpp"
#include "stepgen/plan/ooc/choice.hpp"
#include "stepgen/plan/ooc/model.hpp"
#include "stepgen/plan/ooc/pipeline.hpp"
#include "stepgen/plan/ooc/schedule.hpp"
