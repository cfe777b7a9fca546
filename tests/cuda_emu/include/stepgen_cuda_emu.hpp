#pragma once
/// \file
/// A CPU emulation of the part of the CUDA runtime API that stepgen's generated CUDA programs
/// use (runtime/include/stepgen/exec/cuda.hpp, ooc_cuda.hpp, mpi_cuda.hpp and the templates under
/// templates/cuda/), so that CI, which has no GPU and need not have the CUDA toolkit, builds and
/// runs those programs and compares them bit for bit with the serial references. A test
/// harness, not a backend: tests/cuda_emu/build.sh compiles a generated NAME.cu as C++ with
/// this header (through tests/cuda_emu/include/cuda_runtime.h).
///
/// What it models:
///  - STEPGEN_CUDA_EMULATE=N virtual devices (unset or 0: no device, cudaErrorNoDevice), each
///    with STEPGEN_CUDA_EMULATE_MEMORY bytes (default 1 GiB; cudaMalloc past it fails with
///    cudaErrorMemoryAllocation, cudaMemGetInfo reports what is left). A current device per
///    host thread (cudaSetDevice).
///  - Device memory is host memory, tagged with its device: copies check that device pointers
///    lie inside one allocation (whole range), that cudaMemcpyKind matches where each pointer
///    lives, that peer copies name the devices that own the memory, and kernel launches that
///    every pointer argument lies in memory of the launching device (or of a peer whose access
///    was enabled). A violation is the error a GPU would give (cudaErrorInvalidValue,
///    cudaErrorIllegalAddress...) plus one line on stderr saying what was wrong.
///  - Streams queue their work, which runs when the host waits for it, in an order chosen among
///    those CUDA allows (seeded, STEPGEN_CUDA_EMULATE_SEED), honouring cudaStreamWaitEvent;
///    copies with pageable host memory run when issued, after their stream's earlier work.
///    STEPGEN_CUDA_EMULATE_ORDER=issue runs every call at once instead. Priorities and flags
///    are kept, not used. Events record the host time their record ran at. A stream or event
///    used on another device than its own, where CUDA forbids it, is
///    cudaErrorInvalidResourceHandle.
///  - Page locking (cudaHostRegister, cudaMallocHost) is bookkeeping: registering twice or
///    unregistering what was not registered are the errors CUDA gives.
///  - Kernels are host C++: __global__ and the other qualifiers are defined away, and a launch
///    (STEPGEN_LAUNCH(kernel, grid, block, stream)(args...), which is kernel<<<...>>> under
///    nvcc) runs every thread of every block in turn, blockIdx/threadIdx/blockDim/gridDim
///    being thread-local variables. Kernels that use __shared__ memory or __syncthreads (or
///    warp intrinsics) cannot run one thread at a time: they fail to build, with a message.
///  - The last error of each host thread (cudaGetLastError / cudaPeekAtLastError).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__CUDACC__)
#error "stepgen_cuda_emu.hpp emulates CUDA on the CPU for host compilers: do not use it with nvcc"
#endif

// ------------------------------------------------------------------------------------------------
// Qualifiers and built-in variables of CUDA C++
// ------------------------------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __CUDA_EMULATED__ 1
// One thread at a time cannot share memory with, or wait for, the other threads of its block:
// such kernels fail to build, saying why (_Pragma takes one literal, so each is written out).
// clang-format off
#define __shared__                                                                                 \
  _Pragma("GCC error \"stepgen CUDA emulation: kernels that use __shared__ memory cannot be emulated (threads run one at a time); test them on a GPU\"")
#define __syncthreads(...)                                                                         \
  _Pragma("GCC error \"stepgen CUDA emulation: kernels that use __syncthreads cannot be emulated (threads run one at a time); test them on a GPU\"")
#define __syncwarp(...)                                                                            \
  _Pragma("GCC error \"stepgen CUDA emulation: kernels that use __syncwarp cannot be emulated (threads run one at a time); test them on a GPU\"")
#define STEPGEN_CUDA_EMU_WARP                                                                      \
  _Pragma("GCC error \"stepgen CUDA emulation: kernels that use warp shuffles or votes cannot be emulated (threads run one at a time); test them on a GPU\"")
#define __shfl_sync(...) STEPGEN_CUDA_EMU_WARP
#define __shfl_up_sync(...) STEPGEN_CUDA_EMU_WARP
#define __shfl_down_sync(...) STEPGEN_CUDA_EMU_WARP
#define __shfl_xor_sync(...) STEPGEN_CUDA_EMU_WARP
#define __ballot_sync(...) STEPGEN_CUDA_EMU_WARP
#define __any_sync(...) STEPGEN_CUDA_EMU_WARP
#define __all_sync(...) STEPGEN_CUDA_EMU_WARP
// clang-format on

struct uint3 {
  unsigned int x, y, z;
};
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
struct int2 {
  int x, y;
};
struct int3 {
  int x, y, z;
};
struct int4 {
  int x, y, z, w;
};
struct float2 {
  float x, y;
};
struct float3 {
  float x, y, z;
};
struct float4 {
  float x, y, z, w;
};
struct double2 {
  double x, y;
};
inline int2 make_int2(int x, int y) {
  return {x, y};
}
inline int3 make_int3(int x, int y, int z) {
  return {x, y, z};
}
inline int4 make_int4(int x, int y, int z, int w) {
  return {x, y, z, w};
}
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) {
  return {x, y, z};
}
inline float2 make_float2(float x, float y) {
  return {x, y};
}
inline float3 make_float3(float x, float y, float z) {
  return {x, y, z};
}
inline float4 make_float4(float x, float y, float z, float w) {
  return {x, y, z, w};
}
inline double2 make_double2(double x, double y) {
  return {x, y};
}

/// The thread being run: set by the launch loop before each call of the kernel.
inline thread_local uint3 threadIdx{0, 0, 0};
inline thread_local uint3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};
constexpr int warpSize = 32;

// Device functions a kernel may call: exact host equivalents (threads run one at a time, so
// atomics are plain read-modify-writes).
template <typename T>
T __ldg(const T* p) {
  return *p;
}
template <typename T>
T atomicAdd(T* p, T v) {
  T old = *p;
  *p = old + v;
  return old;
}
template <typename T>
T atomicExch(T* p, T v) {
  T old = *p;
  *p = v;
  return old;
}
template <typename T>
T atomicMin(T* p, T v) {
  T old = *p;
  *p = v < old ? v : old;
  return old;
}
template <typename T>
T atomicMax(T* p, T v) {
  T old = *p;
  *p = old < v ? v : old;
  return old;
}
template <typename T>
T atomicCAS(T* p, T compare, T v) {
  T old = *p;
  if (old == compare) *p = v;
  return old;
}
inline float __fadd_rn(float a, float b) {
  return a + b;
}
inline float __fsub_rn(float a, float b) {
  return a - b;
}
inline float __fmul_rn(float a, float b) {
  return a * b;
}
inline float __fdiv_rn(float a, float b) {
  return a / b;
}
inline double __dadd_rn(double a, double b) {
  return a + b;
}
inline double __dsub_rn(double a, double b) {
  return a - b;
}
inline double __dmul_rn(double a, double b) {
  return a * b;
}
inline double __ddiv_rn(double a, double b) {
  return a / b;
}
inline void __threadfence() {}

// ------------------------------------------------------------------------------------------------
// Types of the runtime API (the numeric values are CUDA's)
// ------------------------------------------------------------------------------------------------
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidHostPointer = 16,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchTimeout = 702,
  cudaErrorPeerAccessAlreadyEnabled = 704,
  cudaErrorPeerAccessNotEnabled = 705,
  cudaErrorAssert = 710,
  cudaErrorHostMemoryAlreadyRegistered = 712,
  cudaErrorHostMemoryNotRegistered = 713,
  cudaErrorHardwareStackError = 714,
  cudaErrorIllegalInstruction = 715,
  cudaErrorMisalignedAddress = 716,
  cudaErrorInvalidPc = 718,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotSupported = 801,
  cudaErrorUnknown = 999,
};
using cudaError_t = cudaError;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

namespace stepgen_cuda_emu {
struct Stream;
struct Event;
}  // namespace stepgen_cuda_emu
using cudaStream_t = stepgen_cuda_emu::Stream*;
using cudaEvent_t = stepgen_cuda_emu::Event*;

constexpr unsigned int cudaStreamDefault = 0x0;
constexpr unsigned int cudaStreamNonBlocking = 0x1;
constexpr unsigned int cudaEventDefault = 0x0;
constexpr unsigned int cudaEventBlockingSync = 0x1;
constexpr unsigned int cudaEventDisableTiming = 0x2;
constexpr unsigned int cudaHostRegisterDefault = 0x0;
constexpr unsigned int cudaHostRegisterPortable = 0x1;
constexpr unsigned int cudaHostRegisterMapped = 0x2;
constexpr unsigned int cudaHostAllocDefault = 0x0;
constexpr unsigned int cudaHostAllocPortable = 0x1;

struct cudaDeviceProp {
  char name[256];
  std::size_t totalGlobalMem;
  std::size_t sharedMemPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int major;
  int minor;
  int multiProcessorCount;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int unifiedAddressing;
};

struct cudaPitchedPtr {
  void* ptr;
  std::size_t pitch;
  std::size_t xsize;
  std::size_t ysize;
};
struct cudaPos {
  std::size_t x, y, z;
};
struct cudaExtent {
  std::size_t width, height, depth;
};
struct cudaArray;
using cudaArray_t = cudaArray*;
struct cudaMemcpy3DParms {
  cudaArray_t srcArray;
  cudaPos srcPos;
  cudaPitchedPtr srcPtr;
  cudaArray_t dstArray;
  cudaPos dstPos;
  cudaPitchedPtr dstPtr;
  cudaExtent extent;
  cudaMemcpyKind kind;
};
struct cudaMemcpy3DPeerParms {
  cudaArray_t srcArray;
  cudaPos srcPos;
  cudaPitchedPtr srcPtr;
  int srcDevice;
  cudaArray_t dstArray;
  cudaPos dstPos;
  cudaPitchedPtr dstPtr;
  int dstDevice;
  cudaExtent extent;
};

inline cudaPitchedPtr make_cudaPitchedPtr(void* d, std::size_t p, std::size_t xsz,
                                          std::size_t ysz) {
  return {d, p, xsz, ysz};
}
inline cudaPos make_cudaPos(std::size_t x, std::size_t y, std::size_t z) {
  return {x, y, z};
}
inline cudaExtent make_cudaExtent(std::size_t w, std::size_t h, std::size_t d) {
  return {w, h, d};
}

// ------------------------------------------------------------------------------------------------
// The emulated machine
// ------------------------------------------------------------------------------------------------
namespace stepgen_cuda_emu {

/// Work enqueued on a stream (deferred order): `run`, or (`event` set) a wait until `event`'s
/// record number `seq` has happened; `records` names the event a record op completes.
struct Op {
  std::function<void()> run;
  Event* event = nullptr;
  std::uint64_t seq = 0;
  Event* records = nullptr;
};

struct Stream {
  int device;
  int priority;
  unsigned int flags;
  bool legacy = false;  ///< a device's default stream (0): its work runs at once
  std::deque<Op> queue;
};

struct Event {
  int device;
  unsigned int flags;
  bool recorded = false;
  std::uint64_t issued = 0;  ///< records enqueued
  std::uint64_t done = 0;    ///< the last record that has happened
  std::chrono::steady_clock::time_point when{};
};

/// One allocation of device memory (or of page-locked host memory, device = -1).
struct Allocation {
  std::size_t bytes;
  int device;
};

struct Machine {
  std::mutex lock;  // the runtime copies host boxes on threads; CUDA calls come from one
  int devices = 0;
  std::size_t memory = std::size_t(1) << 30;
  std::vector<std::size_t> used;
  std::vector<std::vector<bool>> peer_enabled;  // [from][to]: from may access to's memory
  std::map<const char*, Allocation> device_memory;
  std::map<const char*, std::size_t> pinned_alloc;  // cudaMallocHost
  std::map<const char*, std::size_t> registered;    // cudaHostRegister
  std::set<Stream*> streams;
  std::vector<Stream*> order;  // the streams in creation order (deferred: a seeded choice)
  std::set<Event*> events;
  std::deque<Stream> legacy;  // each device's default stream (0)
  bool deferred = true;       // STEPGEN_CUDA_EMULATE_ORDER=deferred (default) or issue
  std::mt19937_64 rng;

  Machine() {
    const char* n = std::getenv("STEPGEN_CUDA_EMULATE");
    if (n && *n) devices = std::max(0, std::atoi(n));
    const char* m = std::getenv("STEPGEN_CUDA_EMULATE_MEMORY");
    if (m && *m) memory = static_cast<std::size_t>(std::strtoull(m, nullptr, 10));
    used.assign(static_cast<std::size_t>(devices), 0);
    peer_enabled.assign(static_cast<std::size_t>(devices),
                        std::vector<bool>(static_cast<std::size_t>(devices)));
    for (int d = 0; d < devices; ++d) legacy.push_back(Stream{d, 0, 0, true, {}});
    const char* o = std::getenv("STEPGEN_CUDA_EMULATE_ORDER");
    const std::string order_knob = o ? o : "";
    if (order_knob.empty() || order_knob == "deferred") {
      deferred = true;
    } else if (order_knob != "issue") {
      std::fprintf(stderr,
                   "stepgen CUDA emulation: STEPGEN_CUDA_EMULATE_ORDER must be deferred or issue, "
                   "not '%s'\n",
                   o);
      std::exit(2);
    }
    const char* seed = std::getenv("STEPGEN_CUDA_EMULATE_SEED");
    rng.seed(seed && *seed ? std::strtoull(seed, nullptr, 10) : 1);
  }
};

inline Machine& machine() {
  static Machine m;
  return m;
}
inline thread_local int current_device = 0;
inline thread_local cudaError_t last_error = cudaSuccess;

/// Every call returns through here: a failure becomes the thread's last error.
inline cudaError_t fail(cudaError_t e) {
  if (e != cudaSuccess) last_error = e;
  return e;
}
/// A failure the emulation explains on stderr (what a GPU would not say as clearly).
inline cudaError_t fail(cudaError_t e, const std::string& why) {
  std::fprintf(stderr, "stepgen CUDA emulation: %s\n", why.c_str());
  return fail(e);
}

inline bool valid_device(int d) {
  return d >= 0 && d < machine().devices;
}

/// The device allocation holding [p, p + bytes), or nullptr (`whole` false: p alone).
inline const Allocation* device_range(const void* p, std::size_t bytes,
                                      const char** base = nullptr) {
  Machine& m = machine();
  const char* c = static_cast<const char*>(p);
  auto it = m.device_memory.upper_bound(c);
  if (it == m.device_memory.begin()) return nullptr;
  --it;
  if (c < it->first || c >= it->first + it->second.bytes) return nullptr;
  if (base) *base = it->first;
  (void)bytes;
  return &it->second;
}

/// Whether [p, p + bytes) lies inside one device allocation; else says why on stderr.
inline bool inside(const Allocation* a, const char* base, const void* p, std::size_t bytes) {
  return a && static_cast<const char*>(p) + bytes <= base + a->bytes;
}

inline Stream* stream_of(cudaStream_t s) {
  Machine& m = machine();
  if (s == nullptr)
    return valid_device(current_device) ? &m.legacy[static_cast<std::size_t>(current_device)]
                                        : nullptr;
  return m.streams.count(s) ? s : nullptr;
}

inline std::string where(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

/// Checks one side of a copy: `bytes` at p, said by the call to be on a device (`device`
/// true; `ordinal` >= 0: that device) or on the host.
inline cudaError_t check_side(const char* call, const char* side, const void* p, std::size_t bytes,
                              bool device, int ordinal = -1) {
  if (bytes == 0) return cudaSuccess;
  if (p == nullptr)
    return fail(cudaErrorInvalidValue, std::string(call) + ": the " + side + " pointer is null");
  const char* base = nullptr;
  const Allocation* a = device_range(p, bytes, &base);
  if (!device) {
    if (a)
      return fail(cudaErrorInvalidValue, std::string(call) + ": the " + side + " " + where(p) +
                                             " is device memory (of device " +
                                             std::to_string(a->device) +
                                             ") but the copy's kind says host memory");
    return cudaSuccess;
  }
  if (!a)
    return fail(cudaErrorInvalidValue,
                std::string(call) + ": the " + side + " " + where(p) + " is not device memory");
  if (!inside(a, base, p, bytes))
    return fail(cudaErrorInvalidValue,
                std::string(call) + ": " + std::to_string(bytes) + " bytes at the " + side + " " +
                    where(p) + " run past the end of its allocation (" + std::to_string(a->bytes) +
                    " bytes at " + where(base) + ")");
  if (ordinal >= 0 && a->device != ordinal)
    return fail(cudaErrorInvalidValue, std::string(call) + ": the " + side + " " + where(p) +
                                           " is memory of device " + std::to_string(a->device) +
                                           ", not of device " + std::to_string(ordinal) +
                                           " as the call says");
  return cudaSuccess;
}

/// Where a kind puts each side: {source on a device, destination on a device}; for
/// cudaMemcpyDefault, where the pointers are.
inline std::pair<bool, bool> sides(cudaMemcpyKind kind, const void* dst, const void* src) {
  switch (kind) {
    case cudaMemcpyHostToHost:
      return {false, false};
    case cudaMemcpyHostToDevice:
      return {false, true};
    case cudaMemcpyDeviceToHost:
      return {true, false};
    case cudaMemcpyDeviceToDevice:
      return {true, true};
    default:
      return {device_range(src, 1) != nullptr, device_range(dst, 1) != nullptr};
  }
}

/// The bytes of a pitched box that a 3D copy touches, from its first: the span to check.
inline cudaError_t check_pitched(const char* call, const char* side, const cudaPitchedPtr& p,
                                 const cudaPos& pos, const cudaExtent& e, bool device,
                                 int ordinal = -1) {
  if (e.width == 0 || e.height == 0 || e.depth == 0) return cudaSuccess;
  if (p.pitch == 0 || pos.x + e.width > p.pitch)
    return fail(cudaErrorInvalidPitchValue,
                std::string(call) + ": the " + side + " rows (" + std::to_string(pos.x) + " + " +
                    std::to_string(e.width) + " bytes) do not fit its pitch " +
                    std::to_string(p.pitch));
  if (e.depth > 1 && pos.y + e.height > p.ysize)
    return fail(cudaErrorInvalidValue, std::string(call) + ": the " + side + " box's rows (" +
                                           std::to_string(pos.y) + " + " +
                                           std::to_string(e.height) + ") do not fit its height " +
                                           std::to_string(p.ysize));
  const std::size_t slice = p.pitch * p.ysize;
  const std::size_t first = pos.z * slice + pos.y * p.pitch + pos.x;
  const std::size_t last =
      (pos.z + e.depth - 1) * slice + (pos.y + e.height - 1) * p.pitch + pos.x + e.width;
  return check_side(call, side, static_cast<const char*>(p.ptr) + first, last - first, device,
                    ordinal);
}

inline void copy_3d(const cudaPitchedPtr& dst, const cudaPos& dpos, const cudaPitchedPtr& src,
                    const cudaPos& spos, const cudaExtent& e) {
  const std::size_t ds = dst.pitch * dst.ysize, ss = src.pitch * src.ysize;
  for (std::size_t z = 0; z < e.depth; ++z)
    for (std::size_t y = 0; y < e.height; ++y)
      std::memmove(
          static_cast<char*>(dst.ptr) + (dpos.z + z) * ds + (dpos.y + y) * dst.pitch + dpos.x,
          static_cast<const char*>(src.ptr) + (spos.z + z) * ss + (spos.y + y) * src.pitch + spos.x,
          e.width);
}

/// A stream call's stream, checked: `s` must exist (0 is the current device's default stream).
inline cudaError_t check_stream(const char* call, cudaStream_t s, Stream** out = nullptr) {
  if (!valid_device(current_device)) return fail(cudaErrorInvalidDevice);
  Stream* st = stream_of(s);
  if (!st) return fail(cudaErrorInvalidResourceHandle, std::string(call) + ": no such stream");
  if (out) *out = st;
  return cudaSuccess;
}

// ------------------------------------------------------------------------------------------------
// Streams. Deferred (the default, STEPGEN_CUDA_EMULATE_ORDER=deferred), work waits in its
// stream's queue and runs only when the host waits for it (or for something behind it): then,
// among the streams whose next op may run (its event waits satisfied), a random one (seeded by
// STEPGEN_CUDA_EMULATE_SEED, default 1) goes next. Orders CUDA allows so come up, and results
// that depend on a missing wait (between streams, or of the host) differ. In issue order
// (STEPGEN_CUDA_EMULATE_ORDER=issue) every call runs at once, when it is made.
// ------------------------------------------------------------------------------------------------
inline bool may_run(const Op& op) {
  return op.event == nullptr || op.event->done >= op.seq;
}

/// Runs the next op of one ready stream; false when none is ready.
inline bool step() {
  Machine& m = machine();
  std::vector<Stream*> ready;
  for (Stream* s : m.order)
    if (!s->queue.empty() && may_run(s->queue.front())) ready.push_back(s);
  if (ready.empty()) return false;
  Stream* s = ready[static_cast<std::size_t>(m.rng() % ready.size())];
  Op op = std::move(s->queue.front());
  s->queue.pop_front();
  if (op.run) op.run();
  return true;
}

/// Runs queued work until `done()`.
template <typename Done>
void run_until(Done done, const char* call) {
  while (!done())
    if (!step()) {
      std::fprintf(stderr, "stepgen CUDA emulation: %s waits for work that can never run\n", call);
      std::abort();
    }
}

inline bool idle() {
  for (Stream* s : machine().order)
    if (!s->queue.empty()) return false;
  return true;
}
/// Runs everything enqueued (the host waits for every stream).
inline void drain(const char* call) {
  if (machine().deferred) run_until(idle, call);
}

/// Enqueues `f` on `st` (deferred), or runs it now: in issue order, on a default stream (after
/// all other work: the legacy stream waits for the others), and for a copy with pageable host
/// memory (`now`: after the stream's earlier work, as CUDA stages those copies synchronously).
inline void enqueue(Stream* st, std::function<void()> f, bool now = false,
                    Event* records = nullptr) {
  if (machine().deferred && st->legacy) drain("the default stream");
  if (machine().deferred && now)
    run_until([st] { return st->queue.empty(); }, "a copy with pageable host memory");
  if (!machine().deferred || st->legacy || now) {
    f();
    return;
  }
  st->queue.push_back(Op{std::move(f), nullptr, 0, records});
}

/// Whether [p, p + bytes) is page-locked host memory (cudaHostRegister or cudaMallocHost).
inline bool page_locked(const void* p, std::size_t bytes) {
  Machine& m = machine();
  const char* c = static_cast<const char*>(p);
  for (const auto* map : {&m.registered, &m.pinned_alloc}) {
    auto it = map->upper_bound(c);
    if (it == map->begin()) continue;
    --it;
    if (c >= it->first && c + bytes <= it->first + it->second) return true;
  }
  return false;
}

// ------------------------------------------------------------------------------------------------
// Kernel launches
// ------------------------------------------------------------------------------------------------
/// Checks a pointer argument of a launch on `device`: it must point into memory of that device
/// or of a peer whose access it enabled.
inline bool pointer_argument_ok(const char* kernel, int device, std::size_t index, const void* p) {
  if (p == nullptr) return true;
  const Allocation* a = device_range(p, 1);
  Machine& m = machine();
  if (!a) {
    fail(cudaErrorIllegalAddress, std::string(kernel) + ": argument " + std::to_string(index) +
                                      " (" + where(p) + ") is not device memory");
    return false;
  }
  if (a->device != device &&
      !m.peer_enabled[static_cast<std::size_t>(device)][static_cast<std::size_t>(a->device)]) {
    fail(cudaErrorIllegalAddress,
         std::string(kernel) + ": argument " + std::to_string(index) + " (" + where(p) +
             ") is memory of device " + std::to_string(a->device) +
             " but the kernel runs on device " + std::to_string(device) + " (no peer access)");
    return false;
  }
  return true;
}

template <typename T>
bool argument_ok(const char* kernel, int device, std::size_t index, const T& v) {
  if constexpr (std::is_pointer_v<T>)
    return pointer_argument_ok(kernel, device, index, static_cast<const void*>(v));
  (void)kernel, (void)device, (void)index, (void)v;
  return true;
}

/// kernel<<<grid, block, shared, stream>>>: `operator()(args...)` converts the arguments to the
/// kernel's parameter types (as a launch does), checks the configuration, the stream and the
/// pointers, then runs every thread of every block, x fastest, block by block.
template <typename... P>
class Launch {
 public:
  Launch(void (*kernel)(P...), const char* name, dim3 grid, dim3 block, std::size_t shared,
         cudaStream_t stream)
      : kernel_(kernel),
        name_(name),
        grid_(grid),
        block_(block),
        shared_(shared),
        stream_(stream) {}

  template <typename... A>
  void operator()(A&&... args) const {
    static_assert(sizeof...(A) == sizeof...(P),
                  "a kernel launch with the wrong number of arguments");
    std::tuple<P...> params(std::forward<A>(args)...);
    if (!configuration_ok() || !arguments_ok(params, std::index_sequence_for<P...>{})) return;
    enqueue(stream_of(stream_), [kernel = kernel_, params, grid = grid_, block = block_] {
      const dim3 saved_grid = gridDim, saved_block = blockDim;
      gridDim = grid;
      blockDim = block;
      for (unsigned bz = 0; bz < grid.z; ++bz)
        for (unsigned by = 0; by < grid.y; ++by)
          for (unsigned bx = 0; bx < grid.x; ++bx) {
            blockIdx = uint3{bx, by, bz};
            for (unsigned tz = 0; tz < block.z; ++tz)
              for (unsigned ty = 0; ty < block.y; ++ty)
                for (unsigned tx = 0; tx < block.x; ++tx) {
                  threadIdx = uint3{tx, ty, tz};
                  std::apply(kernel, params);  // each thread gets its own copies of the arguments
                }
          }
      gridDim = saved_grid;
      blockDim = saved_block;
    });
  }

 private:
  bool configuration_ok() const {
    const unsigned long long threads = 1ull * block_.x * block_.y * block_.z;
    std::string why;
    if (grid_.x == 0 || grid_.y == 0 || grid_.z == 0 || block_.x == 0 || block_.y == 0 ||
        block_.z == 0)
      why = "a grid or block dimension is 0";
    else if (threads > 1024 || block_.x > 1024 || block_.y > 1024 || block_.z > 64)
      why = "more than 1024 threads per block, or a block dimension past 1024x1024x64";
    else if (grid_.y > 65535 || grid_.z > 65535)
      why = "a grid dimension y or z past 65535";
    else if (shared_ != 0)
      why = "dynamic shared memory is not emulated";
    if (!why.empty()) {
      fail(cudaErrorInvalidConfiguration, std::string(name_) + ": " + why);
      return false;
    }
    if (!valid_device(current_device)) {
      fail(cudaErrorInvalidDevice);
      return false;
    }
    Stream* st = stream_of(stream_);
    if (!st || st->device != current_device) {
      fail(cudaErrorInvalidResourceHandle,
           std::string(name_) + ": launched on a stream " +
               (st ? "of device " + std::to_string(st->device) : "that does not exist") +
               " while device " + std::to_string(current_device) + " is current");
      return false;
    }
    return true;
  }
  template <std::size_t... I>
  bool arguments_ok(const std::tuple<P...>& params, std::index_sequence<I...>) const {
    return (argument_ok(name_, current_device, I, std::get<I>(params)) && ...);
  }

  void (*kernel_)(P...);
  const char* name_;
  dim3 grid_, block_;
  std::size_t shared_;
  cudaStream_t stream_;
};

template <typename... P>
Launch<P...> launch(void (*kernel)(P...), const char* name, dim3 grid, dim3 block,
                    std::size_t shared, cudaStream_t stream) {
  return Launch<P...>(kernel, name, grid, block, shared, stream);
}

}  // namespace stepgen_cuda_emu

/// kernel<<<grid, block, 0, stream>>>(args...) is STEPGEN_LAUNCH(kernel, grid, block,
/// stream)(args...) (runtime/include/stepgen/exec/cuda.hpp defines it with <<<>>> under nvcc).
#define STEPGEN_LAUNCH(kernel, grid, block, stream) \
  ::stepgen_cuda_emu::launch(kernel, #kernel, grid, block, 0, stream)

// ------------------------------------------------------------------------------------------------
// The runtime API
// ------------------------------------------------------------------------------------------------
inline const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
#define STEPGEN_CUDA_EMU_NAME(x) \
  case x:                        \
    return #x;
    STEPGEN_CUDA_EMU_NAME(cudaSuccess)
    STEPGEN_CUDA_EMU_NAME(cudaErrorInvalidValue)
    STEPGEN_CUDA_EMU_NAME(cudaErrorMemoryAllocation)
    STEPGEN_CUDA_EMU_NAME(cudaErrorInvalidConfiguration)
    STEPGEN_CUDA_EMU_NAME(cudaErrorInvalidPitchValue)
    STEPGEN_CUDA_EMU_NAME(cudaErrorInvalidHostPointer)
    STEPGEN_CUDA_EMU_NAME(cudaErrorInvalidDevicePointer)
    STEPGEN_CUDA_EMU_NAME(cudaErrorInvalidMemcpyDirection)
    STEPGEN_CUDA_EMU_NAME(cudaErrorInsufficientDriver)
    STEPGEN_CUDA_EMU_NAME(cudaErrorNoDevice)
    STEPGEN_CUDA_EMU_NAME(cudaErrorInvalidDevice)
    STEPGEN_CUDA_EMU_NAME(cudaErrorInvalidResourceHandle)
    STEPGEN_CUDA_EMU_NAME(cudaErrorNotReady)
    STEPGEN_CUDA_EMU_NAME(cudaErrorIllegalAddress)
    STEPGEN_CUDA_EMU_NAME(cudaErrorLaunchTimeout)
    STEPGEN_CUDA_EMU_NAME(cudaErrorPeerAccessAlreadyEnabled)
    STEPGEN_CUDA_EMU_NAME(cudaErrorPeerAccessNotEnabled)
    STEPGEN_CUDA_EMU_NAME(cudaErrorAssert)
    STEPGEN_CUDA_EMU_NAME(cudaErrorHostMemoryAlreadyRegistered)
    STEPGEN_CUDA_EMU_NAME(cudaErrorHostMemoryNotRegistered)
    STEPGEN_CUDA_EMU_NAME(cudaErrorHardwareStackError)
    STEPGEN_CUDA_EMU_NAME(cudaErrorIllegalInstruction)
    STEPGEN_CUDA_EMU_NAME(cudaErrorMisalignedAddress)
    STEPGEN_CUDA_EMU_NAME(cudaErrorInvalidPc)
    STEPGEN_CUDA_EMU_NAME(cudaErrorLaunchFailure)
    STEPGEN_CUDA_EMU_NAME(cudaErrorNotSupported)
    STEPGEN_CUDA_EMU_NAME(cudaErrorUnknown)
#undef STEPGEN_CUDA_EMU_NAME
  }
  return "cudaErrorUnknown";
}

inline const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess:
      return "no error";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInvalidConfiguration:
      return "invalid configuration argument";
    case cudaErrorInvalidPitchValue:
      return "invalid pitch argument";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    case cudaErrorNoDevice:
      return "no CUDA-capable device is detected (STEPGEN_CUDA_EMULATE is not set)";
    case cudaErrorInvalidResourceHandle:
      return "invalid resource handle";
    case cudaErrorNotReady:
      return "device not ready";
    case cudaErrorIllegalAddress:
      return "an illegal memory access was encountered";
    case cudaErrorPeerAccessAlreadyEnabled:
      return "peer access is already enabled";
    case cudaErrorPeerAccessNotEnabled:
      return "peer access has not been enabled";
    case cudaErrorHostMemoryAlreadyRegistered:
      return "part or all of the requested memory range is already mapped";
    case cudaErrorHostMemoryNotRegistered:
      return "pointer does not correspond to a registered memory region";
    default:
      return "error (stepgen CUDA emulation)";
  }
}

inline cudaError_t cudaGetLastError() {
  const cudaError_t e = stepgen_cuda_emu::last_error;
  stepgen_cuda_emu::last_error = cudaSuccess;
  return e;
}
inline cudaError_t cudaPeekAtLastError() {
  return stepgen_cuda_emu::last_error;
}

// Devices --------------------------------------------------------------------------------------
inline cudaError_t cudaGetDeviceCount(int* count) {
  namespace e = stepgen_cuda_emu;
  if (!count) return e::fail(cudaErrorInvalidValue);
  *count = 0;
  if (e::machine().devices == 0) return e::fail(cudaErrorNoDevice);
  *count = e::machine().devices;
  return cudaSuccess;
}

inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  namespace e = stepgen_cuda_emu;
  if (!prop) return e::fail(cudaErrorInvalidValue);
  if (!e::valid_device(device)) return e::fail(cudaErrorInvalidDevice);
  *prop = cudaDeviceProp{};
  std::snprintf(prop->name, sizeof prop->name, "stepgen CUDA emulation %d", device);
  prop->totalGlobalMem = e::machine().memory;
  prop->sharedMemPerBlock = 48 << 10;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 2147483647;
  prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
  prop->major = 9;
  prop->minor = 0;
  prop->multiProcessorCount = 1;
  prop->pciBusID = device;
  prop->unifiedAddressing = 1;
  return cudaSuccess;
}

inline cudaError_t cudaSetDevice(int device) {
  namespace e = stepgen_cuda_emu;
  if (!e::valid_device(device))
    return e::fail(e::machine().devices == 0 ? cudaErrorNoDevice : cudaErrorInvalidDevice);
  e::current_device = device;
  return cudaSuccess;
}

inline cudaError_t cudaGetDevice(int* device) {
  namespace e = stepgen_cuda_emu;
  if (!device) return e::fail(cudaErrorInvalidValue);
  *device = e::current_device;
  return cudaSuccess;
}

inline cudaError_t cudaDeviceSynchronize() {
  namespace e = stepgen_cuda_emu;
  if (!e::valid_device(e::current_device)) return e::fail(cudaErrorInvalidDevice);
  e::drain("cudaDeviceSynchronize");
  return cudaSuccess;
}

inline cudaError_t cudaMemGetInfo(std::size_t* free, std::size_t* total) {
  namespace e = stepgen_cuda_emu;
  if (!free || !total) return e::fail(cudaErrorInvalidValue);
  if (!e::valid_device(e::current_device)) return e::fail(cudaErrorInvalidDevice);
  std::lock_guard<std::mutex> g(e::machine().lock);
  *total = e::machine().memory;
  *free = *total - e::machine().used[static_cast<std::size_t>(e::current_device)];
  return cudaSuccess;
}

inline cudaError_t cudaDeviceCanAccessPeer(int* can, int device, int peer) {
  namespace e = stepgen_cuda_emu;
  if (!can) return e::fail(cudaErrorInvalidValue);
  if (!e::valid_device(device) || !e::valid_device(peer)) return e::fail(cudaErrorInvalidDevice);
  // STEPGEN_CUDA_EMULATE_PEER=off: no pair of devices has peer access.
  const char* knob = std::getenv("STEPGEN_CUDA_EMULATE_PEER");
  *can = device != peer && !(knob && std::string(knob) == "off") ? 1 : 0;
  return cudaSuccess;
}

inline cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags) {
  namespace e = stepgen_cuda_emu;
  if (flags != 0) return e::fail(cudaErrorInvalidValue);
  if (!e::valid_device(peer) || !e::valid_device(e::current_device))
    return e::fail(cudaErrorInvalidDevice);
  int can = 0;
  cudaDeviceCanAccessPeer(&can, e::current_device, peer);
  if (!can) return e::fail(cudaErrorInvalidDevice);
  auto&& enabled = e::machine().peer_enabled[static_cast<std::size_t>(e::current_device)]
                                            [static_cast<std::size_t>(peer)];
  if (enabled) return e::fail(cudaErrorPeerAccessAlreadyEnabled);
  enabled = true;
  return cudaSuccess;
}

inline cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return cudaSuccess;
}

// Memory ---------------------------------------------------------------------------------------
inline cudaError_t cudaMalloc(void** p, std::size_t bytes) {
  namespace e = stepgen_cuda_emu;
  if (!p) return e::fail(cudaErrorInvalidValue);
  *p = nullptr;
  if (!e::valid_device(e::current_device)) return e::fail(cudaErrorInvalidDevice);
  e::Machine& m = e::machine();
  std::lock_guard<std::mutex> g(m.lock);
  std::size_t& used = m.used[static_cast<std::size_t>(e::current_device)];
  const std::size_t size = std::max<std::size_t>(bytes, 1);
  if (size > m.memory - used) return e::fail(cudaErrorMemoryAllocation);
  void* mem = std::aligned_alloc(256, (size + 255) / 256 * 256);
  if (!mem) return e::fail(cudaErrorMemoryAllocation);
  // Fresh device memory is not zeroed on a GPU: a pattern (NaN for floats) makes reads of
  // cells nobody wrote show up in the results.
  std::memset(mem, 0xff, size);
  used += size;
  m.device_memory[static_cast<const char*>(mem)] = e::Allocation{size, e::current_device};
  *p = mem;
  return cudaSuccess;
}

inline cudaError_t cudaFree(void* p) {
  namespace e = stepgen_cuda_emu;
  if (!p) return cudaSuccess;
  e::drain("cudaFree");  // CUDA's cudaFree waits for the device
  e::Machine& m = e::machine();
  std::lock_guard<std::mutex> g(m.lock);
  auto it = m.device_memory.find(static_cast<const char*>(p));
  if (it == m.device_memory.end())
    return e::fail(cudaErrorInvalidDevicePointer,
                   "cudaFree(" + e::where(p) + "): not the start of an allocation");
  m.used[static_cast<std::size_t>(it->second.device)] -= it->second.bytes;
  m.device_memory.erase(it);
  std::free(p);
  return cudaSuccess;
}

inline cudaError_t cudaMallocHost(void** p, std::size_t bytes) {
  namespace e = stepgen_cuda_emu;
  if (!p) return e::fail(cudaErrorInvalidValue);
  const std::size_t size = std::max<std::size_t>(bytes, 1);
  *p = std::aligned_alloc(256, (size + 255) / 256 * 256);
  if (!*p) return e::fail(cudaErrorMemoryAllocation);
  std::lock_guard<std::mutex> g(e::machine().lock);
  e::machine().pinned_alloc[static_cast<const char*>(*p)] = size;
  return cudaSuccess;
}
inline cudaError_t cudaHostAlloc(void** p, std::size_t bytes, unsigned int) {
  return cudaMallocHost(p, bytes);
}

inline cudaError_t cudaFreeHost(void* p) {
  namespace e = stepgen_cuda_emu;
  if (!p) return cudaSuccess;
  e::drain("cudaFreeHost");
  std::lock_guard<std::mutex> g(e::machine().lock);
  if (!e::machine().pinned_alloc.erase(static_cast<const char*>(p)))
    return e::fail(cudaErrorInvalidValue,
                   "cudaFreeHost(" + e::where(p) + "): not from cudaMallocHost");
  std::free(p);
  return cudaSuccess;
}

inline cudaError_t cudaHostRegister(void* p, std::size_t bytes, unsigned int) {
  namespace e = stepgen_cuda_emu;
  if (!p || bytes == 0) return e::fail(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> g(e::machine().lock);
  auto& reg = e::machine().registered;
  const char* c = static_cast<const char*>(p);
  auto it = reg.upper_bound(c);
  if (it != reg.end() && it->first < c + bytes)
    return e::fail(cudaErrorHostMemoryAlreadyRegistered);
  if (it != reg.begin() && std::prev(it)->first + std::prev(it)->second > c)
    return e::fail(cudaErrorHostMemoryAlreadyRegistered);
  if (reg.count(c)) return e::fail(cudaErrorHostMemoryAlreadyRegistered);
  reg[c] = bytes;
  return cudaSuccess;
}

inline cudaError_t cudaHostUnregister(void* p) {
  namespace e = stepgen_cuda_emu;
  e::drain("cudaHostUnregister");
  std::lock_guard<std::mutex> g(e::machine().lock);
  if (!e::machine().registered.erase(static_cast<const char*>(p)))
    return e::fail(cudaErrorHostMemoryNotRegistered);
  return cudaSuccess;
}

inline cudaError_t cudaMemset(void* p, int value, std::size_t bytes) {
  namespace e = stepgen_cuda_emu;
  if (cudaError_t s = e::check_side("cudaMemset", "destination", p, bytes, true); s != cudaSuccess)
    return s;
  e::drain("cudaMemset");
  std::memset(p, value, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void* p, int value, std::size_t bytes,
                                   cudaStream_t s = nullptr) {
  namespace e = stepgen_cuda_emu;
  e::Stream* st = nullptr;
  if (cudaError_t r = e::check_stream("cudaMemsetAsync", s, &st); r != cudaSuccess) return r;
  if (cudaError_t r = e::check_side("cudaMemsetAsync", "destination", p, bytes, true);
      r != cudaSuccess)
    return r;
  e::enqueue(st, [=] { std::memset(p, value, bytes); });
  return cudaSuccess;
}

// Copies: checked when issued, run when their stream gets to them ------------------------------
namespace stepgen_cuda_emu {
/// Checks a linear copy; `pageable`: it touches host memory that is not page-locked.
inline cudaError_t check_copy(const char* call, void* dst, const void* src, std::size_t bytes,
                              cudaMemcpyKind kind, bool* pageable) {
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
    return fail(cudaErrorInvalidMemcpyDirection);
  const auto [src_dev, dst_dev] = sides(kind, dst, src);
  if (cudaError_t s = check_side(call, "source", src, bytes, src_dev); s != cudaSuccess) return s;
  if (cudaError_t s = check_side(call, "destination", dst, bytes, dst_dev); s != cudaSuccess)
    return s;
  *pageable = (!src_dev && !page_locked(src, bytes)) || (!dst_dev && !page_locked(dst, bytes));
  return cudaSuccess;
}
/// Checks a 3D copy (as check_copy).
inline cudaError_t check_copy_3d(const char* call, const cudaMemcpy3DParms* p, bool* pageable) {
  if (!p || p->srcArray || p->dstArray)
    return fail(cudaErrorInvalidValue, std::string(call) + ": CUDA arrays are not emulated");
  if (p->kind < cudaMemcpyHostToHost || p->kind > cudaMemcpyDefault)
    return fail(cudaErrorInvalidMemcpyDirection);
  const auto [src_dev, dst_dev] = sides(p->kind, p->dstPtr.ptr, p->srcPtr.ptr);
  if (cudaError_t s = check_pitched(call, "source", p->srcPtr, p->srcPos, p->extent, src_dev);
      s != cudaSuccess)
    return s;
  if (cudaError_t s = check_pitched(call, "destination", p->dstPtr, p->dstPos, p->extent, dst_dev);
      s != cudaSuccess)
    return s;
  *pageable = (!src_dev && !page_locked(p->srcPtr.ptr, p->srcPtr.pitch * p->srcPtr.ysize)) ||
              (!dst_dev && !page_locked(p->dstPtr.ptr, p->dstPtr.pitch * p->dstPtr.ysize));
  return cudaSuccess;
}
/// Checks a 3D peer copy.
inline cudaError_t check_copy_3d_peer(const char* call, const cudaMemcpy3DPeerParms* p) {
  if (!p || p->srcArray || p->dstArray)
    return fail(cudaErrorInvalidValue, std::string(call) + ": CUDA arrays are not emulated");
  if (!valid_device(p->srcDevice) || !valid_device(p->dstDevice))
    return fail(cudaErrorInvalidDevice);
  if (cudaError_t s =
          check_pitched(call, "source", p->srcPtr, p->srcPos, p->extent, true, p->srcDevice);
      s != cudaSuccess)
    return s;
  return check_pitched(call, "destination", p->dstPtr, p->dstPos, p->extent, true, p->dstDevice);
}
inline cudaError_t check_copy_peer(const char* call, void* dst, int dst_device, const void* src,
                                   int src_device, std::size_t bytes) {
  if (!valid_device(dst_device) || !valid_device(src_device)) return fail(cudaErrorInvalidDevice);
  if (cudaError_t s = check_side(call, "source", src, bytes, true, src_device); s != cudaSuccess)
    return s;
  return check_side(call, "destination", dst, bytes, true, dst_device);
}
}  // namespace stepgen_cuda_emu

inline cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  namespace e = stepgen_cuda_emu;
  bool pageable = false;
  if (cudaError_t s = e::check_copy("cudaMemcpy", dst, src, bytes, kind, &pageable);
      s != cudaSuccess)
    return s;
  e::drain("cudaMemcpy");
  if (bytes) std::memmove(dst, src, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes,
                                   cudaMemcpyKind kind, cudaStream_t s = nullptr) {
  namespace e = stepgen_cuda_emu;
  e::Stream* st = nullptr;
  if (cudaError_t r = e::check_stream("cudaMemcpyAsync", s, &st); r != cudaSuccess) return r;
  bool pageable = false;
  if (cudaError_t r = e::check_copy("cudaMemcpyAsync", dst, src, bytes, kind, &pageable);
      r != cudaSuccess)
    return r;
  e::enqueue(
      st,
      [=] {
        if (bytes) std::memmove(dst, src, bytes);
      },
      pageable);
  return cudaSuccess;
}

inline cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device,
                                  std::size_t bytes) {
  namespace e = stepgen_cuda_emu;
  if (cudaError_t s = e::check_copy_peer("cudaMemcpyPeer", dst, dst_device, src, src_device, bytes);
      s != cudaSuccess)
    return s;
  e::drain("cudaMemcpyPeer");
  if (bytes) std::memmove(dst, src, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                       std::size_t bytes, cudaStream_t s = nullptr) {
  namespace e = stepgen_cuda_emu;
  e::Stream* st = nullptr;
  if (cudaError_t r = e::check_stream("cudaMemcpyPeerAsync", s, &st); r != cudaSuccess) return r;
  if (cudaError_t r =
          e::check_copy_peer("cudaMemcpyPeerAsync", dst, dst_device, src, src_device, bytes);
      r != cudaSuccess)
    return r;
  e::enqueue(st, [=] {
    if (bytes) std::memmove(dst, src, bytes);
  });
  return cudaSuccess;
}

inline cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  namespace e = stepgen_cuda_emu;
  bool pageable = false;
  if (cudaError_t s = e::check_copy_3d("cudaMemcpy3D", p, &pageable); s != cudaSuccess) return s;
  e::drain("cudaMemcpy3D");
  e::copy_3d(p->dstPtr, p->dstPos, p->srcPtr, p->srcPos, p->extent);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t s = nullptr) {
  namespace e = stepgen_cuda_emu;
  e::Stream* st = nullptr;
  if (cudaError_t r = e::check_stream("cudaMemcpy3DAsync", s, &st); r != cudaSuccess) return r;
  bool pageable = false;
  if (cudaError_t r = e::check_copy_3d("cudaMemcpy3DAsync", p, &pageable); r != cudaSuccess)
    return r;
  const cudaMemcpy3DParms c = *p;
  e::enqueue(
      st, [c] { e::copy_3d(c.dstPtr, c.dstPos, c.srcPtr, c.srcPos, c.extent); }, pageable);
  return cudaSuccess;
}

inline cudaError_t cudaMemcpy3DPeer(const cudaMemcpy3DPeerParms* p) {
  namespace e = stepgen_cuda_emu;
  if (cudaError_t s = e::check_copy_3d_peer("cudaMemcpy3DPeer", p); s != cudaSuccess) return s;
  e::drain("cudaMemcpy3DPeer");
  e::copy_3d(p->dstPtr, p->dstPos, p->srcPtr, p->srcPos, p->extent);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy3DPeerAsync(const cudaMemcpy3DPeerParms* p, cudaStream_t s = nullptr) {
  namespace e = stepgen_cuda_emu;
  e::Stream* st = nullptr;
  if (cudaError_t r = e::check_stream("cudaMemcpy3DPeerAsync", s, &st); r != cudaSuccess) return r;
  if (cudaError_t r = e::check_copy_3d_peer("cudaMemcpy3DPeerAsync", p); r != cudaSuccess) return r;
  const cudaMemcpy3DPeerParms c = *p;
  e::enqueue(st, [c] { e::copy_3d(c.dstPtr, c.dstPos, c.srcPtr, c.srcPos, c.extent); });
  return cudaSuccess;
}

// Streams --------------------------------------------------------------------------------------
inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned int flags, int priority) {
  namespace e = stepgen_cuda_emu;
  if (!s) return e::fail(cudaErrorInvalidValue);
  if (!e::valid_device(e::current_device)) return e::fail(cudaErrorInvalidDevice);
  *s = new e::Stream{e::current_device, priority, flags, false, {}};
  e::machine().streams.insert(*s);
  e::machine().order.push_back(*s);
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int flags) {
  return cudaStreamCreateWithPriority(s, flags, 0);
}
inline cudaError_t cudaStreamCreate(cudaStream_t* s) {
  return cudaStreamCreateWithPriority(s, 0, 0);
}

/// The stream's work still runs (CUDA destroys it once idle).
inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
  namespace e = stepgen_cuda_emu;
  e::Machine& m = e::machine();
  if (!m.streams.count(s)) return e::fail(cudaErrorInvalidResourceHandle);
  e::run_until([s] { return s->queue.empty(); }, "cudaStreamDestroy");
  m.streams.erase(s);
  m.order.erase(std::find(m.order.begin(), m.order.end(), s));
  delete s;
  return cudaSuccess;
}

inline cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  namespace e = stepgen_cuda_emu;
  e::Stream* st = e::stream_of(s);
  if (!st) return e::fail(cudaErrorInvalidResourceHandle, "cudaStreamSynchronize: no such stream");
  e::run_until([st] { return st->queue.empty(); }, "cudaStreamSynchronize");
  return cudaSuccess;
}
inline cudaError_t cudaStreamQuery(cudaStream_t s) {
  namespace e = stepgen_cuda_emu;
  e::Stream* st = e::stream_of(s);
  if (!st) return e::fail(cudaErrorInvalidResourceHandle, "cudaStreamQuery: no such stream");
  return st->queue.empty() ? cudaSuccess : cudaErrorNotReady;
}

// Events ---------------------------------------------------------------------------------------
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* ev, unsigned int flags) {
  namespace e = stepgen_cuda_emu;
  if (!ev) return e::fail(cudaErrorInvalidValue);
  if (!e::valid_device(e::current_device)) return e::fail(cudaErrorInvalidDevice);
  *ev = new e::Event{e::current_device, flags};
  e::machine().events.insert(*ev);
  return cudaSuccess;
}
inline cudaError_t cudaEventCreate(cudaEvent_t* ev) {
  return cudaEventCreateWithFlags(ev, cudaEventDefault);
}

/// Work that records or waits for the event still runs (CUDA releases it once done).
inline cudaError_t cudaEventDestroy(cudaEvent_t ev) {
  namespace e = stepgen_cuda_emu;
  e::Machine& m = e::machine();
  if (!m.events.count(ev)) return e::fail(cudaErrorInvalidResourceHandle);
  auto unused = [&m, ev] {
    for (e::Stream* s : m.order)
      for (const e::Op& op : s->queue)
        if (op.event == ev || op.records == ev) return false;
    return true;
  };
  e::run_until(unused, "cudaEventDestroy");
  m.events.erase(ev);
  delete ev;
  return cudaSuccess;
}

/// The event and the stream must belong to one device (CUDA's rule for cudaEventRecord).
inline cudaError_t cudaEventRecord(cudaEvent_t ev, cudaStream_t s = nullptr) {
  namespace e = stepgen_cuda_emu;
  if (!e::machine().events.count(ev))
    return e::fail(cudaErrorInvalidResourceHandle, "cudaEventRecord: no such event");
  e::Stream* st = nullptr;
  if (cudaError_t r = e::check_stream("cudaEventRecord", s, &st); r != cudaSuccess) return r;
  if (st->device != ev->device)
    return e::fail(cudaErrorInvalidResourceHandle,
                   "cudaEventRecord: an event of device " + std::to_string(ev->device) +
                       " recorded on a stream of device " + std::to_string(st->device));
  const std::uint64_t seq = ++ev->issued;
  e::enqueue(
      st,
      [ev, seq] {
        ev->done = std::max(ev->done, seq);
        ev->recorded = true;
        ev->when = std::chrono::steady_clock::now();
      },
      false, ev);
  return cudaSuccess;
}

inline cudaError_t cudaEventQuery(cudaEvent_t ev) {
  namespace e = stepgen_cuda_emu;
  if (!e::machine().events.count(ev))
    return e::fail(cudaErrorInvalidResourceHandle, "cudaEventQuery: no such event");
  return ev->done >= ev->issued ? cudaSuccess : cudaErrorNotReady;  // not an error
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t ev) {
  namespace e = stepgen_cuda_emu;
  if (!e::machine().events.count(ev))
    return e::fail(cudaErrorInvalidResourceHandle, "cudaEventSynchronize: no such event");
  e::run_until([ev] { return ev->done >= ev->issued; }, "cudaEventSynchronize");
  return cudaSuccess;
}

inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  namespace e = stepgen_cuda_emu;
  if (!ms) return e::fail(cudaErrorInvalidValue);
  if (!e::machine().events.count(start) || !e::machine().events.count(end))
    return e::fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: no such event");
  if ((start->flags | end->flags) & cudaEventDisableTiming)
    return e::fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: an event without timing");
  if (start->issued == 0 || end->issued == 0) return e::fail(cudaErrorInvalidResourceHandle);
  if (start->done < start->issued || end->done < end->issued) return e::fail(cudaErrorNotReady);
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return cudaSuccess;
}

/// Later work on `s` waits for the event's latest record so far (none: no wait). The stream
/// may be of any device (waits across GPUs are what CUDA allows).
inline cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t ev, unsigned int flags = 0) {
  namespace e = stepgen_cuda_emu;
  if (flags != 0) return e::fail(cudaErrorInvalidValue);
  if (!e::machine().events.count(ev))
    return e::fail(cudaErrorInvalidResourceHandle, "cudaStreamWaitEvent: no such event");
  e::Stream* st = e::stream_of(s);
  if (!st) return e::fail(cudaErrorInvalidResourceHandle, "cudaStreamWaitEvent: no such stream");
  const std::uint64_t seq = ev->issued;
  if (ev->done >= seq) return cudaSuccess;
  if (st->legacy)
    e::run_until([ev, seq] { return ev->done >= seq; }, "cudaStreamWaitEvent");
  else
    st->queue.push_back(e::Op{nullptr, ev, seq, nullptr});
  return cudaSuccess;
}
