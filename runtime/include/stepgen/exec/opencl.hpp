#pragma once
/// \file
/// OpenCL helpers for generated programs: checked calls that name the call, the device and the
/// error; device discovery over every platform; one context and in-order queue per device (so
/// devices of different platforms work together); program builds that print the build log;
/// rectangular copies of boxes between device buffers and host arrays. OpenCL 1.2 API.

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/exchange.hpp"

namespace stepgen::cl {

inline const char* error_name(cl_int e) {
  switch (e) {
#define STEPGEN_CL_ERROR(x) \
  case x:                   \
    return #x;
    STEPGEN_CL_ERROR(CL_SUCCESS)
    STEPGEN_CL_ERROR(CL_DEVICE_NOT_FOUND)
    STEPGEN_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
    STEPGEN_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
    STEPGEN_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    STEPGEN_CL_ERROR(CL_OUT_OF_RESOURCES)
    STEPGEN_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
    STEPGEN_CL_ERROR(CL_PROFILING_INFO_NOT_AVAILABLE)
    STEPGEN_CL_ERROR(CL_MEM_COPY_OVERLAP)
    STEPGEN_CL_ERROR(CL_IMAGE_FORMAT_MISMATCH)
    STEPGEN_CL_ERROR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    STEPGEN_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
    STEPGEN_CL_ERROR(CL_MAP_FAILURE)
    STEPGEN_CL_ERROR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    STEPGEN_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    STEPGEN_CL_ERROR(CL_COMPILE_PROGRAM_FAILURE)
    STEPGEN_CL_ERROR(CL_LINKER_NOT_AVAILABLE)
    STEPGEN_CL_ERROR(CL_LINK_PROGRAM_FAILURE)
    STEPGEN_CL_ERROR(CL_DEVICE_PARTITION_FAILED)
    STEPGEN_CL_ERROR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    STEPGEN_CL_ERROR(CL_INVALID_VALUE)
    STEPGEN_CL_ERROR(CL_INVALID_DEVICE_TYPE)
    STEPGEN_CL_ERROR(CL_INVALID_PLATFORM)
    STEPGEN_CL_ERROR(CL_INVALID_DEVICE)
    STEPGEN_CL_ERROR(CL_INVALID_CONTEXT)
    STEPGEN_CL_ERROR(CL_INVALID_QUEUE_PROPERTIES)
    STEPGEN_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
    STEPGEN_CL_ERROR(CL_INVALID_HOST_PTR)
    STEPGEN_CL_ERROR(CL_INVALID_MEM_OBJECT)
    STEPGEN_CL_ERROR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    STEPGEN_CL_ERROR(CL_INVALID_IMAGE_SIZE)
    STEPGEN_CL_ERROR(CL_INVALID_SAMPLER)
    STEPGEN_CL_ERROR(CL_INVALID_BINARY)
    STEPGEN_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
    STEPGEN_CL_ERROR(CL_INVALID_PROGRAM)
    STEPGEN_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
    STEPGEN_CL_ERROR(CL_INVALID_KERNEL_NAME)
    STEPGEN_CL_ERROR(CL_INVALID_KERNEL_DEFINITION)
    STEPGEN_CL_ERROR(CL_INVALID_KERNEL)
    STEPGEN_CL_ERROR(CL_INVALID_ARG_INDEX)
    STEPGEN_CL_ERROR(CL_INVALID_ARG_VALUE)
    STEPGEN_CL_ERROR(CL_INVALID_ARG_SIZE)
    STEPGEN_CL_ERROR(CL_INVALID_KERNEL_ARGS)
    STEPGEN_CL_ERROR(CL_INVALID_WORK_DIMENSION)
    STEPGEN_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
    STEPGEN_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
    STEPGEN_CL_ERROR(CL_INVALID_GLOBAL_OFFSET)
    STEPGEN_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST)
    STEPGEN_CL_ERROR(CL_INVALID_EVENT)
    STEPGEN_CL_ERROR(CL_INVALID_OPERATION)
    STEPGEN_CL_ERROR(CL_INVALID_GL_OBJECT)
    STEPGEN_CL_ERROR(CL_INVALID_BUFFER_SIZE)
    STEPGEN_CL_ERROR(CL_INVALID_MIP_LEVEL)
    STEPGEN_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
    STEPGEN_CL_ERROR(CL_INVALID_PROPERTY)
#undef STEPGEN_CL_ERROR
    default:
      return "unknown OpenCL error";
  }
}

/// Throws RunError("CALL failed on DEVICE: CL_ERROR (code)") when `status` is not CL_SUCCESS.
inline void check(cl_int status, const char* call, const std::string& device) {
  if (status == CL_SUCCESS) return;
  throw rt::RunError(std::string(call) + " failed on " + device + ": " + error_name(status) + " (" +
                     std::to_string(status) + ")");
}

/// Owns one OpenCL object and releases it (clRelease*) when it goes.
template <typename T, cl_int (*Release)(T)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(T h) : h_(h) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  ~Handle() { reset(); }
  void reset() {
    if (h_) Release(h_);
    h_ = nullptr;
  }
  T get() const { return h_; }
  /// For swap/rotate: buffers change names, not contents.
  friend void swap(Handle& a, Handle& b) noexcept { std::swap(a.h_, b.h_); }

 private:
  T h_ = nullptr;
};
using Context = Handle<cl_context, clReleaseContext>;
using Queue = Handle<cl_command_queue, clReleaseCommandQueue>;
using Program = Handle<cl_program, clReleaseProgram>;
using Kernel = Handle<cl_kernel, clReleaseKernel>;
using Mem = Handle<cl_mem, clReleaseMemObject>;
using Event = Handle<cl_event, clReleaseEvent>;

/// The two in-order queues of a device. Kernels run on kCompute, one after the other; when an
/// exchange overlaps computation, the halo copies run on kBoundary, beside the interior.
/// (Two kernels of one program never run at once, neither on one device nor on two devices of
/// one process: PoCL 3.1, Debian 12's, can abort then, see build_program.)
enum class On { kCompute, kBoundary };

/// One device with its own context and two in-order queues.
struct Device {
  int index = 0;  ///< position in the run's device list
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  std::string name;
  std::string platform_name;
  cl_device_type type = 0;
  cl_ulong global_mem = 0;
  cl_ulong max_alloc = 0;
  Context context;
  Queue queue;     ///< kernels
  Queue boundary;  ///< boundary slabs and copies that overlap the kernels of `queue`
  int part = -1;   ///< with several parts on the device (--parts): the part this handle runs
  cl_command_queue on(On q) const { return q == On::kCompute ? queue.get() : boundary.get(); }
  /// "device 1 (NVIDIA H100, NVIDIA CUDA)", "device 0 (pthread-..., Portable Computing
  /// Language), part 3": how messages name it.
  std::string label() const { return device_label() + rt::part_label(part); }
  /// The device alone, without the part: "device 0 (pthread-..., Portable Computing Language)".
  std::string device_label() const {
    return "device " + std::to_string(index) + " (" + name + ", " + platform_name + ")";
  }
  /// Whether `o` is a handle of the same device (another part of it: the same context).
  bool same_device(const Device& o) const { return context.get() == o.context.get(); }
};

inline std::string platform_string(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  check(clGetPlatformInfo(p, what, 0, nullptr, &n), "clGetPlatformInfo", "platform");
  std::string s(n, '\0');
  check(clGetPlatformInfo(p, what, n, s.data(), nullptr), "clGetPlatformInfo", "platform");
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

inline std::string device_string(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  check(clGetDeviceInfo(d, what, 0, nullptr, &n), "clGetDeviceInfo", "device");
  std::string s(n, '\0');
  check(clGetDeviceInfo(d, what, n, s.data(), nullptr), "clGetDeviceInfo", "device");
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

inline const char* type_name(cl_device_type t) {
  if (t & CL_DEVICE_TYPE_GPU) return "gpu";
  if (t & CL_DEVICE_TYPE_CPU) return "cpu";
  if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

/// Finds the devices the options ask for, on every platform, in platform order, and gives
/// each its context and queue. Throws RunError naming what was found when too few match.
inline std::vector<Device> discover(const rt::Options& opt) {
  cl_uint nplat = 0;
  // The ICD loader answers CL_PLATFORM_NOT_FOUND_KHR (-1001) when no platform is installed.
  cl_int status = clGetPlatformIDs(0, nullptr, &nplat);
  if (status == -1001 || nplat == 0)
    throw rt::RunError("no OpenCL platform found (is an ICD installed? e.g. pocl-opencl-icd)");
  check(status, "clGetPlatformIDs", "host");
  std::vector<cl_platform_id> platforms(nplat);
  check(clGetPlatformIDs(nplat, platforms.data(), nullptr), "clGetPlatformIDs", "host");

  cl_device_type want = CL_DEVICE_TYPE_ALL;
  if (opt.device_type == "gpu") want = CL_DEVICE_TYPE_GPU;
  if (opt.device_type == "cpu") want = CL_DEVICE_TYPE_CPU;

  std::vector<Device> found;
  std::string seen;             // every platform and its devices, for the error messages
  int present = 0;              // devices of every type on every platform
  std::string other_types;      // types of the devices --device-type left out ("cpu, gpu")
  bool other_platform = false;  // devices --platform left out
  for (cl_platform_id p : platforms) {
    std::string pname = platform_string(p, CL_PLATFORM_NAME);
    cl_uint ndev = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &ndev) != CL_SUCCESS || ndev == 0) {
      seen += "\n  platform '" + pname + "': no devices";
      continue;
    }
    seen += "\n  platform '" + pname + "':";
    std::vector<cl_device_id> ids(ndev);
    check(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, ndev, ids.data(), nullptr), "clGetDeviceIDs",
          pname);
    for (cl_device_id id : ids) {
      Device d;
      d.platform = p;
      d.id = id;
      d.platform_name = pname;
      d.name = device_string(id, CL_DEVICE_NAME);
      check(clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof d.type, &d.type, nullptr), "clGetDeviceInfo",
            d.name);
      check(clGetDeviceInfo(id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof d.global_mem, &d.global_mem,
                            nullptr),
            "clGetDeviceInfo", d.name);
      check(clGetDeviceInfo(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof d.max_alloc, &d.max_alloc,
                            nullptr),
            "clGetDeviceInfo", d.name);
      seen += "\n    " + d.name + " [" + type_name(d.type) + "]";
      ++present;
      bool type_ok = (d.type & want) != 0;
      bool platform_ok = opt.platform.empty() || pname.find(opt.platform) != std::string::npos;
      if (platform_ok && !type_ok && other_types.find(type_name(d.type)) == std::string::npos)
        other_types += std::string(other_types.empty() ? "" : " or ") + type_name(d.type);
      other_platform |= type_ok && !platform_ok;
      if (type_ok && platform_ok) found.push_back(std::move(d));
    }
  }
  std::string filter =
      "type " + opt.device_type + (opt.platform.empty() ? "" : ", platform '" + opt.platform + "'");
  const std::string searched = "searched " + std::to_string(platforms.size()) + " platform" +
                               (platforms.size() == 1 ? "" : "s") + ":" + seen;
  if (present == 0)
    throw rt::RunError(
        "no OpenCL device found: every platform has no devices; " + searched +
        "\n(PoCL's devices are chosen by POCL_DEVICES: unset it, or set it to e.g. 'pthread'; "
        "other drivers may need their device files or a GPU on this machine)");
  if (found.empty()) {
    std::string hint;
    if (!other_types.empty())
      hint += "--device-type " + other_types + " (or all) selects the devices listed";
    if (other_platform)
      hint +=
          std::string(hint.empty() ? "" : "; ") + "--platform takes a part of a platform's name";
    if (hint.empty()) hint = "--device-type all and no --platform select every device listed";
    throw rt::RunError("no OpenCL device matches (" + filter + "); " + searched + "\n(" + hint +
                       ")");
  }
  if (opt.devices > 0) {
    if (static_cast<size_t>(opt.devices) > found.size())
      throw rt::RunError("asked for " + std::to_string(opt.devices) + " devices but only " +
                         std::to_string(found.size()) + " match (" + filter + "); " + searched);
    found.resize(static_cast<size_t>(opt.devices));
  }
  for (size_t i = 0; i < found.size(); ++i) {
    Device& d = found[i];
    d.index = static_cast<int>(i);
    cl_int err = CL_SUCCESS;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                     reinterpret_cast<cl_context_properties>(d.platform), 0};
    d.context = Context(clCreateContext(props, 1, &d.id, nullptr, nullptr, &err));
    check(err, "clCreateContext", d.label());
    d.queue = Queue(clCreateCommandQueue(d.context.get(), d.id, 0, &err));
    check(err, "clCreateCommandQueue", d.label());
    d.boundary = Queue(clCreateCommandQueue(d.context.get(), d.id, 0, &err));
    check(err, "clCreateCommandQueue(boundary)", d.label());
  }
  return found;
}

/// One handle per part of `partition` (Part::device: the device of `devices` it runs on): the
/// parts of one device share its context and its two queues (retained), so that their
/// commands run in order as one device's do, and copies between them stay on the device.
inline std::vector<Device> part_devices(std::vector<Device> devices,
                                        const rt::Partition& partition) {
  std::vector<Device> out;
  for (const rt::Part& part : partition.parts) {
    const Device& d = devices[static_cast<std::size_t>(part.device)];
    Device h;
    h.index = d.index;
    h.platform = d.platform;
    h.id = d.id;
    h.name = d.name;
    h.platform_name = d.platform_name;
    h.type = d.type;
    h.global_mem = d.global_mem;
    h.max_alloc = d.max_alloc;
    h.part = part.id;
    check(clRetainContext(d.context.get()), "clRetainContext", d.label());
    h.context = Context(d.context.get());
    check(clRetainCommandQueue(d.queue.get()), "clRetainCommandQueue", d.label());
    h.queue = Queue(d.queue.get());
    check(clRetainCommandQueue(d.boundary.get()), "clRetainCommandQueue", d.label());
    h.boundary = Queue(d.boundary.get());
    out.push_back(std::move(h));
  }
  return out;
}

/// Builds `source` for one device; on failure the message carries the build log. A program
/// built once is kept for the process and given again for the same device, source and options
/// (the probe, the tuner, the calibration and the run each make the spec's kernels: one build,
/// not four; and the run launches a program whose kernels already ran, so its first step pays
/// no loading). Kept, never released: released OpenCL objects after the platform's exit
/// handlers can crash (init_opencl.hpp keeps its fill program so too).
inline Program build_program(const Device& d, const std::string& source,
                             const std::string& options) {
  using Key = std::tuple<cl_context, cl_device_id, std::string, std::string>;
  static std::mutex lock;
  static auto* built = new std::map<Key, cl_program>();
  std::lock_guard<std::mutex> hold(lock);
  const Key key{d.context.get(), d.id, source, options};
  if (auto it = built->find(key); it != built->end()) {
    check(clRetainProgram(it->second), "clRetainProgram", d.label());
    return Program(it->second);
  }
  cl_int err = CL_SUCCESS;
  const char* text = source.c_str();
  size_t length = source.size();
  Program p(clCreateProgramWithSource(d.context.get(), 1, &text, &length, &err));
  check(err, "clCreateProgramWithSource", d.label());
  // PoCL (3.1 at least) keeps one cache of loaded kernels for the whole process, keyed by the
  // program's build, and when two launches of one kernel with different shapes run at once it
  // can release the other's entry and abort ("pocl_release_dlhandle_cache: Assertion
  // `found->ref_count > 0' failed"). One build per device keeps the devices' kernels apart;
  // within a device, kernels run in order on one queue (On::kCompute). The macro is harmless
  // to the kernel, and PoCL's disk cache keeps each device's build for the next run.
  std::string all = options;
  if (d.platform_name.find("Portable Computing Language") != std::string::npos) {
    if (!all.empty()) all += ' ';
    all += "-D STEPGEN_POCL_DEVICE=" + std::to_string(d.index);
  }
  err = clBuildProgram(p.get(), 1, &d.id, all.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    size_t n = 0;
    clGetProgramBuildInfo(p.get(), d.id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    clGetProgramBuildInfo(p.get(), d.id, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    throw rt::RunError(std::string("clBuildProgram failed on ") + d.label() + ": " +
                       error_name(err) + "\n--- build log ---\n" + log);
  }
  check(clRetainProgram(p.get()), "clRetainProgram", d.label());
  built->emplace(key, p.get());
  return p;
}

/// Builds the spec's kernel files (`files`: joined, as the generated program embeds them) for
/// one device, with floating-point contraction turned off before them (`#pragma OPENCL
/// FP_CONTRACT OFF`), as the CUDA programs compile with `--fmad=false`: `a * b + c` is then
/// rounded as the serial reference rounds it, on every device, whether the files say so or not
/// (PoCL fused it in a user's kernel that did not: all devices agreed, the reference did not).
/// A pragma in the files still rules from where it stands (`FP_CONTRACT ON` to fuse).
/// `#line 1` keeps the build log's line numbers the files' own.
inline Program build_kernel_files(const Device& d, const char* files, const std::string& options) {
  return build_program(d, std::string("#pragma OPENCL FP_CONTRACT OFF\n#line 1\n") + files,
                       options);
}

inline Kernel create_kernel(const Device& d, const Program& p, const char* name) {
  cl_int err = CL_SUCCESS;
  Kernel k(clCreateKernel(p.get(), name, &err));
  check(err, (std::string("clCreateKernel(") + name + ")").c_str(), d.label());
  return k;
}

/// Throws when a part's buffers (`bytes` in all) cannot fit the device's global memory.
inline void check_fits(const Device& d, size_t bytes) {
  if (bytes > d.global_mem)
    throw rt::RunError("the arrays of this part need " +
                       rt::human_bytes(static_cast<double>(bytes)) + " on " + d.label() +
                       " but it has " + rt::human_bytes(static_cast<double>(d.global_mem)) +
                       "; use more devices");
}

/// A device buffer holding the box `box` of an array.
inline Mem create_buffer(const Device& d, const rt::Box& box, size_t element_bytes,
                         const std::string& array) {
  size_t bytes = static_cast<size_t>(box.volume()) * element_bytes;
  if (bytes > d.max_alloc)
    throw rt::RunError("array " + array + " needs " + rt::human_bytes(static_cast<double>(bytes)) +
                       " on " + d.label() + " but its largest allocation is " +
                       rt::human_bytes(static_cast<double>(d.max_alloc)) + "; use more devices");
  cl_int err = CL_SUCCESS;
  Mem m(clCreateBuffer(d.context.get(), CL_MEM_READ_WRITE, bytes, nullptr, &err));
  check(err, ("clCreateBuffer(" + array + ")").c_str(), d.label());
  return m;
}

/// Page-locked host memory for direct mapping: a host array's bytes are those of a
/// CL_MEM_ALLOC_HOST_PTR buffer of `d`'s context, mapped (and zeroed) for as long as the array
/// lives. That is how NVIDIA's OpenCL gives pinned memory, from which rectangular copies run at
/// the link's speed with no staging; elsewhere it is host memory the device copies from as
/// well as from any other. Each array is one buffer, which implementations may limit to the
/// device's largest allocation; when the allocation fails, the error says how much was asked.
inline rt::HostAllocator pinned_allocator(const Device& d) {
  return [&d](std::size_t n, const std::string& name) -> rt::HostBytes {
    if (n == 0) return rt::HostBytes();
    const std::string what =
        "page-locked host array " + name + " (" + rt::human_bytes(static_cast<double>(n)) + ")";
    cl_int err = CL_SUCCESS;
    Mem mem(clCreateBuffer(d.context.get(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, n, nullptr,
                           &err));
    // An implementation may allow host allocations past the device's largest one: try first.
    if (err != CL_SUCCESS)
      throw rt::RunError("clCreateBuffer(CL_MEM_ALLOC_HOST_PTR) failed on " + d.label() + ": " +
                         error_name(err) + ": cannot allocate the " + what +
                         (n > d.max_alloc
                              ? " (the device's largest allocation is " +
                                    rt::human_bytes(static_cast<double>(d.max_alloc)) + ")"
                              : std::string()) +
                         "; run with --pinned off (pageable host arrays), or on more devices");
    void* p = clEnqueueMapBuffer(d.queue.get(), mem.get(), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                 n, 0, nullptr, nullptr, &err);
    check(err, ("clEnqueueMapBuffer(" + what + ")").c_str(), d.label());
    std::memset(p, 0, n);
    cl_command_queue q = d.queue.get();
    check(clRetainCommandQueue(q), "clRetainCommandQueue", d.label());
    cl_mem m = mem.get();  // the deleter's reference; `mem` drops its own on return
    check(clRetainMemObject(m), "clRetainMemObject", d.label());
    std::shared_ptr<void> keep(p, [q, m](void* ptr) {  // no throwing here: a destructor's path
      clEnqueueUnmapMemObject(q, m, ptr, 0, nullptr, nullptr);
      clFinish(q);
      clReleaseMemObject(m);
      clReleaseCommandQueue(q);
    });
    return rt::HostBytes(static_cast<unsigned char*>(p), n, std::move(keep));
  };
}

namespace detail {
inline void rect_args(const rt::Box& sub, const rt::Box& buffer, const rt::Box& host, size_t elem,
                      rt::RectCopy& dev, rt::RectCopy& hst) {
  dev = rt::rect_of(sub, buffer, elem);
  hst = rt::rect_of(sub, host, elem);
}
}  // namespace detail

/// Enqueues a non-blocking copy of `sub` (global coordinates) from a device buffer holding
/// `buffer` into the host array. Appends the event to `events` when given.
inline void read_box(const Device& d, const Mem& mem, const rt::Box& buffer, rt::HostArray& host,
                     const rt::Box& sub, std::vector<Event>* events, On on = On::kCompute) {
  rt::RectCopy dev, hst;
  detail::rect_args(sub, buffer, host.box, host.element_bytes, dev, hst);
  cl_event ev = nullptr;
  check(clEnqueueReadBufferRect(d.on(on), mem.get(), CL_FALSE, dev.origin.data(), hst.origin.data(),
                                dev.region.data(), dev.row_pitch, dev.slice_pitch, hst.row_pitch,
                                hst.slice_pitch, host.bytes.data(), 0, nullptr,
                                events ? &ev : nullptr),
        ("clEnqueueReadBufferRect(" + host.name + ")").c_str(), d.label());
  if (events) events->emplace_back(ev);
}

/// Enqueues a non-blocking copy of `sub` from the host array into a device buffer holding
/// `buffer`. The host bytes must stay untouched until the queue has run it.
inline void write_box(const Device& d, const Mem& mem, const rt::Box& buffer,
                      const rt::HostArray& host, const rt::Box& sub, std::vector<Event>* events,
                      On on = On::kCompute) {
  rt::RectCopy dev, hst;
  detail::rect_args(sub, buffer, host.box, host.element_bytes, dev, hst);
  cl_event ev = nullptr;
  check(clEnqueueWriteBufferRect(d.on(on), mem.get(), CL_FALSE, dev.origin.data(),
                                 hst.origin.data(), dev.region.data(), dev.row_pitch,
                                 dev.slice_pitch, hst.row_pitch, hst.slice_pitch, host.bytes.data(),
                                 0, nullptr, events ? &ev : nullptr),
        ("clEnqueueWriteBufferRect(" + host.name + ")").c_str(), d.label());
  if (events) events->emplace_back(ev);
}

/// Enqueues a copy of `sub` between two buffers of one device (holding `src_box` and
/// `dst_box`): clEnqueueCopyBufferRect on queue `on` of `d`, its event added to `events`.
inline void copy_rect(const Device& d, const Mem& src, const rt::Box& src_box, const Mem& dst,
                      const rt::Box& dst_box, const rt::Box& sub, std::size_t element_bytes,
                      const std::string& name, std::vector<Event>* events, On on) {
  const rt::RectCopy s = rt::rect_of(sub, src_box, element_bytes);
  const rt::RectCopy t = rt::rect_of(sub, dst_box, element_bytes);
  if (t.bytes() == 0) return;
  cl_event ev = nullptr;
  check(clEnqueueCopyBufferRect(d.on(on), src.get(), dst.get(), s.origin.data(), t.origin.data(),
                                t.region.data(), s.row_pitch, s.slice_pitch, t.row_pitch,
                                t.slice_pitch, 0, nullptr, events ? &ev : nullptr),
        ("clEnqueueCopyBufferRect(" + name + " between parts)").c_str(), d.label());
  if (events) events->emplace_back(ev);
}

inline void finish(const Device& d, On on = On::kCompute) {
  check(clFinish(d.on(on)), "clFinish", d.label());
}

inline void finish_all(const std::vector<Device>& devices) {
  for (const Device& d : devices) finish(d);
}

/// Sets kernel argument `index` to a plain value or a buffer.
template <typename T>
void set_arg(const Device& d, const Kernel& k, cl_uint index, const T& value, const char* what) {
  check(clSetKernelArg(k.get(), index, sizeof(T), &value),
        (std::string("clSetKernelArg(") + what + ")").c_str(), d.label());
}
inline void set_arg(const Device& d, const Kernel& k, cl_uint index, const Mem& m,
                    const char* what) {
  cl_mem raw = m.get();
  set_arg(d, k, index, raw, what);
}

/// Part of a launch: work-items [begin, end) along dimension `axis` (global_work_offset; `end`
/// past the launch's global size means to its end).
struct Slab {
  int axis = 0;
  size_t begin = 0, end = 0;
};

/// Enqueues a kernel over `global` work-items (all of them, or a slab of them) on the device's
/// compute queue, after what is enqueued there before it.
inline void launch(const Device& d, const Kernel& k, const char* name, cl_uint dims,
                   const size_t* global, const size_t* local, const Slab* slab = nullptr) {
  size_t offset[3] = {0, 0, 0}, size[3] = {0, 0, 0};
  for (cl_uint i = 0; i < dims && i < 3; ++i) size[i] = global[i];
  if (slab) {
    const auto a = static_cast<std::size_t>(slab->axis);
    const size_t end = std::min(slab->end, global[a]);
    if (slab->begin >= end) return;
    offset[a] = slab->begin;
    size[a] = end - slab->begin;
  }
  const cl_int status = clEnqueueNDRangeKernel(
      d.queue.get(), k.get(), dims, slab ? offset : nullptr, size, local, 0, nullptr, nullptr);
  if (status == CL_SUCCESS) return;
  // The error names the call's sizes, so that a global size that is no multiple of the local
  // size (a round_up of a product of extents over a part's buffer) reads as such, not as -54.
  std::string call = std::string("clEnqueueNDRangeKernel(") + name + ", global ";
  for (cl_uint i = 0; i < dims && i < 3; ++i) call += (i ? "x" : "") + std::to_string(size[i]);
  if (local != nullptr) {
    call += ", local ";
    for (cl_uint i = 0; i < dims && i < 3; ++i) call += (i ? "x" : "") + std::to_string(local[i]);
  }
  call += slab ? ", a slab)" : ")";
  if (status == CL_INVALID_WORK_GROUP_SIZE && local != nullptr)
    call +=
        " (each global size must be a multiple of the local size on every part's buffer: "
        "round_up(E, L) with L that local size, E the expression)";
  check(status, call.c_str(), d.label());
}

/// Submits what is enqueued on both queues of a device, without waiting.
inline void flush(const Device& d) {
  check(clFlush(d.queue.get()), "clFlush", d.label());
  check(clFlush(d.boundary.get()), "clFlush(boundary)", d.label());
}

/// An event that completes when everything enqueued so far on the device's kernel queue has.
inline Event marker(const Device& d) {
  cl_event ev = nullptr;
  check(clEnqueueMarkerWithWaitList(d.queue.get(), 0, nullptr, &ev), "clEnqueueMarkerWithWaitList",
        d.label());
  return Event(ev);
}

/// Makes what is enqueued next on the boundary queue wait for what is enqueued so far on the
/// compute queue (the halo reads after the boundary slabs).
inline void boundary_after_compute(const Device& d) {
  Event done = marker(d);
  cl_event raw = done.get();
  check(clEnqueueBarrierWithWaitList(d.boundary.get(), 1, &raw, nullptr),
        "clEnqueueBarrierWithWaitList(boundary)", d.label());
}

/// Waits for each event (events of different contexts cannot share one clWaitForEvents call).
inline void wait_all(std::vector<Event>& events, const char* what) {
  for (Event& e : events) {
    cl_event raw = e.get();
    check(clWaitForEvents(1, &raw), "clWaitForEvents", what);
  }
  events.clear();
}

}  // namespace stepgen::cl
