// The object every generated OpenCL program built with tests/prebuilt/prebuilt.sh links: the
// runtime's entry points over the OpenCL backend, instantiated once (opencl.hpp).
#include "opencl.hpp"
template class stepgen::rt::InCore<stepgen::cl::Backend>;
template class stepgen::rt::ChunkRun<stepgen::cl::Backend>;
#ifdef STEPGEN_PREBUILT_MPI
template class stepgen::rt::InCore<stepgen::cl::Backend, stepgen::cl::RankState>;
template int stepgen::rt::main_program<
    stepgen::rt::Ranks<stepgen::cl::Backend, stepgen::cl::MpiRank>, stepgen::cl::Backend>(
    int, char**, const stepgen::rt::Program<stepgen::cl::Backend>&,
    void (*)(stepgen::rt::InCore<stepgen::cl::Backend, stepgen::cl::RankState>&, std::int64_t));
#else
template int
stepgen::rt::main_program<stepgen::rt::OneProcess<stepgen::cl::Backend>, stepgen::cl::Backend>(
    int, char**, const stepgen::rt::Program<stepgen::cl::Backend>&,
    void (*)(stepgen::rt::InCore<stepgen::cl::Backend>&, std::int64_t));
#endif
