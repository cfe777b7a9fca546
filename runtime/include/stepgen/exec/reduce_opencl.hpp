#pragma once
/// \file
/// Exact reductions on an OpenCL device (see stepgen/exec/reduce_device.hpp for the method): the
/// same bits as rt::Reduction adding the same values on the host, for float, double, int32,
/// int64 and uint32 data, ops sum, l2, min, max and linf, over a box of a device buffer (of
/// `a - minus` when minus is given, the subtraction in the data's type). No atomics, no local
/// memory: it runs on PoCL as on NVIDIA's OpenCL. One cl::Reducer per device holds its
/// programs (built on first use, one per data type) and scratch buffers.

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "stepgen/description/reduce.hpp"
#include "stepgen/exec/env_settings.hpp"
#include "stepgen/exec/kernels/reduce_cl.hpp"  // built from kernels/reduce.cl
#include "stepgen/exec/opencl.hpp"
#include "stepgen/exec/reduce_device.hpp"

namespace stepgen::cl {

namespace detail {

/// The kernels, for one data type: T, KIND (0 float, 1 double, 2 integer), the limb ranges
/// SUM_LO..SUM_HI and L2_LO..L2_HI (rt::device_reduce::limbs), L2_CLASSES (float l2: 1 the
/// exponent classes in registers, 0 the limbs at a computed index) and PTX_ASM (1: NVIDIA's
/// OpenCL, inline PTX) come as -D options.
inline const char* reduce_source() {
  return stepgen_runtime_kernel_reduce;  // kernels/reduce.cl, embedded at build time
}

inline const char* reduce_type_name(rt::device_reduce::Kind kind) {
  switch (kind) {
    case rt::device_reduce::Kind::kFloat:
      return "float";
    case rt::device_reduce::Kind::kDouble:
      return "double";
    case rt::device_reduce::Kind::kInt32:
      return "int";
    case rt::device_reduce::Kind::kInt64:
      return "long";
    case rt::device_reduce::Kind::kUint32:
      return "uint";
  }
  return "float";
}

}  // namespace detail

/// The exact reductions of one OpenCL device: its programs (one per data type, built on first
/// use) and scratch buffers (grown as needed). Runs on the device's compute queue, after what
/// is enqueued there, and waits for its result. Not thread-safe (one per device, used by the
/// thread that drives the device).
class Reducer {
 public:
  /// Which kernel computes l2 of float data: kAuto, a GPU's (kClasses: exponent classes in
  /// registers) or a CPU's (kIndexed: limbs at a computed index, which a CPU keeps in its
  /// cache); or either one whatever the device (tests). Both give the same bits.
  enum class FloatL2 { kAuto, kClasses, kIndexed };

  /// `max_items`: at most that many work-items in the first kernel (0: the device's choice,
  /// kItemsPerUnit per compute unit on a GPU, kItemsPerCpuUnit on a CPU).
  explicit Reducer(const Device& d, rt::Index max_items = 0, FloatL2 float_l2 = FloatL2::kAuto)
      : d_(&d) {
    cl_uint units = 1;
    check(clGetDeviceInfo(d.id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr),
          "clGetDeviceInfo(CL_DEVICE_MAX_COMPUTE_UNITS)", d.label());
    const bool gpu = (d.type & CL_DEVICE_TYPE_GPU) != 0;
    max_items_ = static_cast<rt::Index>(std::max<cl_uint>(units, 1)) *
                 (gpu ? rt::device_reduce::kItemsPerUnit : rt::device_reduce::kItemsPerCpuUnit);
    if (max_items > 0) max_items_ = max_items;
    l2_classes_ = float_l2 == FloatL2::kAuto ? gpu : float_l2 == FloatL2::kClasses;
  }

  /// Adds op (into.op()) over the cells `box` of `a` (a buffer holding the box `buffer`, x
  /// fastest), of a - *minus (the subtraction in T) when minus is not null, into `into`.
  template <typename T>
  void reduce_box(const Mem& a, const Mem* minus, const rt::Box& buffer, const rt::Box& box,
                  rt::Reduction& into) {
    namespace dr = rt::device_reduce;
    constexpr dr::Kind kind = dr::kind_of<T>();
    if (box.empty()) return;
    const dr::Geometry g = dr::geometry(buffer, box, max_items_);
    const rt::Index items = g.items();
    Kernels& k = kernels(kind);
    const Device& d = *d_;
    const bool exact = dr::is_exact(into.op());
    const bool square = into.op() == rt::ReduceOp::kL2;
    const cl_long cols = exact ? dr::columns(kind, square) : 0;
    const std::size_t elem = sizeof(T);

    // Scratch: level 0 (one row per item) in `first_`, the next levels alternately in
    // `second_` and `first_` (each level smaller than the one before it).
    ensure(first_, items, exact ? cols : 0, elem);
    ensure(second_, dr::kMiddleRows, exact ? cols : 0, elem);

    const Kernel& k1 = exact ? (square ? k.l2 : k.sum) : k.extremes;
    const char* name1 =
        exact ? (square ? "stepgen_reduce_l2" : "stepgen_reduce_sum") : "stepgen_reduce_extremes";
    cl_uint i = 0;
    const cl_int has_minus = minus != nullptr ? 1 : 0;
    set_arg(d, k1, i++, a, name1);
    set_arg(d, k1, i++, minus != nullptr ? *minus : a, name1);
    set_arg(d, k1, i++, has_minus, name1);
    for (rt::Index v : {g.base, g.nx, g.ny, g.rows, g.sy, g.sz, g.lanes, g.row_items})
      set_arg(d, k1, i++, static_cast<cl_long>(v), name1);
    set_level_args(k1, i, first_, exact, name1);
    const size_t global1 = static_cast<size_t>(items);
    const size_t local1 = static_cast<size_t>(dr::kGroup);
    launch(d, k1, name1, 1, &global1, group_ok(k1) ? &local1 : nullptr);

    rt::Index rows = items;
    Level* src = &first_;
    Level* dst = &second_;
    for (rt::Index next : dr::levels(items)) {
      const Kernel& kl = exact ? k.columns : k.merge_extremes;
      const char* name = exact ? "stepgen_reduce_columns" : "stepgen_reduce_merge_extremes";
      cl_uint j = 0;
      set_level_args(kl, j, *src, exact, name);
      set_arg(d, kl, j++, static_cast<cl_long>(rows), name);
      set_level_args(kl, j, *dst, exact, name);
      set_arg(d, kl, j++, static_cast<cl_long>(next), name);
      if (exact) set_arg(d, kl, j++, cols, name);
      const size_t global = static_cast<size_t>(exact ? cols * next : next);
      launch(d, kl, name, 1, &global, nullptr);
      rows = next;
      std::swap(src, dst);
    }

    const auto n = static_cast<std::size_t>(rows);
    if (exact) {
      std::vector<std::int64_t> limbs(n * static_cast<std::size_t>(cols));
      read(src->limbs_or_min, limbs.data(), limbs.size() * sizeof(std::int64_t));
      dr::merge_limbs(kind, square, limbs.data(), rows, into);
    } else {
      std::vector<T> lo(n), hi(n);
      std::vector<std::int32_t> flags(n);
      read(src->limbs_or_min, lo.data(), n * elem);
      read(src->max, hi.data(), n * elem);
      read(src->flags, flags.data(), n * sizeof(std::int32_t));
      dr::merge_extremes(lo.data(), hi.data(), flags.data(), rows, into);
    }
  }

  /// Points at `d` again (a Device moved to another place, the same context).
  void rebind(const Device& d) { d_ = &d; }

  /// Work-items of the first kernel for a box as large as the device can take.
  rt::Index max_items() const { return max_items_; }

 private:
  struct Kernels {
    Program program;
    Kernel sum, l2, columns, extremes, merge_extremes;
  };

  /// How the float sum and l2 kernels reach a value's class (the source's FLOAT_MODE): 3 (sum:
  /// the hot class, the misses through the compare over the classes; l2: an exponent window),
  /// or for benchmarks STEPGEN_REDUCE_FLOAT=0 (the compare for every value, as before the hot
  /// class) or 1 (the hot class, the misses through the compare, for both); all give the same
  /// bits.
  static int float_mode() { return rt::env_settings().reduce_float_mode; }

  /// STEPGEN_REDUCE_CL_OPTIONS: more build options for the reduction programs (benchmarks:
  /// e.g. NVIDIA's -cl-nv-maxrregcount=N).
  static std::string extra_options() {
    const std::string& env = rt::env_settings().reduce_cl_options;
    return env.empty() ? std::string() : " " + env;
  }

  Kernels& kernels(rt::device_reduce::Kind kind) {
    namespace dr = rt::device_reduce;
    std::unique_ptr<Kernels>& slot = kernels_[static_cast<int>(kind)];
    if (slot) return *slot;
    const dr::Limbs sum = dr::limbs(kind, false), l2 = dr::limbs(kind, true);
    const int k = kind == dr::Kind::kFloat ? 0 : kind == dr::Kind::kDouble ? 1 : 2;
    const std::string options =
        std::string("-D T=") + detail::reduce_type_name(kind) + " -D KIND=" + std::to_string(k) +
        " -D SUM_LO=" + std::to_string(sum.lo) + " -D SUM_HI=" + std::to_string(sum.hi) +
        " -D L2_LO=" + std::to_string(l2.lo) + " -D L2_HI=" + std::to_string(l2.hi) +
        " -D L2_CLASSES=" + (l2_classes_ ? "1" : "0") +
        " -D FLOAT_MODE=" + std::to_string(float_mode()) + extra_options();
    auto made = std::make_unique<Kernels>();
    // NVIDIA's OpenCL takes inline PTX (the float kernels' predicated additions); should a
    // driver refuse it, the same kernels in plain C.
    bool built = false;
    if (kind == dr::Kind::kFloat && d_->platform_name.find("NVIDIA") != std::string::npos) {
      try {
        made->program = build_program(*d_, detail::reduce_source(), options + " -D PTX_ASM=1");
        built = true;
      } catch (const rt::RunError&) {
      }
    }
    if (!built)
      made->program = build_program(*d_, detail::reduce_source(), options + " -D PTX_ASM=0");
    made->sum = create_kernel(*d_, made->program, "stepgen_reduce_sum");
    made->l2 = create_kernel(*d_, made->program, "stepgen_reduce_l2");
    made->columns = create_kernel(*d_, made->program, "stepgen_reduce_columns");
    made->extremes = create_kernel(*d_, made->program, "stepgen_reduce_extremes");
    made->merge_extremes = create_kernel(*d_, made->program, "stepgen_reduce_merge_extremes");
    slot = std::move(made);
    return *slot;
  }

  /// One level of partial results: per row, the limbs (columns, column-major), or the
  /// smallest value, the largest and the flags.
  struct Level {
    Mem limbs_or_min, max, flags;
    std::size_t rows = 0, cols = 0, elem = 0;
  };

  /// Grows a level to hold `rows` rows (of `cols` limb columns, or of extremes of `elem`-byte
  /// values when cols is 0).
  void ensure(Level& l, rt::Index rows, cl_long cols, std::size_t elem) {
    const auto n = static_cast<std::size_t>(rows);
    if (cols > 0) {
      const std::size_t c = static_cast<std::size_t>(cols);
      if (n * c > l.rows * l.cols) {
        l.limbs_or_min = scratch(n * c * sizeof(std::int64_t));
        l.rows = n;
        l.cols = c;
        l.elem = 0;
        l.max.reset();
        l.flags.reset();
      }
      return;
    }
    if (l.max.get() == nullptr || n > l.rows || elem > l.elem) {
      l.limbs_or_min = scratch(n * elem);
      l.max = scratch(n * elem);
      l.flags = scratch(n * sizeof(cl_int));
      l.rows = n;
      l.cols = 0;
      l.elem = elem;
    }
  }

  Mem scratch(std::size_t bytes) {
    cl_int err = CL_SUCCESS;
    Mem m(clCreateBuffer(d_->context.get(), CL_MEM_READ_WRITE, std::max<std::size_t>(bytes, 8),
                         nullptr, &err));
    check(err,
          ("clCreateBuffer(reduction scratch, " + rt::human_bytes(static_cast<double>(bytes)) + ")")
              .c_str(),
          d_->label());
    return m;
  }

  void set_level_args(const Kernel& k, cl_uint& index, const Level& l, bool exact,
                      const char* name) {
    set_arg(*d_, k, index++, l.limbs_or_min, name);
    if (exact) return;
    set_arg(*d_, k, index++, l.max, name);
    set_arg(*d_, k, index++, l.flags, name);
  }

  void read(const Mem& m, void* to, std::size_t bytes) {
    check(clEnqueueReadBuffer(d_->queue.get(), m.get(), CL_TRUE, 0, bytes, to, 0, nullptr, nullptr),
          "clEnqueueReadBuffer(reduction)", d_->label());
  }

  bool group_ok(const Kernel& k) const {
    size_t most = 0;
    check(clGetKernelWorkGroupInfo(k.get(), d_->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most,
                                   nullptr),
          "clGetKernelWorkGroupInfo", d_->label());
    return most >= static_cast<size_t>(rt::device_reduce::kGroup);
  }

  const Device* d_;
  rt::Index max_items_ = 0;
  bool l2_classes_ = false;
  std::unique_ptr<Kernels> kernels_[5];
  Level first_, second_;
};

/// The Reducer of a device, made on first use and kept for the rest of the process (its
/// programs and scratch hold a reference to the device's context, so no later context can take
/// its place). What an engine's reduce_box calls:
///   cl::reducer_for(d).reduce_box<T>(a, minus, buffer, box, into);
/// Safe to call from several threads at once for different devices.
inline Reducer& reducer_for(const Device& d) {
  static std::mutex lock;
  // Never destroyed: releasing OpenCL objects after the platform's own exit handlers can crash.
  static auto* made = new std::map<cl_context, std::unique_ptr<Reducer>>();
  std::lock_guard<std::mutex> hold(lock);
  std::unique_ptr<Reducer>& r = (*made)[d.context.get()];
  if (!r) r = std::make_unique<Reducer>(d);
  r->rebind(d);
  return *r;
}

}  // namespace stepgen::cl
