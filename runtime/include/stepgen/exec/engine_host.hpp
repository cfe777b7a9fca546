#pragma once
/// \file
/// A host backend of the engine (namespace stepgen::host): "devices" that are plain memory,
/// every buffer a host array over its box, every copy synchronous. It runs rt::InCore, its
/// parts, exchanges, boundary frames, initial values made "on the devices", reductions and
/// gathers without OpenCL or CUDA: the engine's unit tests (tests/engine, ctest label engine)
/// run on it, with kernels written as C++ functions over a Launch. The exchange is the plain
/// execution of the engine's exchange plan (rt::exchange_plan): every transfer's boxes copied
/// from the sender's buffer into the receiver's, in plan order. No overlap. Out of core, the
/// one runner (rt::ooc::Runner) over synchronous host operations (OocOps): the pipeline of the
/// main program (main.hpp) runs whole on this backend in the unit tests, without a device.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/description/init.hpp"
#include "stepgen/exec/engine.hpp"
#include "stepgen/exec/monitor.hpp"
#include "stepgen/exec/ooc.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/exec/program_options.hpp"
#include "stepgen/exec/rank_parts.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/exchange.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::host {

namespace rt = stepgen::rt;

/// A host "device": a name for messages; `part` as the other backends' (--parts).
struct Device {
  int index = 0;
  int part = -1;
  std::string name = "host";
  std::string label() const { return device_label() + rt::part_label(part); }
  std::string device_label() const { return "device " + std::to_string(index) + " (" + name + ")"; }
};

/// A buffer: a host array over the box it holds (shared, so that a Launch's const view of the
/// buffers still writes them, as a device pointer does).
using Buffer = std::shared_ptr<rt::HostArray>;

/// What a kernel needs built on a device: nothing here.
using Kernels = int;

/// What a launch function receives: its part and that part's buffers, by array id.
struct Launch {
  const Device& d;
  const Kernels& k;
  const std::vector<Buffer>& buf;
  const rt::Part& part;
  std::int64_t step;
  /// Element (x, y, z) of array `id`'s buffer, in global coordinates.
  template <typename T>
  T& at(int id, rt::Index x, rt::Index y = 0, rt::Index z = 0) const {
    const rt::HostArray& a = *buf[static_cast<std::size_t>(id)];
    const rt::Box& b = part.ghost;  // what the buffer holds (a chunk's: its load window)
    const rt::Index i = ((z - b.lo[2]) * b.extent(1) + (y - b.lo[1])) * b.extent(0) + (x - b.lo[0]);
    return const_cast<T*>(a.as<T>())[i];
  }
};

/// Copies the cells `from` of memory holding `src_box` into the cells `to` (the same extents)
/// of memory holding `dst_box` (a buffer holds the box its user says: an out-of-core chunk
/// buffer is flat memory holding its chunk's load window).
inline void copy_cells(const rt::HostArray& src, const rt::Box& src_box, const rt::Box& from,
                       rt::HostArray& dst, const rt::Box& dst_box, const rt::Box& to) {
  if (to.empty()) return;
  const rt::RectCopy s = rt::rect_of(from, src_box, src.element_bytes);
  const rt::RectCopy t = rt::rect_of(to, dst_box, dst.element_bytes);
  for (std::size_t z = 0; z < s.region[2]; ++z)
    for (std::size_t y = 0; y < s.region[1]; ++y)
      std::memcpy(dst.bytes.data() + t.offset() + y * t.row_pitch + z * t.slice_pitch,
                  src.bytes.data() + s.offset() + y * s.row_pitch + z * s.slice_pitch, s.region[0]);
}
/// The same between host arrays holding their own boxes.
inline void copy_cells(const rt::HostArray& src, const rt::Box& from, rt::HostArray& dst,
                       const rt::Box& to) {
  copy_cells(src, src.box, from, dst, dst.box, to);
}

/// The element of `init` at global linear index `index` into `out` (`bytes` wide).
inline void init_value(const rt::ArrayInit& init, std::size_t bytes, std::uint64_t index,
                       unsigned char* out) {
  if (init.kind == rt::ArrayInit::kZero) {
    std::memset(out, 0, bytes);
  } else if (init.kind == rt::ArrayInit::kValue) {
    std::memcpy(out, &init.value, bytes);
  } else if (init.type == rt::ArrayInit::kFloat) {
    const float v = rt::random_value<float>(init.seed, index);
    std::memcpy(out, &v, sizeof v);
  } else if (init.type == rt::ArrayInit::kDouble) {
    const double v = rt::random_value<double>(init.seed, index);
    std::memcpy(out, &v, sizeof v);
  } else {
    const std::uint64_t v = rt::random_value<std::uint64_t>(init.seed, index);
    std::memcpy(out, &v, bytes);  // 0..99: the low bytes, as every integer type holds it
  }
}

/// The out-of-core runner's operations (rt::ooc::Runner, ooc_opencl.hpp's OocOps): host
/// buffers, copies done at once, queues and events that hold nothing.
struct OocOps {
  struct Queue {
    int get() const { return 0; }
  };
  struct Event {};
  struct Pinned {};
  using Device = host::Device;
  using Buffer = host::Buffer;
  using Handle = int;

  static Buffer buffer(const Device&, const rt::Box& box, std::size_t element_bytes,
                       const std::string& name) {
    return std::make_shared<rt::HostArray>(name, element_bytes, box);
  }
  static Queue queue(const Device&) { return {}; }
  static Handle compute_queue(const Device&) { return 0; }
  static void use(const Device&) {}
  /// The cells `sub` between a buffer and a host array (the host's side written on the way
  /// back, as a device's copy writes host memory).
  static void host_copy(Handle, const Device&, const Buffer& buf, const rt::Box& box,
                        const rt::HostArray& host, const rt::Box& sub, bool to_device,
                        std::vector<Event>*) {
    if (to_device)
      copy_cells(host, host.box, sub, *buf, box, sub);
    else
      copy_cells(*buf, box, sub, const_cast<rt::HostArray&>(host), host.box, sub);
  }
  /// A rectangular copy of bytes between buffers (or within one).
  static void device_copy(Handle, const Device&, const Buffer& from, const rt::RectCopy& src,
                          const Buffer& to, const rt::RectCopy& dst, const std::string&) {
    for (std::size_t z = 0; z < src.region[2]; ++z)
      for (std::size_t y = 0; y < src.region[1]; ++y)
        std::memmove(to->bytes.data() + dst.offset() + y * dst.row_pitch + z * dst.slice_pitch,
                     from->bytes.data() + src.offset() + y * src.row_pitch + z * src.slice_pitch,
                     src.region[0]);
  }
  static void wait(Handle, const Device&, const std::vector<const Event*>&) {}
  static void host_wait(const Device&, const std::vector<const Event*>&) {}
  static Event record(Handle, const Device&) { return {}; }
  static void flush(Handle, const Device&) {}
  static void finish(const Device&) {}
  static void finish(Handle, const Device&) {}
  static Pinned pin(const Device&, rt::HostArray&) { return {}; }
};

template <class M>
class ExchangeState;

struct Backend {
  using Device = host::Device;
  using Buffer = host::Buffer;
  using Kernels = host::Kernels;
  using Launch = host::Launch;
  static constexpr bool kViewsFromProbe = false;
  static constexpr const char* kTimingNote = nullptr;

  /// The "devices" a run finds: --devices N of them (one by default), all alike.
  static std::vector<Device> discover(const rt::Options& opt) {
    std::vector<Device> devices(static_cast<std::size_t>(opt.devices > 0 ? opt.devices : 1));
    for (std::size_t i = 0; i < devices.size(); ++i) devices[i].index = static_cast<int>(i);
    return devices;
  }
  static void print_usage_note(std::FILE*) {}
  /// What `device_memory="auto"` takes a share of: 1 TiB (give --device-memory to go out of core).
  static rt::Index auto_device_memory(const std::vector<Device>&) { return rt::Index{1} << 40; }
  static void check_fits(const Device&, std::size_t) {}

  static std::vector<Device> part_devices(std::vector<Device> devices,
                                          const rt::Partition& partition) {
    std::vector<Device> out;
    for (const rt::Part& part : partition.parts) {
      Device d = devices[static_cast<std::size_t>(part.device)];
      d.part = part.id;
      out.push_back(d);
    }
    return out;
  }
  static rt::HostAllocator host_allocator(const std::vector<Device>&, bool, bool) { return {}; }
  static Buffer create_buffer(const Device&, const rt::Box& box, std::size_t element_bytes,
                              const char* name) {
    return std::make_shared<rt::HostArray>(name, element_bytes, box);
  }
  static void write_box(const Device&, const Buffer& m, const rt::Box& buffer,
                        const rt::HostArray& host, const rt::Box& sub) {
    copy_cells(host, host.box, sub, *m, buffer, sub);
  }
  static void read_box(const Device&, const Buffer& m, const rt::Box& buffer, rt::HostArray& host,
                       const rt::Box& sub) {
    copy_cells(*m, buffer, sub, host, host.box, sub);
  }
  static void finish(const Device&) {}
  static void fence(const Device&) {}
  static void prepare_init(const Device&) {}
  static void prepare_frames(const Device&) {}
  static void copy_box(const Device&, const Buffer& sm, const rt::Box& src_box, const rt::Box& from,
                       const Device&, const Buffer& dm, const rt::Box& dst_box, const rt::Box& to,
                       std::size_t, const char*, bool) {
    copy_cells(*sm, src_box, from, *dm, dst_box, to);
  }
  /// Initial values over `sub` of a buffer holding `buffer` (and of `also`), the host fill's
  /// bits: random(seed) of each cell's global linear index in `grid`.
  static void init_box(const Device&, const Buffer& m, const rt::Box& buffer, const rt::Box& sub,
                       const rt::Box& grid, const rt::ArrayInit& init, std::size_t element_bytes,
                       const Buffer* also = nullptr) {
    const auto gx = static_cast<std::uint64_t>(grid.extent(0));
    const auto gy = static_cast<std::uint64_t>(grid.extent(1));
    for (rt::Index z = sub.lo[2]; z < sub.hi[2]; ++z)
      for (rt::Index y = sub.lo[1]; y < sub.hi[1]; ++y)
        for (rt::Index x = sub.lo[0]; x < sub.hi[0]; ++x) {
          const std::uint64_t index = (static_cast<std::uint64_t>(z - grid.lo[2]) * gy +
                                       static_cast<std::uint64_t>(y - grid.lo[1])) *
                                          gx +
                                      static_cast<std::uint64_t>(x - grid.lo[0]);
          const rt::Index at =
              ((z - buffer.lo[2]) * buffer.extent(1) + (y - buffer.lo[1])) * buffer.extent(0) +
              (x - buffer.lo[0]);
          unsigned char* cell = m->bytes.data() + static_cast<std::size_t>(at) * element_bytes;
          init_value(init, element_bytes, index, cell);
          if (also)
            std::memcpy((*also)->bytes.data() + (cell - m->bytes.data()), cell, element_bytes);
        }
  }
  static void copy_buffer(const Device&, const Buffer& dst, const Buffer& src, std::size_t bytes) {
    std::memcpy(dst->bytes.data(), src->bytes.data(), bytes);
  }
  template <typename T>
  static void reduce_box(const Device&, const Kernels&, const Buffer& a, const Buffer* minus,
                         const rt::Box& buffer, const rt::Box& box, rt::Reduction& into) {
    rt::reduce_host_box<T>(*a, minus ? minus->get() : nullptr, buffer, box, into);
  }
  static Launch whole(const Device& d, const Kernels& k, const std::vector<Buffer>& buf,
                      const rt::Part& part, std::int64_t step) {
    return {d, k, buf, part, step};
  }

  // Out of core: the one runner over OocOps; a launch computes its whole chunk.
  using OocRunner = rt::ooc::Runner<OocOps>;
  using OocStep = OocRunner::Step;
  static bool ooc_trapezoid_ok(const rt::Probed&, const std::vector<rt::ProbeLaunch>&, int, bool) {
    return true;
  }
  struct OocPinned {};
  static OocPinned ooc_pin(std::vector<rt::HostArray>&, const rt::ooc::Options&, rt::ooc::Stats&) {
    return {};
  }
  static void ooc_run(std::vector<Device>& devices, const rt::ooc::Schedule& schedule,
                      std::vector<rt::HostArray>& host, const OocStep& step,
                      const rt::ooc::Options& ooc, std::int64_t steps, rt::ooc::Stats& report,
                      rt::ooc::Share share = {}) {
    OocRunner runner(devices, schedule, host, step, ooc.overlap, std::move(share), {});
    runner.run(steps, report);
  }
  static void chunk_launch(void (*fn)(const Launch&), const rt::ProbeLaunch&, const rt::ChunkRule&,
                           const Device& d, const Kernels& k, const std::vector<Buffer>& buf,
                           const rt::Part& chunk, std::int64_t step, std::int64_t) {
    fn({d, k, buf, chunk, step});
  }

  /// The exchanges between this process's parts, no messages (ExchangeState below).
  using State = ExchangeState<rt::NoMessages>;
};

/// The host backend's exchange executor (rt::InCore's `S`), over the messages `M` (rt::NoMessages
/// alone; the unit tests' loopback between ranks in threads): each exchanged array's plan as
/// this process sees it (rt::RankPlan) done at once, in the order of the other backends'
/// executors (exchange_opencl.hpp): receives posted, the boxes sent copied into their messages
/// and sent, the local copies made, the received boxes written. Launches whole, then their
/// exchange (no overlap on plain memory).
template <class M>
class ExchangeState {
 public:
  using Ids = std::initializer_list<int>;
  using Config = typename M::Config;
  static constexpr const char* kOne = M::kRanks ? "one rank" : "one device";
  static constexpr const char* kOverlapOn = "host backend: launches, then their exchange";

  ExchangeState(const rt::StateArgs<Device>& args, const Config& config)
      : messages_(config), first_(args.first), count_(static_cast<int>(args.parts)) {}
  static void check_fits(const Device&, std::size_t) {}
  template <class E>
  void prepare(E& e) {
    arrays_ = rt::plan_buffers<rt::HostArray>(e, first_, count_, rt::HostMessage{});
  }
  template <class E>
  void print_exchange_paths(const E&) const {}
  template <class E>
  void begin(E&) {}
  template <class E>
  void end(E&) {}
  void times(rt::RunStats&) const {}

  /// Refreshes the ghost cells of `ids` on every local part; the bytes are the copies' and the
  /// messages sent.
  template <class E>
  void exchange(E& e, Ids ids) {
    auto buffer = [&e](std::size_t p, int id) -> rt::HostArray& {
      return *e.buffers(p)[static_cast<std::size_t>(id)];
    };
    for (int id : ids)
      for (std::size_t i = 0; i < at(id).plan.receives.size(); ++i) {
        rt::HostArray& h = at(id).received[i];
        messages_.post_receive(
            at(id).plan.receives[i].peer, id, h.bytes.data(), h.bytes.size(),
            h.name + " from rank " + std::to_string(at(id).plan.receives[i].peer));
      }
    for (int id : ids) {
      Array& a = at(id);
      for (std::size_t i = 0; i < a.plan.sends.size(); ++i) {
        const rt::RankPlan::Message& m = a.plan.sends[i];
        copy_cells(buffer(m.part, id), e.part(m.part).ghost, m.box, a.sent[i], m.box, m.box);
        messages_.send(m.peer, id, a.sent[i].bytes.data(), a.sent[i].bytes.size(),
                       a.sent[i].name + " to rank " + std::to_string(m.peer));
        e.stats().exchange_bytes += a.sent[i].bytes.size();
      }
      for (const rt::RankPlan::Copy& c : a.plan.copies) {
        copy_cells(buffer(c.src, id), e.part(c.src).ghost, c.box, buffer(c.dst, id),
                   e.part(c.dst).ghost, c.box);
        e.stats().exchange_bytes +=
            static_cast<std::size_t>(c.box.volume()) * e.problem().arrays[id].element_bytes;
      }
    }
    messages_.wait();
    for (int id : ids)
      for (std::size_t i = 0; i < at(id).plan.receives.size(); ++i) {
        const rt::RankPlan::Message& m = at(id).plan.receives[i];
        copy_cells(at(id).received[i], m.box, m.box, buffer(m.part, id), e.part(m.part).ghost,
                   m.box);
      }
  }
  template <class E, class L>
  void launch_and_exchange(E& e, void (*launch)(const L&), int, rt::Index, rt::Index, std::size_t,
                           Ids ids, std::int64_t step) {
    for (std::size_t p = 0; p < e.parts(); ++p) launch(e.whole(p, step));
    exchange(e, ids);
  }

 protected:
  M& messages() { return messages_; }

 private:
  using Array = rt::PlanBuffers<rt::HostArray>;  ///< a host box per message
  Array& at(int id) { return arrays_[static_cast<std::size_t>(id)]; }

  M messages_;
  int first_ = 0, count_ = 1;
  std::vector<Array> arrays_;
};

}  // namespace stepgen::host
