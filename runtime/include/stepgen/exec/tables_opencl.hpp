#pragma once
/// \file
/// The spec's tables on an OpenCL device (tables.hpp): one read-only buffer per table in the
/// device's context, written once when the device's kernels are built; the generated Kernels
/// of the device hold them, so they live as long as its kernels do.

#include <string>
#include <vector>

#include "stepgen/exec/opencl.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/exec/tables.hpp"

namespace stepgen::cl {

/// Copies every table of `host` whole to device `d` (blocking) and returns the buffers, in order.
inline std::vector<Mem> upload_tables(const Device& d, const std::vector<rt::HostArray>& host) {
  std::vector<Mem> out;
  for (const rt::HostArray& t : host) {
    const size_t bytes = t.bytes.size();
    if (bytes > d.max_alloc)
      throw rt::RunError("table " + t.name + " needs " +
                         rt::human_bytes(static_cast<double>(bytes)) + " on " + d.label() +
                         " but its largest allocation is " +
                         rt::human_bytes(static_cast<double>(d.max_alloc)));
    cl_int err = CL_SUCCESS;
    Mem m(clCreateBuffer(d.context.get(), CL_MEM_READ_ONLY, bytes, nullptr, &err));
    check(err, ("clCreateBuffer(table " + t.name + ")").c_str(), d.label());
    check(clEnqueueWriteBuffer(d.queue.get(), m.get(), CL_TRUE, 0, bytes, t.bytes.data(), 0,
                               nullptr, nullptr),
          ("clEnqueueWriteBuffer(table " + t.name + ")").c_str(), d.label());
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace stepgen::cl
