#pragma once
/// \file
/// The spec's tables (<table>): read-only 1-3D arrays of any size, not grid-shaped. The program
/// makes their values once on the host (make_host_tables in the generated file: the same
/// initial values as arrays, over the table's own box) and every device receives a whole copy
/// once, when its kernels are built (Problem::build_kernels: in core for each part, out of core
/// for each device, for the probe's device, on each MPI rank); out of core they stay resident
/// and never stream. Kernels take them as plain pointers (OpenCL `__global const T*` or
/// `__constant T*`, CUDA `const T*`). Backends: tables_opencl.hpp (the buffers live in the
/// generated Kernels of a device), tables_cuda.hpp (one copy per GPU for the whole run).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"

namespace stepgen::rt {

/// One table as the generated program declares it: its name, element size and extents.
struct TableInfo {
  const char* name;
  std::size_t element_bytes;
  int dims;
  Vec3 size;  ///< unused dimensions are 1
};

/// The host copy of a table: a HostArray over the box 0..size (so that fill_random, load_raw
/// and the other initial values of arrays apply unchanged).
inline HostArray make_host_table(const TableInfo& t) {
  return HostArray(t.name, t.element_bytes, Box::from_extent(t.dims, t.size));
}

/// Bytes of every table: what each device holds besides its part's arrays.
inline std::size_t table_bytes(const std::vector<HostArray>& tables) {
  std::size_t bytes = 0;
  for (const HostArray& t : tables) bytes += t.bytes.size();
  return bytes;
}

}  // namespace stepgen::rt
