// The one OpenCL device of `stepgen check` (checks/opencl_device.hpp).
#ifdef STEPGEN_HAVE_OPENCL
#include "checks/opencl_device.hpp"

#include <vector>

namespace stepgen::model {

const OpenclDevice& opencl_device() {
  static const OpenclDevice c = [] {
    OpenclDevice out;
    cl_uint count = 0;
    if (clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0) {
      out.why =
          "no OpenCL device (no OpenCL platform is installed; PoCL is Debian's "
          "pocl-opencl-icd)";
      return out;
    }
    std::vector<cl_platform_id> platforms(count);
    clGetPlatformIDs(count, platforms.data(), nullptr);
    for (int pass = 0; pass < 2 && !out.device; ++pass) {
      for (cl_platform_id p : platforms) {
        std::size_t n = 0;
        clGetPlatformInfo(p, CL_PLATFORM_NAME, 0, nullptr, &n);
        std::string name(n, '\0');
        clGetPlatformInfo(p, CL_PLATFORM_NAME, n, name.data(), nullptr);
        bool pocl = name.find("Portable Computing Language") != std::string::npos;
        if (pass == 0 && !pocl) continue;
        cl_device_id d = nullptr;
        if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, nullptr) != CL_SUCCESS) continue;
        cl_int err = CL_SUCCESS;
        cl_context ctx = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &err);
        if (err != CL_SUCCESS) continue;
        out.device = d;
        out.context = ctx;
        // Not the device's name: messages stay the same from one machine to the next.
        out.name = pocl ? "PoCL" : "OpenCL (" + name.substr(0, name.find('\0')) + ")";
        break;
      }
    }
    if (!out.device) out.why = "no OpenCL device (no platform has a device that can be used)";
    return out;
  }();
  return c;
}

}  // namespace stepgen::model
#endif
