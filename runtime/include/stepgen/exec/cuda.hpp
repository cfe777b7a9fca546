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

#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/exchange.hpp"

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
  std::string label() const { return device_label() + rt::part_label(part); }
  /// The GPU alone, without the part: "device 0 (GPU 0, NVIDIA H200)".
  std::string device_label() const {
    return "device " + std::to_string(index) + " (GPU " + std::to_string(ordinal) + ", " + name +
           ")";
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

}  // namespace stepgen::cuda
