#pragma once
/// \file
/// CUDA helpers for generated programs (CUDA runtime API): checked calls that name the call,
/// the device and the error; GPU discovery; one non-blocking stream per GPU; device buffers
/// holding a part's ghost box; rectangular copies of boxes (cudaMemcpy3DAsync over pitched
/// pointers made from rt::rect_of); peer access; the halo exchange, GPU to GPU by
/// cudaMemcpy3DPeerAsync where peer access works, else through pinned host staging; and a
/// per-GPU timeline of CUDA events that orders the exchange across GPUs (cudaStreamWaitEvent,
/// no host waits) and measures kernel and exchange time on the GPUs.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stepgen/box.hpp"
#include "stepgen/exchange.hpp"
#include "stepgen/program.hpp"

/// A kernel launch, `STEPGEN_LAUNCH(kernel, grid, block, stream)(args...)`: the generated
/// programs launch through this macro only, so that `<<<...>>>` is seen by nvcc alone. Under
/// nvcc (or clang's CUDA mode) it is `kernel<<<grid, block, 0, stream>>>`; for host compilers
/// the CPU emulation that CI runs the programs on (tests/cuda_emu/) defines it.
#if defined(__CUDACC__)
#define STEPGEN_LAUNCH(kernel, grid, block, stream) kernel<<<grid, block, 0, stream>>>
#endif

namespace stepgen::cuda {

/// "cudaErrorInvalidValue (1): invalid argument".
inline std::string error_text(cudaError_t status) {
  return std::string(cudaGetErrorName(status)) + " (" + std::to_string(static_cast<int>(status)) +
         "): " + cudaGetErrorString(status);
}

/// Errors that a call reports for work enqueued before it (CUDA errors are asynchronous).
inline bool is_sticky(cudaError_t status) {
  return status == cudaErrorIllegalAddress || status == cudaErrorLaunchFailure ||
         status == cudaErrorIllegalInstruction || status == cudaErrorMisalignedAddress ||
         status == cudaErrorInvalidPc || status == cudaErrorHardwareStackError ||
         status == cudaErrorAssert || status == cudaErrorLaunchTimeout;
}

/// Throws RunError("CALL failed on WHERE: cudaErrorX (code): description") unless cudaSuccess.
inline void check(cudaError_t status, const std::string& call, const std::string& where) {
  if (status == cudaSuccess) return;
  std::string hint;
  if (is_sticky(status))
    hint =
        " (an earlier kernel or copy on this GPU failed; its error surfaces here. Run under "
        "compute-sanitizer to find it)";
  throw rt::RunError(call + " failed on " + where + ": " + error_text(status) + hint);
}

/// The two streams of a GPU. Kernels run on kCompute; when an exchange overlaps computation,
/// the boundary slabs and the halo copies run on kBoundary, a stream of the highest priority,
/// beside the interior's kernel on kCompute.
enum class On { kCompute, kBoundary };

/// One GPU with its two non-blocking streams.
class Device {
 public:
  Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  Device(Device&& o) noexcept
      : index(o.index),
        ordinal(o.ordinal),
        part(o.part),
        name(std::move(o.name)),
        global_mem(o.global_mem),
        stream_(std::exchange(o.stream_, nullptr)),
        boundary_(std::exchange(o.boundary_, nullptr)) {}
  Device& operator=(Device&& o) noexcept {
    if (this != &o) {
      reset();
      index = o.index;
      ordinal = o.ordinal;
      part = o.part;
      name = std::move(o.name);
      global_mem = o.global_mem;
      stream_ = std::exchange(o.stream_, nullptr);
      boundary_ = std::exchange(o.boundary_, nullptr);
    }
    return *this;
  }
  ~Device() { reset(); }

  int index = 0;    ///< position in the run's device list
  int ordinal = 0;  ///< the CUDA device number (cudaSetDevice)
  int part = -1;    ///< with several parts on the GPU (--parts): the part this handle runs
  std::string name;
  std::size_t global_mem = 0;

  /// "device 1 (GPU 1, NVIDIA H100 80GB HBM3)", "device 0 (GPU 0, NVIDIA H200), part 3": how
  /// messages name it.
  std::string label() const {
    return "device " + std::to_string(index) + " (GPU " + std::to_string(ordinal) + ", " + name +
           ")" + (part >= 0 ? ", part " + std::to_string(part) : "");
  }
  /// Makes this GPU current for the calling thread.
  void use() const;
  /// Creates the streams (on discovery).
  void open();
  cudaStream_t stream(On on = On::kCompute) const {
    return on == On::kCompute ? stream_ : boundary_;
  }

 private:
  void reset() {
    if (stream_ || boundary_) cudaSetDevice(ordinal);
    if (stream_) cudaStreamDestroy(stream_);
    if (boundary_) cudaStreamDestroy(boundary_);
    stream_ = boundary_ = nullptr;
  }
  cudaStream_t stream_ = nullptr;
  cudaStream_t boundary_ = nullptr;
};

/// check() naming a device: "CALL failed on device 1 (GPU 1, NAME): ...".
inline void check(cudaError_t status, const std::string& call, const Device& d) {
  if (status != cudaSuccess) check(status, call, d.label());
}

inline void Device::use() const {
  check(cudaSetDevice(ordinal), "cudaSetDevice", *this);
}

inline void Device::open() {
  use();
  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags",
        *this);
  int least = 0, greatest = 0;
  check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange",
        *this);
  check(cudaStreamCreateWithPriority(&boundary_, cudaStreamNonBlocking, greatest),
        "cudaStreamCreateWithPriority", *this);
}

/// The name NVIDIA's drivers give the CUDA platform; --platform is matched against it.
inline const char* platform_name() {
  return "NVIDIA CUDA";
}

/// Finds the GPUs the options ask for (the first --devices N, default all) and gives each its
/// stream. --device-type gpu and all mean the CUDA GPUs; cpu is an error. --platform must be a
/// part of "NVIDIA CUDA". Throws RunError when there are none or too few.
inline std::vector<Device> discover(const rt::Options& opt) {
  if (opt.device_type == "cpu")
    throw rt::RunError(
        "the CUDA backend runs on GPUs only, and --device-type cpu asks for CPUs "
        "(generate with --target opencl to run on CPUs)");
  if (!opt.platform.empty() && std::string(platform_name()).find(opt.platform) == std::string::npos)
    throw rt::RunError("no CUDA device matches (platform '" + opt.platform +
                       "'): the CUDA backend's only platform is '" + platform_name() + "'");
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver ||
      (status == cudaSuccess && count == 0)) {
    (void)cudaGetLastError();
    throw rt::RunError(
        std::string("no CUDA device found (") +
        (status == cudaSuccess ? "cudaGetDeviceCount returned 0" : error_text(status)) + ")");
  }
  check(status, "cudaGetDeviceCount", "host");
  std::string seen;
  std::vector<Device> found;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, i), "cudaGetDeviceProperties", "GPU " + std::to_string(i));
    Device d;
    d.ordinal = i;
    d.name = prop.name;
    d.global_mem = prop.totalGlobalMem;
    seen += "\n  GPU " + std::to_string(i) + ": " + d.name;
    found.push_back(std::move(d));
  }
  if (opt.devices > 0) {
    if (static_cast<std::size_t>(opt.devices) > found.size())
      throw rt::RunError("asked for " + std::to_string(opt.devices) + " devices but only " +
                         std::to_string(found.size()) + " CUDA device(s) are present:" + seen);
    found.resize(static_cast<std::size_t>(opt.devices));
  }
  for (std::size_t i = 0; i < found.size(); ++i) {
    found[i].index = static_cast<int>(i);
    found[i].open();
  }
  return found;
}

/// One handle per part of `partition` (Part::device: the GPU of `devices` it runs on), each
/// with streams of its own on that GPU: the parts of one GPU run side by side, ordered by
/// events as parts on different GPUs are, and copy between them on the GPU (enable_peers).
inline std::vector<Device> part_devices(std::vector<Device> devices,
                                        const rt::Partition& partition) {
  std::vector<Device> out;
  for (const rt::Part& part : partition.parts) {
    const Device& d = devices[static_cast<std::size_t>(part.device)];
    Device h;
    h.index = d.index;
    h.ordinal = d.ordinal;
    h.name = d.name;
    h.global_mem = d.global_mem;
    h.part = part.id;
    h.open();
    out.push_back(std::move(h));
  }
  return out;
}

/// Throws when a part's buffers (`bytes` in all) cannot fit the GPU's memory.
inline void check_fits(const Device& d, std::size_t bytes) {
  if (bytes > d.global_mem)
    throw rt::RunError("the arrays of this part need " +
                       rt::human_bytes(static_cast<double>(bytes)) + " on " + d.label() +
                       " but it has " + rt::human_bytes(static_cast<double>(d.global_mem)) +
                       "; use more devices");
}

/// Device memory holding one box of an array (cudaMalloc); freed when it goes.
class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), ordinal_(o.ordinal_) {}
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      ordinal_ = o.ordinal_;
    }
    return *this;
  }
  ~Buffer() { reset(); }
  Buffer(const Device& d, const rt::Box& box, std::size_t element_bytes, const std::string& array)
      : ordinal_(d.ordinal) {
    const std::size_t bytes = static_cast<std::size_t>(box.volume()) * element_bytes;
    d.use();
    check(cudaMalloc(&ptr_, bytes),
          "cudaMalloc(" + array + ", " + rt::human_bytes(static_cast<double>(bytes)) + ")", d);
  }
  void* get() const { return ptr_; }
  /// For swap/rotate: buffers change names, not contents.
  friend void swap(Buffer& a, Buffer& b) noexcept {
    std::swap(a.ptr_, b.ptr_);
    std::swap(a.ordinal_, b.ordinal_);
  }

 private:
  void reset() {
    if (ptr_) {
      cudaSetDevice(ordinal_);
      cudaFree(ptr_);
    }
    ptr_ = nullptr;
  }
  void* ptr_ = nullptr;
  int ordinal_ = 0;
};

/// Page-locks a host array's bytes (cudaHostRegister, portable to every GPU) for as long as it
/// lives, so that copies to and from it run asynchronously on the streams. The bytes must not
/// be reallocated meanwhile (swap/rotate exchange whole vectors: the memory stays put). Bytes
/// a backend allocated (HostBytes::adopted: cuda::pinned_allocator) are page-locked already:
/// left as they are (registering them again is an error).
class PinnedHost {
 public:
  PinnedHost() = default;
  PinnedHost(const PinnedHost&) = delete;
  PinnedHost& operator=(const PinnedHost&) = delete;
  PinnedHost(PinnedHost&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)) {}
  PinnedHost& operator=(PinnedHost&&) = delete;
  explicit PinnedHost(rt::HostArray& a) {
    if (a.bytes.empty() || a.bytes.adopted()) return;
    check(cudaHostRegister(a.bytes.data(), a.bytes.size(), cudaHostRegisterPortable),
          "cudaHostRegister(" + a.name + ", " +
              rt::human_bytes(static_cast<double>(a.bytes.size())) + ")",
          "host");
    ptr_ = a.bytes.data();
  }
  ~PinnedHost() {
    if (ptr_) cudaHostUnregister(ptr_);
  }

 private:
  void* ptr_ = nullptr;
};

/// Page-locked host arrays for a run in core (cudaHostAlloc, portable to every GPU, zeroed),
/// freed with the last HostBytes that holds them: uploads and downloads run asynchronously at
/// the link's speed, several at once. A refusal is thrown as RunError (rt::pageable_fallback
/// then gives pageable memory) and cleared from cudaGetLastError, which launches check.
inline rt::HostAllocator pinned_allocator() {
  return [](std::size_t n, const std::string& name) -> rt::HostBytes {
    if (n == 0) return rt::HostBytes();
    void* p = nullptr;
    const cudaError_t status = cudaHostAlloc(&p, n, cudaHostAllocPortable);
    if (status != cudaSuccess) {
      cudaGetLastError();
      check(status,
            "cudaHostAlloc(page-locked host array " + name + ", " +
                rt::human_bytes(static_cast<double>(n)) + ")",
            "host");
    }
    std::memset(p, 0, n);
    std::shared_ptr<void> keep(p, [](void* ptr) { cudaFreeHost(ptr); });
    return rt::HostBytes(static_cast<unsigned char*>(p), n, std::move(keep));
  };
}

namespace detail {
inline cudaPitchedPtr pitched(const void* base, const rt::RectCopy& r) {
  const std::size_t rows = r.row_pitch ? r.slice_pitch / r.row_pitch : 0;
  return make_cudaPitchedPtr(const_cast<void*>(base), r.row_pitch, r.row_pitch, rows);
}
inline cudaPos pos(const rt::RectCopy& r) {
  return make_cudaPos(r.origin[0], r.origin[1], r.origin[2]);
}
inline cudaExtent extent(const rt::RectCopy& r) {
  return make_cudaExtent(r.region[0], r.region[1], r.region[2]);
}

/// One rectangular copy on one of `d`'s streams: cudaMemcpyAsync when both sides are one
/// contiguous range (slabs of a split along the slowest dimension), else cudaMemcpy3DAsync.
inline void rect_copy(const Device& d, void* dst, const rt::RectCopy& dr, const void* src,
                      const rt::RectCopy& sr, cudaMemcpyKind kind, const std::string& what,
                      On on = On::kCompute) {
  if (dr.bytes() == 0) return;
  d.use();
  if (dr.contiguous() && sr.contiguous()) {
    check(cudaMemcpyAsync(static_cast<char*>(dst) + dr.offset(),
                          static_cast<const char*>(src) + sr.offset(), dr.bytes(), kind,
                          d.stream(on)),
          "cudaMemcpyAsync(" + what + ")", d);
    return;
  }
  cudaMemcpy3DParms p{};
  p.srcPtr = pitched(src, sr);
  p.srcPos = pos(sr);
  p.dstPtr = pitched(dst, dr);
  p.dstPos = pos(dr);
  p.extent = extent(dr);
  p.kind = kind;
  check(cudaMemcpy3DAsync(&p, d.stream(on)), "cudaMemcpy3DAsync(" + what + ")", d);
}
}  // namespace detail

/// Enqueues a copy of `sub` (global coordinates) from a device buffer holding `buffer` into
/// the host array at the same place, on the device's stream. The host bytes are ready once
/// the stream has run it (at once when they are not page-locked).
inline void read_box(const Device& d, const Buffer& buf, const rt::Box& buffer, rt::HostArray& host,
                     const rt::Box& sub, On on = On::kCompute) {
  detail::rect_copy(d, host.bytes.data(), rt::rect_of(sub, host.box, host.element_bytes), buf.get(),
                    rt::rect_of(sub, buffer, host.element_bytes), cudaMemcpyDeviceToHost,
                    "read " + host.name, on);
}

/// Enqueues a copy of `sub` from the host array into a device buffer holding `buffer`. The
/// host bytes must stay untouched until the stream has run it.
inline void write_box(const Device& d, const Buffer& buf, const rt::Box& buffer,
                      const rt::HostArray& host, const rt::Box& sub, On on = On::kCompute) {
  detail::rect_copy(d, buf.get(), rt::rect_of(sub, buffer, host.element_bytes), host.bytes.data(),
                    rt::rect_of(sub, host.box, host.element_bytes), cudaMemcpyHostToDevice,
                    "write " + host.name, on);
}

/// Enqueues a GPU-to-GPU copy of the cells `from` of the buffer of one part into the cells
/// `to` (the same extents) of another's, on the receiver's stream: cudaMemcpyPeerAsync for a
/// contiguous slab, else cudaMemcpy3DPeerAsync. (`from` != `to`: a periodic frame, whose
/// cells are the other side's moved across the grid.)
inline void peer_box(const Device& src, const Buffer& src_buf, const rt::Box& src_box,
                     const rt::Box& from, const Device& dst, const Buffer& dst_buf,
                     const rt::Box& dst_box, const rt::Box& to, std::size_t element_bytes,
                     const std::string& array, On on = On::kCompute) {
  rt::RectCopy s = rt::rect_of(from, src_box, element_bytes);
  rt::RectCopy d = rt::rect_of(to, dst_box, element_bytes);
  if (d.bytes() == 0) return;
  dst.use();
  if (d.contiguous() && s.contiguous()) {
    check(cudaMemcpyPeerAsync(static_cast<char*>(dst_buf.get()) + d.offset(), dst.ordinal,
                              static_cast<const char*>(src_buf.get()) + s.offset(), src.ordinal,
                              d.bytes(), dst.stream(on)),
          "cudaMemcpyPeerAsync(" + array + " from " + src.label() + ")", dst);
    return;
  }
  cudaMemcpy3DPeerParms p{};
  p.srcPtr = detail::pitched(src_buf.get(), s);
  p.srcPos = detail::pos(s);
  p.srcDevice = src.ordinal;
  p.dstPtr = detail::pitched(dst_buf.get(), d);
  p.dstPos = detail::pos(d);
  p.dstDevice = dst.ordinal;
  p.extent = detail::extent(d);
  check(cudaMemcpy3DPeerAsync(&p, dst.stream(on)),
        "cudaMemcpy3DPeerAsync(" + array + " from " + src.label() + ")", dst);
}

/// The same cells `sub` from one part's buffer into another's (a halo exchange).
inline void peer_box(const Device& src, const Buffer& src_buf, const rt::Box& src_box,
                     const Device& dst, const Buffer& dst_buf, const rt::Box& dst_box,
                     const rt::Box& sub, std::size_t element_bytes, const std::string& array,
                     On on = On::kCompute) {
  peer_box(src, src_buf, src_box, sub, dst, dst_buf, dst_box, sub, element_bytes, array, on);
}

/// Waits on the host for everything enqueued on the GPU's stream.
inline void finish(const Device& d) {
  d.use();
  check(cudaStreamSynchronize(d.stream()), "cudaStreamSynchronize", d);
}

/// Block size of a launch: the spec's local size, else 256 / 32x8 / 32x4x2 by dimensions.
inline dim3 block_of(int dims, const std::size_t* local) {
  auto u = [](std::size_t v) { return static_cast<unsigned>(v); };
  if (local) return dim3(u(local[0]), dims > 1 ? u(local[1]) : 1u, dims > 2 ? u(local[2]) : 1u);
  if (dims == 1) return dim3(256);
  if (dims == 2) return dim3(32, 8);
  return dim3(32, 4, 2);
}

/// Grid of a launch: ceil(global / block) per dimension. Unlike an OpenCL NDRange, whole blocks
/// run: threads past `global` exist, and the kernel's guard must drop them.
inline dim3 grid_of(int dims, const std::size_t* global, const dim3& block) {
  auto up = [](std::size_t g, unsigned b) { return static_cast<unsigned>((g + b - 1) / b); };
  return dim3(up(global[0], block.x), dims > 1 ? up(global[1], block.y) : 1u,
              dims > 2 ? up(global[2], block.z) : 1u);
}

/// Checks a launch that was just enqueued (bad configuration, no kernel image for this GPU...).
inline void check_launch(const Device& d, const char* kernel, const dim3& grid, const dim3& block) {
  cudaError_t status = cudaGetLastError();
  if (status == cudaSuccess) return;
  auto str = [](const dim3& v) {
    return std::to_string(v.x) + "x" + std::to_string(v.y) + "x" + std::to_string(v.z);
  };
  check(status, std::string(kernel) + "<<<" + str(grid) + ", " + str(block) + ">>>", d);
}

/// peer[src][dst]: parts on these GPUs copy directly (cudaMemcpy3DPeerAsync).
using PeerMatrix = std::vector<std::vector<bool>>;

/// Enables peer access between every pair of GPUs that can (cudaDeviceCanAccessPeer both ways,
/// then cudaDeviceEnablePeerAccess both ways) and says which pairs copy directly. With the
/// environment variable STEPGEN_CUDA_PEER=off no pair does: every exchange goes through pinned
/// host memory (to test or compare that path on GPUs that have peer access).
inline PeerMatrix enable_peers(const std::vector<Device>& devices) {
  const std::size_t n = devices.size();
  const char* knob = std::getenv("STEPGEN_CUDA_PEER");
  if (knob && std::string(knob) == "off") return PeerMatrix(n, std::vector<bool>(n, false));
  PeerMatrix can(n, std::vector<bool>(n, false));
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) {
      if (a == b) continue;
      if (devices[a].ordinal == devices[b].ordinal) {  // parts of one GPU (--parts)
        can[a][b] = true;
        continue;
      }
      int yes = 0;
      check(cudaDeviceCanAccessPeer(&yes, devices[a].ordinal, devices[b].ordinal),
            "cudaDeviceCanAccessPeer(" + devices[b].label() + ")", devices[a]);
      can[a][b] = yes != 0;
    }
  PeerMatrix peer(n, std::vector<bool>(n, false));
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) {
      if (a == b || !can[a][b] || !can[b][a]) continue;
      if (devices[a].ordinal == devices[b].ordinal) {
        peer[a][b] = true;  // one GPU: copies within its memory, nothing to enable
        continue;
      }
      devices[a].use();
      cudaError_t e = cudaDeviceEnablePeerAccess(devices[b].ordinal, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError();  // enabled by an earlier run of this process: not an error
        e = cudaSuccess;
      }
      check(e, "cudaDeviceEnablePeerAccess(" + devices[b].label() + ")", devices[a]);
      peer[a][b] = true;
    }
  return peer;
}

/// One line per ordered pair of parts that exchange ghost cells, saying which path it uses.
inline void print_exchange_paths(const std::vector<Device>& devices, const PeerMatrix& peer,
                                 const std::vector<const std::vector<rt::Transfer>*>& plans,
                                 std::FILE* out) {
  const std::size_t n = peer.size();
  std::vector<std::vector<bool>> used(n, std::vector<bool>(n, false));
  for (const auto* plan : plans)
    for (const rt::Transfer& t : *plan)
      used[static_cast<std::size_t>(t.src)][static_cast<std::size_t>(t.dst)] = true;
  // Pairs of parts of one GPU (--parts): one line per GPU, after the others.
  std::map<int, std::pair<std::string, bool>> within;  // device index -> its name, staged
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      if (!used[s][d]) continue;
      if (devices[s].ordinal == devices[d].ordinal) {
        std::string name = devices[s].label();
        if (const std::size_t at = name.rfind(", part "); at != std::string::npos) name.resize(at);
        auto& w = within.emplace(devices[s].index, std::make_pair(name, false)).first->second;
        w.second = w.second || !peer[s][d];
        continue;
      }
      std::fprintf(
          out, "  exchange %s -> %s: %s\n", devices[s].label().c_str(), devices[d].label().c_str(),
          peer[s][d] ? "GPU to GPU (peer access, cudaMemcpy3DPeerAsync)"
                     : "through pinned host memory (no peer access, or STEPGEN_CUDA_PEER=off)");
    }
  for (const auto& [index, w] : within)
    std::fprintf(out, "  exchange between the parts of %s: %s\n", w.first.c_str(),
                 w.second ? "through pinned host memory (STEPGEN_CUDA_PEER=off)"
                          : "on the GPU (cudaMemcpy3DPeerAsync within its memory)");
}

/// A CUDA event (timing enabled) of one GPU; destroyed when it goes.
class Event {
 public:
  Event() = default;
  /// An event for timing, or (`timing` false) only for ordering streams, which is cheaper.
  explicit Event(const Device& d, bool timing = true) : ordinal_(d.ordinal) {
    d.use();
    check(cudaEventCreateWithFlags(&ev_, timing ? cudaEventDefault : cudaEventDisableTiming),
          "cudaEventCreateWithFlags", d);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept : ev_(std::exchange(o.ev_, nullptr)), ordinal_(o.ordinal_) {}
  Event& operator=(Event&& o) noexcept {
    if (this != &o) {
      reset();
      ev_ = std::exchange(o.ev_, nullptr);
      ordinal_ = o.ordinal_;
    }
    return *this;
  }
  ~Event() { reset(); }
  cudaEvent_t get() const { return ev_; }

 private:
  void reset() {
    if (ev_) {
      cudaSetDevice(ordinal_);
      cudaEventDestroy(ev_);
    }
    ev_ = nullptr;
  }
  cudaEvent_t ev_ = nullptr;
  int ordinal_ = 0;
};

/// The timeline of each GPU's stream, cut by events into spans of kernels and spans of exchange.
/// Its marks also order the exchange across GPUs (cudaStreamWaitEvent). Elapsed times are read
/// (cudaEventElapsedTime) once both ends have completed: while the run goes on (poll()) only
/// when a mark is already done (cudaEventQuery, no wait) or when very many are pending; all at
/// finish().
class Timeline {
 public:
  enum Span { kKernels, kExchange };

  explicit Timeline(const std::vector<Device>& devices, std::size_t parts) {
    for (std::size_t p = 0; p < parts; ++p) lanes_.emplace_back(devices[p]);
  }

  /// Starts the first span of kernels on every GPU.
  void begin() {
    for (std::size_t p = 0; p < lanes_.size(); ++p) mark(p, kKernels);
  }

  /// Ends the current span of GPU `p` (it was of kind `ended`) here on its stream; returns the
  /// mark's event, which other GPUs' streams may wait for.
  cudaEvent_t mark(std::size_t p, Span ended) {
    Lane& l = lanes_[p];
    Event ev = l.spare.empty() ? Event(*l.d) : take(l.spare);
    l.d->use();
    check(cudaEventRecord(ev.get(), l.d->stream()), "cudaEventRecord", *l.d);
    const cudaEvent_t raw = ev.get();
    l.marks.push_back(std::move(ev));
    l.ended.push_back(ended);
    return raw;
  }

  /// Accounts the spans that have completed, without waiting (unless very many are pending).
  /// Marks are recycled here, so call it only where no wait on them is still to be issued.
  void poll() {
    for (Lane& l : lanes_) collect(l, false);
  }

  /// Makes a stream of GPU `p` wait (on the GPU) until `event` (of any GPU) has happened.
  void wait(std::size_t p, cudaEvent_t event, On on = On::kCompute) {
    const Device& d = *lanes_[p].d;
    d.use();
    check(cudaStreamWaitEvent(d.stream(on), event, 0), "cudaStreamWaitEvent", d);
  }

  /// Records an event (no timing) here on a stream of GPU `p`, for other streams to wait on.
  /// Events are reused in turn: every wait on one must be enqueued before it comes round again
  /// (kSignals later), as the overlapped exchange does within one call.
  cudaEvent_t signal(std::size_t p, On on) {
    Lane& l = lanes_[p];
    if (l.signals.size() < kSignals) l.signals.emplace_back(*l.d, false);
    const cudaEvent_t ev = l.signals[l.next_signal++ % kSignals].get();
    l.d->use();
    check(cudaEventRecord(ev, l.d->stream(on)), "cudaEventRecord", *l.d);
    return ev;
  }

  /// Ends the last span of kernels on every GPU, waits for them all and adds up the spans.
  void finish() {
    for (std::size_t p = 0; p < lanes_.size(); ++p) mark(p, kKernels);
    for (Lane& l : lanes_) collect(l, true);
  }

  /// Seconds of kernels and of exchange of the busiest GPU (the longest timeline).
  std::pair<double, double> busiest() const {
    std::pair<double, double> best{0, 0};
    for (const Lane& l : lanes_)
      if (l.kernels_s + l.exchange_s > best.first + best.second) best = {l.kernels_s, l.exchange_s};
    return best;
  }

 private:
  struct Lane {
    explicit Lane(const Device& dev) : d(&dev) {}
    const Device* d;
    std::deque<Event> marks;  ///< recorded, not yet accounted; front() opened the current span
    std::deque<Span> ended;   ///< per mark, the kind of span it ended
    std::vector<Event> spare;
    std::vector<Event> signals;  ///< ordering-only events, reused in turn
    std::size_t next_signal = 0;
    double kernels_s = 0, exchange_s = 0;
  };
  static constexpr std::size_t kSignals = 8;
  static Event take(std::vector<Event>& v) {
    Event e = std::move(v.back());
    v.pop_back();
    return e;
  }
  /// Accounts the spans whose end has completed; all of them when `all` (host waits), else
  /// without waiting unless too many marks are pending.
  static void collect(Lane& l, bool all) {
    constexpr std::size_t kMaxPending = 512;
    while (l.marks.size() > 1) {
      cudaEvent_t end = l.marks[1].get();
      if (all || l.marks.size() > kMaxPending) {
        check(cudaEventSynchronize(end), "cudaEventSynchronize", *l.d);
      } else {
        cudaError_t s = cudaEventQuery(end);
        if (s == cudaErrorNotReady) return;
        check(s, "cudaEventQuery", *l.d);
      }
      float ms = 0;
      check(cudaEventElapsedTime(&ms, l.marks[0].get(), end), "cudaEventElapsedTime", *l.d);
      (l.ended[1] == kKernels ? l.kernels_s : l.exchange_s) += ms / 1e3;
      l.spare.push_back(std::move(l.marks.front()));
      l.marks.pop_front();
      l.ended.pop_front();
    }
  }
  std::deque<Lane> lanes_;  // a deque: lanes never move (they hold events)
};

/// One array's halo exchange between GPUs.
struct ExchangeArray {
  rt::HostArray* host = nullptr;       ///< its name and element size (its host copy may be absent)
  std::vector<const Buffer*> buffers;  ///< per part: the array's current buffer
  const std::vector<rt::Transfer>* plan = nullptr;
  /// Per transfer of `plan`, per box: the staging of pairs without peer access, a page-locked
  /// host buffer over exactly that box (rt::InCore::staging, made once at set-up, reused by
  /// every exchange; empty for a transfer GPU to GPU).
  std::vector<std::vector<rt::HostArray>>* staging = nullptr;
};

/// Enqueues one exchange of `arrays` after the kernels enqueued so far, with no host wait:
///  1. each GPU marks the end of its kernels;
///  2. senders without peer access to a receiver read the boxes it needs into their staging
///     (a page-locked buffer per box), on the sender's stream, and mark that;
///  3. each receiver's stream waits for its senders' marks, then copies the boxes in: GPU to
///     GPU (cudaMemcpy3DPeerAsync) or from their staging; and marks that;
///  4. each sender's stream waits for its receivers' marks before going on, so that no later
///     kernel overwrites cells a receiver has not copied yet.
/// Returns the bytes moved (each box counted once).
inline std::size_t exchange(const std::vector<Device>& devices, const rt::Partition& partition,
                            const std::vector<ExchangeArray>& arrays, const PeerMatrix& peer,
                            Timeline& timeline) {
  const std::size_t n = partition.parts.size();
  std::vector<std::vector<bool>> pair(n, std::vector<bool>(n, false));
  std::vector<bool> sends_staged(n, false);
  for (const ExchangeArray& a : arrays)
    for (const rt::Transfer& t : *a.plan) {
      const auto s = static_cast<std::size_t>(t.src), d = static_cast<std::size_t>(t.dst);
      pair[s][d] = true;
      if (!peer[s][d]) sends_staged[s] = true;
    }
  timeline.poll();  // before any mark: the marks below stay in place until the next exchange
  std::vector<cudaEvent_t> computed(n), staged(n), received(n);
  for (std::size_t p = 0; p < n; ++p) computed[p] = timeline.mark(p, Timeline::kKernels);

  std::size_t bytes = 0;
  for (const ExchangeArray& a : arrays)
    for (std::size_t i = 0; i < a.plan->size(); ++i) {
      const rt::Transfer& t = (*a.plan)[i];
      const auto s = static_cast<std::size_t>(t.src), d = static_cast<std::size_t>(t.dst);
      for (std::size_t k = 0; k < t.boxes.size(); ++k) {
        if (!peer[s][d])
          read_box(devices[s], *a.buffers[s], partition.parts[s].ghost, (*a.staging)[i][k],
                   t.boxes[k]);
        bytes += static_cast<std::size_t>(t.boxes[k].volume()) * a.host->element_bytes;
      }
    }
  for (std::size_t p = 0; p < n; ++p)
    if (sends_staged[p]) staged[p] = timeline.mark(p, Timeline::kExchange);

  for (std::size_t d = 0; d < n; ++d) {
    for (std::size_t s = 0; s < n; ++s)
      if (pair[s][d]) timeline.wait(d, peer[s][d] ? computed[s] : staged[s]);
    for (const ExchangeArray& a : arrays)
      for (std::size_t i = 0; i < a.plan->size(); ++i) {
        const rt::Transfer& t = (*a.plan)[i];
        if (static_cast<std::size_t>(t.dst) != d) continue;
        const auto s = static_cast<std::size_t>(t.src);
        for (std::size_t k = 0; k < t.boxes.size(); ++k) {
          const rt::Box& box = t.boxes[k];
          if (peer[s][d])
            peer_box(devices[s], *a.buffers[s], partition.parts[s].ghost, devices[d], *a.buffers[d],
                     partition.parts[d].ghost, box, a.host->element_bytes, a.host->name);
          else
            write_box(devices[d], *a.buffers[d], partition.parts[d].ghost, (*a.staging)[i][k], box);
        }
      }
  }
  for (std::size_t p = 0; p < n; ++p) received[p] = timeline.mark(p, Timeline::kExchange);

  for (std::size_t s = 0; s < n; ++s) {
    bool waited = false;
    for (std::size_t d = 0; d < n; ++d)
      if (pair[s][d]) {
        timeline.wait(s, received[d]);
        waited = true;
      }
    if (waited) timeline.mark(s, Timeline::kExchange);
  }
  return bytes;
}

/// The element pointer of `view`'s first cell in a buffer holding `buffer` (a kernel given it
/// sees a buffer of `view`'s extents: a slab of the part's buffer along its slowest dimension).
template <typename T>
T* view_pointer(const Buffer& buf, const rt::Box& buffer, const rt::Box& view) {
  return static_cast<T*>(buf.get()) + rt::rect_of(view, buffer, sizeof(T)).offset() / sizeof(T);
}

/// A device pointer to an array's elements (of type T) that a kernel may take as a pointer to
/// any type of the same size, kind (integer or floating) and signedness, const or not: a `long`
/// array (std::int64_t, which is `long` on Linux) reaches a kernel written with `long long*`,
/// the type the CUDA target gives `long` scalars. `stepgen check` has compared the kernel's
/// parameter with the spec's type already (docs/spec.md, "Kernel signatures"). A vector type
/// (a struct of several T: `float4*` over a float array, with a global size of extent(A, 0) / 4)
/// is taken too, as OpenCL takes it; check warns that it cannot compare its element type.
template <typename T>
struct ElementPtr {
  T* p;
  template <typename V>
  static constexpr bool kScalarLike =
      sizeof(V) == sizeof(T) && std::is_floating_point_v<V> ==
                                    std::is_floating_point_v<T>&& std::is_signed_v<V> ==
                                    std::is_signed_v<T>;
  template <typename V>
  static constexpr bool kVectorOf = std::is_class_v<V>&& std::is_standard_layout_v<V> &&
                                    sizeof(V) % sizeof(T) == 0 && alignof(V) >= alignof(T);
  template <typename U, typename V = std::remove_cv_t<U>,
            typename = std::enable_if_t<kScalarLike<V> || kVectorOf<V>>>
  operator U*() const {  // NOLINT: implicit, as a kernel launch converts its arguments
    return reinterpret_cast<U*>(p);
  }
};

/// One launch whose written `arrays` are then exchanged, the exchange overlapping the
/// interior's computation. `views[p]` (rt::overlap_views) cut part p's launch; `launch(p,
/// view, on)` enqueues the kernel over `view` on a stream of part p's GPU. No host waits:
///  1. each boundary stream waits for what its compute stream has enqueued so far, runs the
///     boundary views (high priority) and, for receivers without peer access, reads the boxes
///     sent into their staging (a page-locked buffer per box); a signal marks that;
///  2. the interior runs on the compute stream meanwhile;
///  3. each receiver's boundary stream waits for its senders' signals and copies the boxes in
///     (GPU to GPU, or from their staging); a signal marks that;
///  4. each boundary stream waits for its receivers' copies, so that no later kernel overwrites
///     a cell before it is copied, and each compute stream waits for its boundary stream (a
///     wait on its own GPU). The timeline counts this wait as exchange: the part of the
///     exchange not hidden behind the interior.
/// Returns the bytes moved (each box counted once).
template <typename Launch>
std::size_t launch_and_exchange(const std::vector<Device>& devices, const rt::Partition& partition,
                                const std::vector<rt::OverlapViews>& views,
                                const std::vector<ExchangeArray>& arrays, const PeerMatrix& peer,
                                Timeline& timeline, Launch launch) {
  const std::size_t n = partition.parts.size();
  std::vector<std::vector<bool>> pair(n, std::vector<bool>(n, false));
  for (const ExchangeArray& a : arrays)
    for (const rt::Transfer& t : *a.plan)
      pair[static_cast<std::size_t>(t.src)][static_cast<std::size_t>(t.dst)] = true;
  timeline.poll();
  std::vector<cudaEvent_t> sent(n), received(n);
  std::size_t bytes = 0;
  for (std::size_t p = 0; p < n; ++p) {
    timeline.wait(p, timeline.signal(p, On::kCompute), On::kBoundary);
    for (const rt::Box& view : views[p].boundary) launch(p, view, On::kBoundary);
    for (const ExchangeArray& a : arrays)
      for (std::size_t i = 0; i < a.plan->size(); ++i) {
        const rt::Transfer& t = (*a.plan)[i];
        if (static_cast<std::size_t>(t.src) != p) continue;
        for (std::size_t k = 0; k < t.boxes.size(); ++k) {
          if (!peer[p][static_cast<std::size_t>(t.dst)])
            read_box(devices[p], *a.buffers[p], partition.parts[p].ghost, (*a.staging)[i][k],
                     t.boxes[k], On::kBoundary);
          bytes += static_cast<std::size_t>(t.boxes[k].volume()) * a.host->element_bytes;
        }
      }
    sent[p] = timeline.signal(p, On::kBoundary);
  }
  for (std::size_t p = 0; p < n; ++p)
    if (views[p].split) launch(p, views[p].interior, On::kCompute);
  for (std::size_t d = 0; d < n; ++d) {
    for (std::size_t s = 0; s < n; ++s)
      if (pair[s][d]) timeline.wait(d, sent[s], On::kBoundary);
    for (const ExchangeArray& a : arrays)
      for (std::size_t i = 0; i < a.plan->size(); ++i) {
        const rt::Transfer& t = (*a.plan)[i];
        if (static_cast<std::size_t>(t.dst) != d) continue;
        const auto s = static_cast<std::size_t>(t.src);
        for (std::size_t k = 0; k < t.boxes.size(); ++k) {
          const rt::Box& box = t.boxes[k];
          if (peer[s][d])
            peer_box(devices[s], *a.buffers[s], partition.parts[s].ghost, devices[d], *a.buffers[d],
                     partition.parts[d].ghost, box, a.host->element_bytes, a.host->name,
                     On::kBoundary);
          else
            write_box(devices[d], *a.buffers[d], partition.parts[d].ghost, (*a.staging)[i][k], box,
                      On::kBoundary);
        }
      }
    received[d] = timeline.signal(d, On::kBoundary);
  }
  // The waits on other GPUs' copies go on the boundary stream, which reaches them early (the
  // copies are short); the compute stream then waits on its own GPU's boundary stream only, so
  // that no wait across GPUs sits between one step's interior and the next.
  std::vector<cudaEvent_t> done(n);
  for (std::size_t p = 0; p < n; ++p) {
    for (std::size_t d = 0; d < n; ++d)
      if (pair[p][d]) timeline.wait(p, received[d], On::kBoundary);
    done[p] = timeline.signal(p, On::kBoundary);
  }
  for (std::size_t p = 0; p < n; ++p) {
    timeline.mark(p, Timeline::kKernels);
    timeline.wait(p, done[p]);
    timeline.mark(p, Timeline::kExchange);
  }
  return bytes;
}

}  // namespace stepgen::cuda
