#pragma once
/// \file
/// The program plan: every fact about the program that follows from the validated Model and
/// from what the backend can do, computed once. `stepgen plan`, the emitters' view model and
/// the reports read it; none of them works a fact out again from the Model. It sits between
/// the Model and the emitters as TableGen's CodeGenTarget sits between records and backends.
///
/// What it holds: the arrays' swap/rotate groups, which arrays hold results and which are
/// exchanged (and how often), their halos and the ghost widths, the partition request's
/// problem-side numbers, whether each kernel can run on a view of its buffer and why not, and
/// the time-loop actions in order (each launch with the exchange that follows it and whether the
/// two overlap, swaps and rotations, the deep-halo exchange after the body).

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "model/model.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/partition.hpp"

namespace stepgen::model {

/// What a backend can do, as far as the plan needs to know.
struct BackendCaps {
  /// True when the backend runs a kernel on a slab by a range of its work-items (OpenCL's
  /// global_work_offset) rather than on a view of the buffer (CUDA): a launch then overlaps its
  /// exchange, and runs the out-of-core trapezoid, only when its kernel has one work-item per
  /// cell along the slowest dimension.
  bool slabs_by_work_items = false;
};

/// What the plan is built for besides the Model.
struct ProgramOptions {
  BackendCaps backend;
  /// One rank per device (MPI). None: the spec's <distribution>; `stepgen generate
  /// --distribution` overrides it here, never in the Model.
  std::optional<bool> mpi;
};

/// One array of the spec.
struct ArrayPlan {
  std::vector<int> group;    ///< its swap/rotate group, itself included, ascending
  bool partitioned = false;  ///< has the grid's shape: split over the devices (else copied whole)
  bool results = false;      ///< some launch writes a member of its group (gathered, saved)
  bool compared = false;     ///< results, and saved (--verify compares it)
  /// Its group's ghost cells are refreshed between parts (model/groups.hpp: needs_exchange).
  bool exchanged = false;
  /// Refreshes per exchange interval (partitioned arrays only; 0: none).
  int times = 0;
  rt::Halo halo;  ///< the merged read halos of its group
};

/// One kernel of the spec.
struct KernelPlan {
  /// Why the kernel cannot run on a slab of its buffer along the slowest dimension ("" = it
  /// can): model/overlap.hpp's view_obstacle.
  std::string no_views;
  /// Also with this backend: the work-item rule added where slabs are ranges of work-items.
  std::string no_slabs;
  bool one_item_per_cell = false;
  std::array<bool, 3> follows{false, false, false};  ///< follows_extent per dimension
  /// The widest halo it reads (partitioned arrays) below / above, per dimension: its share of
  /// a step's validity shrink.
  std::array<rt::Index, 3> shrink_lo{0, 0, 0}, shrink_hi{0, 0, 0};
  /// How far it reads below / above along the slowest dimension (every array).
  int reach_lo = 0, reach_hi = 0;
  /// Per dimension, the cells one work-item computes (overlap.hpp: cells_per_item).
  rt::Vec3 cells{1, 1, 1};
  /// A scalar argument's value uses `step` (overlap.hpp: scalars_use_step).
  bool uses_step = false;
  /// The declared halo of each array argument, in argument order, as the runtime holds it.
  std::vector<rt::Halo> arg_halos;
};

/// One action of the time loop, in order.
struct Action {
  /// kInject / kRecord: a source or receiver (Model::body[step] holds its points and value).
  enum class Kind { kLaunch, kSwap, kRotate, kExchange, kInject, kRecord };
  Kind kind = Kind::kLaunch;
  int step = -1;    ///< its index in Model::body (-1: the deep-halo exchange after the body)
  int kernel = -1;  ///< kLaunch
  /// kLaunch: the exchanged arrays it writes (refreshed after it when exchanging every step);
  /// kSwap/kRotate: the arrays renamed, in order; kExchange: every exchanged array;
  /// kInject/kRecord: the one array.
  std::vector<int> arrays;
  int trace_index = -1;         ///< kInject/kRecord: its index among the actions of its kind
  bool exchange_after = false;  ///< kLaunch: an exchange follows it (exchanging every step)
  bool overlap = false;         ///< kLaunch: it runs on slabs, overlapping that exchange
  std::string
      no_overlap;  ///< kLaunch followed by an exchange: why they cannot overlap ("" = they do)
  /// kLaunch, out of core: how many planes below / above along the slowest dimension the
  /// launches after it in the step still read (the trapezoid grows its planes by them).
  rt::Index after_lo = 0, after_hi = 0;
  /// kLaunch: the same for every dimension (the start-up probe's margins).
  rt::Vec3 later_lo{0, 0, 0}, later_hi{0, 0, 0};
};

/// One array's boundary along one dimension (every member of a <boundary>'s groups).
struct BoundaryPlan {
  int array = 0;
  int dim = 0;
  Boundary::Kind kind = Boundary::Kind::kPeriodic;
  std::string value;  ///< kValue: the literal
  /// Not in the spec: an array read without a halo along a periodic dimension, read by
  /// launches that compute the cells of a periodic frame (as images of the grid's far side,
  /// deep halos and out-of-core passes of several steps): its frame must hold those images
  /// too, not zeros.
  bool implied = false;
};

struct ProgramPlan {
  const Model* model = nullptr;  ///< what it was built from; must outlive it
  BackendCaps backend;
  bool mpi = false;
  std::vector<ArrayPlan> arrays;    ///< per Model::arrays
  std::vector<KernelPlan> kernels;  ///< per Model::kernels
  std::vector<Action> loop;         ///< the body's actions, then the deep-halo exchange if any
  int every = 1;                    ///< steps between exchanges

  // The partition request's problem side (plan/plan.hpp: partition_request adds the devices).
  rt::Vec3 granule{1, 1, 1};
  /// Per dimension, where a kernel computes several cells per work-item: how that cuts it.
  std::array<std::string, 3> granule_why;
  rt::Halo grid_halo;
  std::array<rt::Index, 3> ghost_lo{0, 0, 0}, ghost_hi{0, 0, 0};
  std::array<rt::Index, 3> shrink_lo{0, 0, 0}, shrink_hi{0, 0, 0};  ///< one step's
  rt::Index bytes_per_cell = 0;  ///< exchanged bytes per cell and interval

  /// Why the time loop's exchanges cannot overlap computation on any backend: deep halos, or
  /// the kernels followed by an exchange that cannot run on views ("; "-joined); "" = they can.
  /// It picks the default strategy (slabs where it is empty).
  std::string overlap_obstacle;
  /// The same with this backend's work-item rule: what the program reports.
  std::string no_overlap;
  rt::Strategy strategy = rt::Strategy::kMinExchange;  ///< the default one

  bool any_exchange = false;   ///< some array is exchanged
  bool any_overlap = false;    ///< some launch overlaps its exchange
  bool exchange_deep = false;  ///< deep halos: one exchange after every `every` runs of the body
  std::vector<int> exchanged;  ///< the exchanged arrays (Action::kExchange's), model order
  /// Out of core, every launch can compute only the planes still read (the trapezoid).
  bool trapezoid = false;
  int injects = 0;  ///< kInject actions (sources)
  int records = 0;  ///< kRecord actions (receivers)
  /// The boundaries, by array then dimension; the dimensions with a frame past the grid's edge.
  std::vector<BoundaryPlan> boundaries;
  std::array<bool, 3> frame{false, false, false};
  /// Per dimension, a launch reading past the grid's edge an array periodic there that an
  /// earlier launch of the step wrote ("" where none): rt::ooc::Request's.
  std::array<std::string, 3> frame_read_after_write;

  const Action* deep_exchange() const {
    return !loop.empty() && loop.back().kind == Action::Kind::kExchange ? &loop.back() : nullptr;
  }
};

/// Builds the plan of `m` (which it points to: `m` must outlive it).
ProgramPlan build_program_plan(const Model& m, const ProgramOptions& options = {});

}  // namespace stepgen::model
