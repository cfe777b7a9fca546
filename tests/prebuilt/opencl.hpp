// The runtime's side of every generated OpenCL program (tests/prebuilt/prebuilt.sh): the headers
// a generated program includes, and the engine's entry points over the OpenCL backend declared
// `extern template`, so that a program's own file does not instantiate them; opencl.cpp
// instantiates them once per compiler and flags, every program links that object, and this
// header is precompiled with the program's flags. STEPGEN_PREBUILT_MPI: the MPI program's.
#ifndef STEPGEN_PREBUILT_OPENCL_HPP
#define STEPGEN_PREBUILT_OPENCL_HPP
// clang-format off
#include "stepgen/exec/engine_opencl.hpp"
#include "stepgen/plan/exchange.hpp"
#include "stepgen/description/init.hpp"
#include "stepgen/exec/main.hpp"
#include "stepgen/exec/ooc.hpp"
#include "stepgen/exec/ooc_opencl.hpp"
#include "stepgen/exec/opencl.hpp"
#include "stepgen/plan/partition.hpp"
#include "stepgen/exec/probe.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/exec/tables_opencl.hpp"
// clang-format on
#ifdef STEPGEN_PREBUILT_MPI
#include "stepgen/exec/engine_mpi_opencl.hpp"
#include "stepgen/exec/ranks.hpp"
#endif
extern template class stepgen::rt::InCore<stepgen::cl::Backend>;
extern template class stepgen::rt::ChunkRun<stepgen::cl::Backend>;
#ifdef STEPGEN_PREBUILT_MPI
extern template class stepgen::rt::InCore<stepgen::cl::Backend, stepgen::cl::RankState>;
extern template int stepgen::rt::main_program<
    stepgen::rt::Ranks<stepgen::cl::Backend, stepgen::cl::MpiRank>, stepgen::cl::Backend>(
    int, char**, const stepgen::rt::Program<stepgen::cl::Backend>&,
    void (*)(stepgen::rt::InCore<stepgen::cl::Backend, stepgen::cl::RankState>&, std::int64_t));
#else
extern template int
stepgen::rt::main_program<stepgen::rt::OneProcess<stepgen::cl::Backend>, stepgen::cl::Backend>(
    int, char**, const stepgen::rt::Program<stepgen::cl::Backend>&,
    void (*)(stepgen::rt::InCore<stepgen::cl::Backend>&, std::int64_t));
#endif
#endif
