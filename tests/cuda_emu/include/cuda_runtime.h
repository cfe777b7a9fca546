#pragma once
// Stands in for the CUDA toolkit's cuda_runtime.h when a generated CUDA program is built for
// the CPU emulation (tests/cuda_emu/build.sh puts this folder first on the include path).
#include "stepgen_cuda_emu.hpp"
