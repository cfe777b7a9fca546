// The object every generated OpenCL program built with tests/prebuilt/prebuilt.sh links: the
// runtime's entry points over the OpenCL backend, instantiated once (opencl.hpp).
#include "opencl.hpp"
template class stepgen::rt::InCore<stepgen::cl::Backend>;
template class stepgen::rt::ChunkRun<stepgen::cl::Backend>;
#ifdef STEPGEN_PREBUILT_MPI
template class stepgen::rt::InCore<stepgen::cl::Backend, stepgen::cl::RankState>;
template int stepgen::rt::run_mpi_main<stepgen::cl::Backend, stepgen::cl::MpiRank>(
    int, char**, const stepgen::rt::Program<stepgen::cl::Backend>&,
    void (*)(stepgen::rt::RankRun<stepgen::cl::Backend, stepgen::cl::MpiRank>&, std::int64_t));
#else
template int stepgen::rt::run_program<stepgen::cl::Backend>(
    int, char**, stepgen::rt::Program<stepgen::cl::Backend>);
#endif
