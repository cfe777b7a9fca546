#pragma once
/// \file
/// `stepgen check --probe`: the kernel probe of the generated programs
/// (runtime/stepgen/exec/probe.hpp) run at check time, on the OpenCL kernels, on PoCL
/// (checks/opencl_device.hpp). A declared halo too small is an error at the kernel's element; one
/// wider than read, a warning; each kernel's measured rim is one line on `notes`.

#include <ostream>

#include "diag/diagnostics.hpp"
#include "model/model.hpp"

namespace stepgen::model {

/// Probes every kernel of `m` whose source is OpenCL C. Without an OpenCL device (or a build of
/// stepgen without OpenCL), one warning and nothing probed.
void probe_check(const Model& m, Diagnostics& diags, std::ostream& notes);

}  // namespace stepgen::model
