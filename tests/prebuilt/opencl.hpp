// The runtime's side of every generated OpenCL program (tests/prebuilt/prebuilt.sh): the headers
// a generated program includes, and the engine's entry points over the OpenCL backend declared
// `extern template`, so that a program's own file does not instantiate them; opencl.cpp
// instantiates them once per compiler and flags, every program links that object, and this
// header is precompiled with the program's flags. STEPGEN_PREBUILT_MPI: the MPI program's.
#ifndef STEPGEN_PREBUILT_OPENCL_HPP
#define STEPGEN_PREBUILT_OPENCL_HPP
// clang-format off
#include "stepgen/engine_opencl.hpp"
#include "stepgen/exchange.hpp"
#include "stepgen/init.hpp"
#include "stepgen/main.hpp"
#include "stepgen/ooc.hpp"
#include "stepgen/ooc_opencl.hpp"
#include "stepgen/opencl.hpp"
#include "stepgen/partition.hpp"
#include "stepgen/probe.hpp"
#include "stepgen/program.hpp"
#include "stepgen/tables_opencl.hpp"
// clang-format on
#ifdef STEPGEN_PREBUILT_MPI
#include "stepgen/engine_mpi_opencl.hpp"
#include "stepgen/ranks.hpp"
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
