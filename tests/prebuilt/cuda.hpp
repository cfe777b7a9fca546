// The runtime's side of every generated CUDA program (tests/prebuilt/prebuilt.sh): the headers a
// generated program includes, and the engine's entry points over the CUDA backend declared
// `extern template`, so that a program's own file does not instantiate them; cuda.cpp
// instantiates them once per compiler and flags, and every program links that object. With
// nvcc (tests/cuda) and on the CPU emulation (tests/cuda_emu/build.sh, which includes the
// emulation first). STEPGEN_PREBUILT_MPI: the MPI program's entry points.
#ifndef STEPGEN_PREBUILT_CUDA_HPP
#define STEPGEN_PREBUILT_CUDA_HPP
// clang-format off
#include "stepgen/exec/cuda.hpp"
#include "stepgen/exec/engine_cuda.hpp"
#include "stepgen/plan/exchange.hpp"
#include "stepgen/description/init.hpp"
#include "stepgen/exec/main.hpp"
#include "stepgen/exec/ooc.hpp"
#include "stepgen/exec/ooc_cuda.hpp"
#include "stepgen/plan/partition.hpp"
#include "stepgen/exec/probe.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/exec/tables_cuda.hpp"
// clang-format on
#ifdef STEPGEN_PREBUILT_MPI
#include "stepgen/exec/engine_mpi_cuda.hpp"
#include "stepgen/exec/ranks.hpp"
#endif
extern template class stepgen::rt::InCore<stepgen::cuda::Backend>;
extern template class stepgen::rt::ChunkRun<stepgen::cuda::Backend>;
#ifdef STEPGEN_PREBUILT_MPI
extern template class stepgen::rt::InCore<stepgen::cuda::Backend, stepgen::cuda::MpiRank::State>;
extern template int stepgen::rt::main_program<
    stepgen::rt::Ranks<stepgen::cuda::Backend, stepgen::cuda::MpiRank>, stepgen::cuda::Backend>(
    int, char**, const stepgen::rt::Program<stepgen::cuda::Backend>&,
    void (*)(stepgen::rt::InCore<stepgen::cuda::Backend, stepgen::cuda::MpiRank::State>&,
             std::int64_t));
#else
extern template int
stepgen::rt::main_program<stepgen::rt::OneProcess<stepgen::cuda::Backend>, stepgen::cuda::Backend>(
    int, char**, const stepgen::rt::Program<stepgen::cuda::Backend>&,
    void (*)(stepgen::rt::InCore<stepgen::cuda::Backend>&, std::int64_t));
#endif
#endif
