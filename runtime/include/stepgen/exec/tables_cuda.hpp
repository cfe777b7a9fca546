#pragma once
/// \file
/// The spec's tables on the GPUs (tables.hpp): one copy per GPU for the whole run, made the
/// first time a part, a chunk run or the probe on that GPU builds its kernels
/// (Problem::build_kernels) and found again by the launches through the GPU's ordinal. The
/// copies are kept until the program ends (the process's exit frees them).

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "stepgen/exec/cuda.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/exec/tables.hpp"

namespace stepgen::cuda {

/// Every GPU's copy of the tables, by CUDA ordinal.
class DeviceTables {
 public:
  /// The one store of the process (never destroyed: buffers outlive every launch).
  static DeviceTables& instance() {
    static DeviceTables* t = new DeviceTables;
    return *t;
  }
  /// Copies every table of `host` whole to `d`, unless that GPU has them already.
  void upload(const Device& d, const std::vector<rt::HostArray>& host) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (by_ordinal_.count(d.ordinal)) return;
    std::vector<Buffer> buffers;
    for (const rt::HostArray& t : host) {
      const rt::Box box = rt::Box::from_extent(1, {static_cast<rt::Index>(t.bytes.size()), 1, 1});
      buffers.emplace_back(d, box, 1, "table " + t.name);
      d.use();
      check(
          cudaMemcpy(buffers.back().get(), t.bytes.data(), t.bytes.size(), cudaMemcpyHostToDevice),
          "cudaMemcpy(table " + t.name + ")", d);
    }
    by_ordinal_.emplace(d.ordinal, std::move(buffers));
  }
  /// Table `id` on `d`, as a pointer to its elements.
  template <typename T>
  ElementPtr<T> get(const Device& d, int id) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = by_ordinal_.find(d.ordinal);
    if (it == by_ordinal_.end())
      throw rt::RunError("internal error: the tables were not copied to " + d.label());
    return {static_cast<T*>(it->second[static_cast<std::size_t>(id)].get())};
  }

 private:
  std::mutex mutex_;
  std::map<int, std::vector<Buffer>> by_ordinal_;
};

/// Copies the tables to `d` once (see DeviceTables::upload).
inline void upload_tables(const Device& d, const std::vector<rt::HostArray>& host) {
  DeviceTables::instance().upload(d, host);
}

/// Table `id` on `d`: what a launch passes for <arg table="...">.
template <typename T>
ElementPtr<T> table_ptr(const Device& d, int id) {
  return DeviceTables::instance().get<T>(d, id);
}

}  // namespace stepgen::cuda
