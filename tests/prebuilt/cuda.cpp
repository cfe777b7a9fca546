// The object every generated CUDA program built with tests/prebuilt/prebuilt.sh links: the
// runtime's entry points over the CUDA backend, instantiated once (cuda.hpp).
#include "cuda.hpp"
template class stepgen::rt::InCore<stepgen::cuda::Backend>;
template class stepgen::rt::ChunkRun<stepgen::cuda::Backend>;
#ifdef STEPGEN_PREBUILT_MPI
template class stepgen::rt::InCore<stepgen::cuda::Backend, stepgen::cuda::MpiRank::State>;
template int stepgen::rt::main_program<
    stepgen::rt::Ranks<stepgen::cuda::Backend, stepgen::cuda::MpiRank>, stepgen::cuda::Backend>(
    int, char**, const stepgen::rt::Program<stepgen::cuda::Backend>&,
    void (*)(stepgen::rt::InCore<stepgen::cuda::Backend, stepgen::cuda::MpiRank::State>&,
             std::int64_t));
#else
template int
stepgen::rt::main_program<stepgen::rt::OneProcess<stepgen::cuda::Backend>, stepgen::cuda::Backend>(
    int, char**, const stepgen::rt::Program<stepgen::cuda::Backend>&,
    void (*)(stepgen::rt::InCore<stepgen::cuda::Backend>&, std::int64_t));
#endif
