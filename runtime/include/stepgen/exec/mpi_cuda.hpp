#pragma once
/// \file
/// MPI for the CUDA programs (one rank drives one GPU), on top of mpi.hpp (Session and its
/// failure policy, MPI-IO, the collectives of the report and --verify):
/// - `select_gpu`: the GPU of this rank, by its place among its node's ranks; more ranks than
///   GPUs on a node is an error, unless STEPGEN_MPI_SHARE_DEVICES=1 (a testing aid: rank i of a
///   node uses GPU i mod count).
/// - `choose_message_path`: whether halo messages go from and to device memory (a CUDA-aware
///   MPI, asked at run time with MPIX_Query_cuda_support() from <mpi-ext.h>, where the library
///   has it) or through pinned host buffers; STEPGEN_MPI_CUDA_AWARE=on|off overrides; every
///   rank takes the same path.
/// The halo messages themselves are the backend's exchange executor's (exchange_cuda.hpp: each
/// box packed by one rectangular copy on a stream into device memory for a CUDA-aware MPI, else
/// pinned host memory) over mpi_halo.hpp's MpiMessenger.
/// Depends on MPI, the CUDA runtime and the standard library (and cuda.hpp, mpi.hpp).

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/exec/cuda.hpp"
#include "stepgen/exec/cuda_exchange.hpp"
#include "stepgen/exec/env_settings.hpp"
#include "stepgen/exec/mpi.hpp"
#include "stepgen/exec/mpi_halo.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/exchange.hpp"

// Open MPI (and MVAPICH2) declare their CUDA-awareness query in <mpi-ext.h>, after <mpi.h>.
#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

namespace stepgen::mpi {

/// The GPUs this rank drives (one, or `--devices N`).
struct GpuChoice {
  std::vector<cuda::Device> devices;
  int node_gpus = 0;  ///< GPUs this rank's node offers
  bool shared =
      false;  ///< another rank of the node uses the same GPU (STEPGEN_MPI_SHARE_DEVICES=1)
};

/// Picks this rank's GPUs: the node's ranks take the node's GPUs in CUDA order, rank i of the
/// node GPU i, or with `--devices N` (a rank's GPUs, rank_parts.hpp) GPUs i*N ... i*N+N-1. More
/// GPUs asked for on a node than it has is an error unless STEPGEN_MPI_SHARE_DEVICES=1, with
/// which the k-th GPU asked for is GPU k mod count (to check several ranks on a machine with
/// fewer GPUs; the ranks of one GPU take turns on it). Opens only those GPUs (two streams each)
/// and names them in the session's error messages.
inline GpuChoice select_gpu(Session& session, const rt::Options& opt) {
  if (opt.device_type == "cpu")
    throw UniformError(
        "the CUDA backend runs on GPUs only, and --device-type cpu asks for CPUs (generate with "
        "--target opencl to run on CPUs)");
  if (!opt.platform.empty() &&
      std::string(cuda::platform_name()).find(opt.platform) == std::string::npos)
    throw UniformError("no CUDA device matches (platform '" + opt.platform +
                       "'): the CUDA backend's only platform is '" + cuda::platform_name() + "'");
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver ||
      (status == cudaSuccess && count == 0)) {
    (void)cudaGetLastError();
    throw rt::RunError(
        std::string("no CUDA device found (") +
        (status == cudaSuccess ? "cudaGetDeviceCount returned 0" : cuda::error_text(status)) + ")");
  }
  cuda::check(status, "cudaGetDeviceCount", "host");
  const bool may_share = rt::env_settings().mpi_share_devices;
  const int per_rank = opt.devices_given && opt.devices > 1 ? opt.devices : 1;
  const long long asked = static_cast<long long>(session.node_size()) * per_rank;
  if (asked > count && !may_share)
    throw rt::RunError(std::to_string(session.node_size()) + " ranks " +
                       (per_rank > 1 ? "of " + std::to_string(per_rank) + " GPUs each " : "") +
                       "run on node " + session.host() + " but only " + std::to_string(count) +
                       " CUDA GPU(s) are there: start " +
                       (per_rank > 1 ? "fewer ranks, or give each fewer GPUs (--devices)"
                                     : "at most one rank per GPU") +
                       " (STEPGEN_MPI_SHARE_DEVICES=1 lets ranks share GPUs, for testing)");
  GpuChoice c;
  c.node_gpus = count;
  c.shared = asked > count;
  std::string labels;
  for (int j = 0; j < per_rank; ++j) {
    cuda::Device d;
    d.index = j;
    d.ordinal =
        static_cast<int>((static_cast<long long>(session.node_rank()) * per_rank + j) % count);
    cudaDeviceProp prop{};
    cuda::check(cudaGetDeviceProperties(&prop, d.ordinal), "cudaGetDeviceProperties",
                "GPU " + std::to_string(d.ordinal));
    d.name = prop.name;
    d.global_mem = prop.totalGlobalMem;
    labels +=
        (labels.empty() ? "GPU " : ", GPU ") + std::to_string(d.ordinal) + " (" + d.name + ")";
    d.open();
    c.devices.push_back(std::move(d));
  }
  session.set_device(labels);
  return c;
}

/// Collective: true when some rank shares its GPU with another rank.
inline bool any_shared(MPI_Comm comm, bool shared) {
  int mine = shared ? 1 : 0, any = 0;
  check(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce(shared GPUs)");
  return any != 0;
}

/// Throws when this rank's part (`bytes` of buffers) cannot fit its GPU: MPI programs run in
/// core (no out of core yet), so the answer is more ranks.
inline void check_fits_in_core(const cuda::Device& d, std::size_t bytes) {
  if (bytes > d.global_mem)
    throw rt::RunError("the arrays of this rank's part need " +
                       rt::human_bytes(static_cast<double>(bytes)) + " on " + d.label() +
                       " but it has " + rt::human_bytes(static_cast<double>(d.global_mem)) +
                       ": run with more ranks, or out of core (--out-of-core on, "
                       "--device-memory SIZE)");
}

/// Which memory halo messages travel from and to, the same on every rank.
struct MessagePath {
  bool device = false;  ///< true: device buffers straight to MPI (CUDA-aware)
  std::string why;      ///< what decided it, for the report

  /// The report's words for it.
  std::string describe() const {
    return device
               ? "CUDA-aware: boxes packed on the GPU, device buffers straight to MPI (" + why + ")"
               : "through pinned host buffers (" + why + ")";
  }
};

/// What this rank's MPI library says about CUDA-awareness at run time: 1 yes, 0 no, -1 it has
/// no query; `query` names the call.
inline int library_cuda_aware(std::string& query) {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  query = "MPIX_Query_cuda_support()";
  return MPIX_Query_cuda_support() ? 1 : 0;
#elif defined(MPIX_GPU_SUPPORT_CUDA)
  query = "MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA)";
  int yes = 0;
  if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &yes) != MPI_SUCCESS) return 0;
  return yes ? 1 : 0;
#else
  query = "no CUDA-awareness query in this MPI's headers";
  return -1;
#endif
}

/// Collective: the message path of every rank. Device buffers go to MPI when every rank's
/// library says it is CUDA-aware, or when STEPGEN_MPI_CUDA_AWARE=on (an override: the MPI must
/// then really be CUDA-aware); STEPGEN_MPI_CUDA_AWARE=off (or a rank whose MPI is not
/// CUDA-aware) takes every rank through pinned host buffers.
inline MessagePath choose_message_path(MPI_Comm comm) {
  std::string query;
  const int library = library_cuda_aware(query);
  const std::string& knob = rt::env_settings().mpi_cuda_aware;
  const bool bad = !knob.empty() && knob != "on" && knob != "off" && knob != "auto";
  const bool want = knob == "on" || ((knob.empty() || knob == "auto") && library == 1);
  // Reduced with MAX: any rank that cannot, any bad setting, any forced "on", any "off".
  int mine[4] = {want ? 0 : 1, bad ? 1 : 0, knob == "on" ? 1 : 0, knob == "off" ? 1 : 0};
  int all[4] = {0, 0, 0, 0};
  check(MPI_Allreduce(mine, all, 4, MPI_INT, MPI_MAX, comm), "MPI_Allreduce(message path)");
  if (all[1])
    throw UniformError("STEPGEN_MPI_CUDA_AWARE must be on, off or auto (a rank has '" +
                       (bad ? knob : std::string("?")) + "')");
  MessagePath p;
  p.device = all[0] == 0;
  const std::string said = library < 0 ? query : query + " = " + std::to_string(library);
  if (all[3])
    p.why = "STEPGEN_MPI_CUDA_AWARE=off";
  else if (p.device)
    p.why = all[2] ? "STEPGEN_MPI_CUDA_AWARE=on; " + said : said;
  else
    p.why = want ? "another rank's MPI is not CUDA-aware" : said;
  return p;
}

}  // namespace stepgen::mpi
