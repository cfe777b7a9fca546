#pragma once
/// \file
/// The description: every type a generated program fills for the runtime, in one place, each
/// field by name (docs/generated.md, "The description"). The generated file checks
/// kDescriptionVersion at compile time, so that a program generated for another contract does
/// not build against this runtime (it would fill fields that mean something else).
///
/// This header holds data only: geometry (box.hpp, partition.hpp, boundary.hpp), how initial
/// values are made (init.hpp) and the reduction operators (reduce.hpp), all standard library
/// only. What runs the description (engines, backends, mains, I/O) includes it, never the
/// reverse; the types it names but does not hold are declared here and defined there.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "stepgen/description/init.hpp"
#include "stepgen/description/reduce.hpp"
#include "stepgen/plan/boundary.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::rt {

/// The version of this contract: it changes whenever a field here is added, removed, renamed
/// or changes meaning. A generated program static_asserts the one it was written for.
inline constexpr int kDescriptionVersion = 3;

// Defined where they run (host_array.hpp, monitor.hpp, traces.hpp, tune.hpp, probe_run.hpp,
// probe_views.hpp, chunk_run.hpp).
class HostBytes;
struct HostArray;
class Monitor;
class Record;
struct Inject;
struct LocalShapes;
template <class B>
struct KernelEntry;
template <class B>
class ChunkRun;

/// Allocates the bytes of a host array (`name`, for errors); empty: owned heap memory.
using HostAllocator = std::function<HostBytes(std::size_t bytes, const std::string& name)>;

/// A set of flags of one kind, joined with |. Each kind is its own type (`Tag`), so a set of
/// one kind never stands where another is meant, and the constructor is explicit: no integer
/// or bool becomes a set of flags (a positional initialiser would).
template <class Tag>
struct FlagSet {
  unsigned bits = 0;
  constexpr explicit FlagSet(unsigned b = 0) : bits(b) {}
  constexpr FlagSet operator|(FlagSet o) const { return FlagSet{bits | o.bits}; }
  /// Every flag of `f` is set (an empty `f`: false).
  constexpr bool has(FlagSet f) const { return f.bits != 0 && (bits & f.bits) == f.bits; }
};

/// What the runtime does with an array: a set of the flags below.
using ArrayFlags = FlagSet<struct ArrayFlagsTag>;
/// No flag: an input the kernels only read.
inline constexpr ArrayFlags kNoFlags{0u};
/// Written by a kernel and read with a halo: its ghost cells are refreshed.
inline constexpr ArrayFlags kExchanged{1u};
/// A result: written by a kernel and kept (--save writes it, --verify compares it, the end of
/// the run gathers it). Written but not a result: a scratch array (save="false").
inline constexpr ArrayFlags kResult{2u};
/// A floating-point type (how the kernel probe fills it).
inline constexpr ArrayFlags kFloating{4u};
/// In a written swap/rotate group: stored back to the host after an out-of-core pass.
inline constexpr ArrayFlags kStoredBack{8u};

/// How a kernel uses one array argument (the spec's access).
enum class ArgAccess { kRead, kWrite, kReadWrite };

/// One array argument of a kernel, as the spec binds it (for the kernel probe).
struct ProbeArg {
  int array = 0;
  bool read = false;
  bool written = false;
  Halo halo;  ///< the declared points it reads (widths: every point of the box)
  ProbeArg() = default;
  /// Typed: an access is never a pair of booleans in a row.
  ProbeArg(int array_id, ArgAccess access, Halo declared)
      : array(array_id),
        read(access != ArgAccess::kWrite),
        written(access != ArgAccess::kRead),
        halo(std::move(declared)) {}
};

/// The dimensions where a launch's global size follows extent(X, d): a set of kFollowsX, Y, Z.
using FollowDims = FlagSet<struct FollowDimsTag>;
inline constexpr FollowDims kFollowsNone{0u};
inline constexpr FollowDims kFollowsX{1u};
inline constexpr FollowDims kFollowsY{2u};
inline constexpr FollowDims kFollowsZ{4u};

/// Whether a kernel can run on a slab of its buffer along the slowest dimension (stepgen's
/// view_obstacle is empty); only then can views be safe for it.
enum class SlabUse { kWholeBuffer, kOnSlabs };
/// Whether a scalar argument's value uses `step` (the probe then runs it at several steps).
enum class StepUse { kIgnoresStep, kUsesStep };

/// What the probe needs of one kernel.
struct ProbeKernel {
  const char* name = "";
  std::vector<ProbeArg> args;
  /// Per dimension: the launch's global size follows extent(X, d) and the kernel is given that
  /// extent, so it runs on a smaller buffer there. A dimension where it does not is probed over
  /// the whole grid's extent.
  std::array<bool, 3> follows{false, false, false};
  /// The kernel can run on a slab along the slowest dimension (SlabUse::kOnSlabs).
  bool views = false;
  /// Per dimension, the cells one work-item computes (a global size extent(X, d) / c: float4
  /// or interleaved views): the translation check moves the box by that many cells, as the
  /// partition cuts there only at multiples of it.
  Vec3 shift{1, 1, 1};
  /// A scalar argument's value uses `step`: the kernel may write other cells at other steps (a
  /// wavefront, a source that moves, a kernel computing every k-th step), and the probe runs it
  /// at several steps of the run.
  bool uses_step = false;
  /// The run's time steps (the program's --steps; set when the probe runs).
  std::int64_t steps = 1;
  ProbeKernel() = default;
  /// What the generated kernel table writes: each argument of its own type, so a reordered
  /// initialiser does not compile.
  ProbeKernel(const char* kernel, std::vector<ProbeArg> arrays, FollowDims follow, SlabUse slabs,
              Vec3 cells = {1, 1, 1}, StepUse step = StepUse::kIgnoresStep)
      : name(kernel),
        args(std::move(arrays)),
        follows{follow.has(kFollowsX), follow.has(kFollowsY), follow.has(kFollowsZ)},
        views(slabs == SlabUse::kOnSlabs),
        shift(cells),
        uses_step(step == StepUse::kUsesStep) {}
};

/// How far a launch reads below and above a cell along the slowest dimension.
struct Reach {
  Index below = 0;
  Index above = 0;
};
/// A launch's work-group size along the slowest dimension (slabs are cut at its multiples).
struct Group {
  std::size_t size = 1;
};
/// The cells one work-item computes along the slowest dimension.
struct CellsPerItem {
  Index cells = 1;
};

/// One launch of the time-loop body: its kernel and the sum of the read halos of the launches
/// after it in the step, per dimension and side (what is still read of its output).
struct ProbeLaunch {
  int kernel = 0;
  Vec3 after_lo{0, 0, 0}, after_hi{0, 0, 0};
  Index reach_lo = 0,
        reach_hi = 0;     ///< how far it reads below and above along the slowest dimension
  std::size_t group = 1;  ///< its work-group size along the slowest dimension (slabs are cut there)
  /// Cells one work-item computes along the slowest dimension (a global size extent(X, d) / c:
  /// float4 views of a 1D grid): chunks cut at any plane would lose some (no out of core).
  Index cells = 1;
  ProbeLaunch() = default;
  /// What the generated launch table writes: the numbers each of their own type, so that no
  /// two of them trade places unnoticed.
  ProbeLaunch(int kernel_id, Vec3 later_lo, Vec3 later_hi, Reach reach = {}, Group g = {},
              CellsPerItem per_item = {})
      : kernel(kernel_id),
        after_lo(later_lo),
        after_hi(later_hi),
        reach_lo(reach.below),
        reach_hi(reach.above),
        group(g.size),
        cells(per_item.cells) {}
};

/// Compares an array after the run with the one-device run's (rt::compare_arrays<T>).
using CompareArrays = std::string (*)(const HostArray& got, const HostArray& want);

/// One of the spec's arrays, as the engine needs to know it. The fields have distinct types,
/// so a reordered initialiser does not compile.
struct ArrayInfo {
  const char* name = "";
  std::size_t element_bytes = 0;
  ArrayFlags flags{};
  CompareArrays compare = nullptr;  ///< how --verify compares it, by its element type
  /// How its initial values are made (init.hpp; kHost: on the host, uploaded). An array
  /// without a host copy (HostArray::held false) is made on the devices from this.
  ArrayInit init = {};

  bool exchanged() const { return flags.has(kExchanged); }
  bool result() const { return flags.has(kResult); }
  bool floating() const { return flags.has(kFloating); }
  bool stored_back() const { return flags.has(kStoredBack); }
  /// Written by a kernel but not kept: its values are not part of the state between steps.
  bool scratch() const { return stored_back() && !result(); }
};

/// What the engine runs: the generated program's tables.
template <class B>
struct Problem {
  int dims = 1;
  int exchange_every = 1;  ///< ghost cells are refreshed every this many steps
  const ArrayInfo* arrays = nullptr;
  int array_count = 0;
  Halo (*array_halo)(int id) = nullptr;  ///< the points read around an array's elements
  const char* no_overlap = "";           ///< why the spec rules overlap out ("": it does not)
  const std::vector<ProbeLaunch>* launches = nullptr;  ///< the step's launches (probe rules)
  /// Builds what a device needs to launch the kernels (nullptr: nothing to build); where the
  /// spec has tables, it copies them to the device too (tables.hpp).
  typename B::Kernels (*build_kernels)(const typename B::Device&) = nullptr;
  /// Bytes of the spec's tables (tables.hpp): every device holds them whole, besides its parts.
  std::size_t table_bytes = 0;
  /// The spec's boundaries (boundary.hpp), one rule per array and dimension.
  const BoundaryRule* boundaries = nullptr;
  int boundary_count = 0;
  /// Per dimension, a launch reading past the grid's edge a periodic array an earlier launch
  /// of the step wrote ("" where none; nullptr: none anywhere): ooc::Request's.
  const char* const* frame_read_after_write = nullptr;
};

/// Reduction i's B::reduce_box for its array's element type (reduce_box_as): the generated
/// table kReduceBoxes (monitor.hpp's reductions).
template <class B>
using ReduceBox = void (*)(const typename B::Device&, const typename B::Kernels&,
                           const typename B::Buffer& a, const typename B::Buffer* minus,
                           const Box& buffer, const Box& box, Reduction& into);

/// What the program was built from, for --help and the report.
struct ProgramInfo {
  const char* name = "";
  const char* spec = "";
  const char* backend = "";                 ///< "opencl" or "cuda"
  const char* default_device_type = "all";  ///< all | gpu | cpu (the spec's <devices type>)
  int default_device_count = 0;             ///< 0 = all (the spec's <devices count>)
  std::int64_t default_steps = 0;           ///< the spec's steps
  std::vector<std::string> arrays;          ///< names usable with --load / --save
  std::vector<std::size_t> array_bytes;  ///< array_bytes[i]: arrays[i]'s file size (filled at run)
};

/// One `<reduce>` of the spec.
struct ReduceInfo {
  const char* name;
  ReduceOp op;
  int array;           ///< the array reduced (its id)
  int minus;           ///< the array subtracted (its id); -1: none
  std::int64_t every;  ///< computed at the steps t with (t + 1) % every == 0, and the last
};

/// The spec's `until`: true when the run should stop after this step.
using UntilFn = bool (*)(const Monitor& m, std::int64_t step);

/// What the spec says about reductions, until and the monitor (the generated tables).
struct MonitorSpec {
  const ReduceInfo* reductions = nullptr;
  int count = 0;
  UntilFn until = nullptr;  ///< nullptr: no until
  const char* until_text = "";
  const int* until_uses = nullptr;  ///< the reductions `until` names
  int until_use_count = 0;
  std::int64_t every = 0;  ///< <monitor every>: 0 without a monitor
  const char* file = "";   ///< <monitor file>: "" for none
};

/// When an <output> writes besides every `every` steps, and how: a set of the flags below.
using OutputFlags = FlagSet<struct OutputFlagsTag>;
inline constexpr OutputFlags kRawFiles{0u};  ///< one raw file per array and step
inline constexpr OutputFlags kHdf5{1u};      ///< .h5: HDF5 + XDMF
inline constexpr OutputFlags kFirst{2u};     ///< also the initial state
inline constexpr OutputFlags kLast{4u};      ///< also the state after the last step

/// One <output> of the spec.
struct OutputSpec {
  const char* file = "";
  std::int64_t every = 0;
  OutputFlags flags{};
  std::vector<int> arrays;

  bool hdf5() const { return flags.has(kHdf5); }
  bool first() const { return flags.has(kFirst); }
  bool last() const { return flags.has(kLast); }
};

/// What the generated program tells the main program about output and checkpoints.
struct IoSpec {
  std::vector<OutputSpec> outputs;
  const char* checkpoint_file = "";  ///< the spec's <checkpoint> ("": none)
  std::int64_t checkpoint_every = 0;
  const char* spec_hash = "";      ///< CRC-64 of the spec's text: a checkpoint's identity
  const char* spec_dir = "";       ///< the spec's folder at generation (absolute): file() inits
  std::vector<std::string> types;  ///< each array's spec type name (float, double, ...)
  /// The files the program reads that a run must not replace: the arrays' and tables'
  /// file() paths as the spec gives them (spec_file(spec_dir, path) is the file read), and
  /// the files an <inject value="file(...)"> read at generation.
  std::vector<std::string> inputs;
};

/// The spec's <out_of_core> settings: the defaults of the program's out-of-core flags.
struct OocSettings {
  int chunks = 0;          ///< 0 = auto (the model)
  int steps_per_pass = 0;  ///< 0 = auto (the model)
  bool region_sharing = true;
  Index device_memory = 0;  ///< budget per device in bytes; 0 = auto
};

/// A tuned kernel of the generated program: its id and its shapes.
struct TunedKernel {
  int kernel = 0;
  LocalShapes* shapes = nullptr;
};

/// A generated table of `T`: its first entry and its length.
template <class T>
struct Entries {
  T* first = nullptr;
  std::size_t count = 0;
  T* begin() const { return first; }
  T* end() const { return first + count; }
};
using Injects = Entries<const Inject>;  ///< the program's sources (the generated kInjects)
using Records = Entries<Record>;        ///< the program's receivers (the generated records)

/// What the main program needs from the generated file.
template <class B>
struct Program {
  using Device = typename B::Device;
  ProgramInfo info;  ///< name, spec, backend and the spec's defaults
  Problem<B> problem;
  Box grid;
  const KernelEntry<B>* kernels = nullptr;  ///< the kernels as the probe sees them
  std::size_t kernel_count = 0;
  /// How the grid is split over `devices` with `weights`.
  PartitionRequest (*partition_request)(int devices, const std::vector<double>& weights) = nullptr;
  std::vector<double> weights;  ///< the spec's device weights (empty: equal)
  /// One step's shrink per side: how far a step's reads reach past the cells it computes (the
  /// ghost width one step needs, before the probe's rims; exchange_every steps need that many).
  Vec3 shrink_lo{0, 0, 0}, shrink_hi{0, 0, 0};
  OocSettings ooc;  ///< the spec's <out_of_core> settings: the flags' defaults
  /// The arrays over `box` with the values the whole grid has there (the whole grid, or an MPI
  /// rank's box), in memory from `alloc`.
  /// `held[id]` false: array id gets no host copy (HostArray::absent: the engine makes it on
  /// the devices); empty: every array gets one.
  std::vector<HostArray> (*make_host_arrays)(const Box& box, const HostAllocator& alloc,
                                             const std::vector<bool>& held) = nullptr;
  /// The generated time step on one chunk, out of core.
  void (*time_step)(ChunkRun<B>& run, std::int64_t step) = nullptr;
  bool ooc_trapezoid = false;  ///< the kernels can compute only the planes still read
  /// Kernels whose spec says <local size="auto"/> (tune.hpp), and the launch table whose
  /// work-group sizes follow their choice (nullptr: none).
  std::vector<TunedKernel> tuned;
  std::vector<ProbeLaunch>* tuned_launches = nullptr;
  Records records;  ///< the receivers (<record>: traces.hpp), written after the run
  Injects injects;  ///< the sources (<inject>)
  /// The spec's reductions, until and <monitor> (monitor.hpp; all empty: none) and each
  /// reduction's reduce_box.
  MonitorSpec monitor;
  const ReduceBox<B>* reduce_boxes = nullptr;
  IoSpec io;  ///< outputs, checkpoint, spec hash and folder (io/program_io.hpp)
};

}  // namespace stepgen::rt
