#pragma once
/// \file
/// The one OpenCL device `stepgen check` uses to read kernels (signatures, the kernel probe):
/// PoCL's first device where PoCL is installed, else the first platform's. Only in builds with
/// OpenCL (STEPGEN_HAVE_OPENCL).

#include <string>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

namespace stepgen::model {

/// One device for the whole run: the first of PoCL's platform, else of the first platform.
struct OpenclDevice {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  std::string name;  // "PoCL", for messages
  std::string why;   // why there is none
};

/// The device, found once (`device` null and `why` set when there is none).
const OpenclDevice& opencl_device();

}  // namespace stepgen::model
