// The runtime's side of every generated CUDA program, for tests/cuda_emu/build.sh: the headers a
// generated program includes, and its entry points declared `extern template`, so a program's
// own file does not instantiate them. prebuilt.cpp instantiates them once per compiler and flags
// (the program links that object), and this header is precompiled with the same flags: a
// program builds in a few seconds instead of 20-30 (CI time; no result changes, the same
// headers are compiled with the same flags).
#ifndef STEPGEN_EMU_PREBUILT_HPP
#define STEPGEN_EMU_PREBUILT_HPP
#include "stepgen_cuda_emu.hpp"
// clang-format off
#include "stepgen/cuda.hpp"
#include "stepgen/engine_cuda.hpp"
#include "stepgen/exchange.hpp"
#include "stepgen/init.hpp"
#include "stepgen/main.hpp"
#include "stepgen/ooc.hpp"
#include "stepgen/ooc_cuda.hpp"
#include "stepgen/partition.hpp"
#include "stepgen/probe.hpp"
#include "stepgen/program.hpp"
#include "stepgen/tables_cuda.hpp"
// clang-format on
#ifdef STEPGEN_EMU_PREBUILT_MPI
#include "stepgen/engine_mpi_cuda.hpp"
#include "stepgen/mpi_main.hpp"
#endif
extern template class stepgen::rt::InCore<stepgen::cuda::Backend>;
extern template class stepgen::rt::ChunkRun<stepgen::cuda::Backend>;
#ifdef STEPGEN_EMU_PREBUILT_MPI
extern template class stepgen::rt::InCore<stepgen::cuda::Backend, stepgen::cuda::MpiRank::State>;
extern template int stepgen::rt::run_mpi_main<stepgen::cuda::Backend, stepgen::cuda::MpiRank>(
    int, char**, const stepgen::rt::Program<stepgen::cuda::Backend>&,
    void (*)(stepgen::rt::RankRun<stepgen::cuda::Backend, stepgen::cuda::MpiRank>&, std::int64_t));
#else
extern template int stepgen::rt::run_program<stepgen::cuda::Backend>(
    int, char**, stepgen::rt::Program<stepgen::cuda::Backend>);
#endif
#endif
