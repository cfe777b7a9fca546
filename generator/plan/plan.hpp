#pragma once
/// \file
/// From the validated Model to the runtime's numbers: the partition request, the exchange plan
/// per array and, out of core, the chunk plan per part. Every rule that turns a Model into a
/// number lives here, one function each, because two consumers must agree on it: `stepgen plan`
/// (which prints the plan) and the emitters (which write the same rules' results as constants
/// into generated programs, which then call the same runtime functions at run time).
/// See docs/plan.md for the reasoning and the papers' worked examples.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/model.hpp"
#include "plan/program_plan.hpp"
#include "stepgen/plan/calibration.hpp"
#include "stepgen/plan/chunk.hpp"
#include "stepgen/plan/exchange.hpp"
#include "stepgen/plan/ooc/choice.hpp"  // the chooser a program runs (not the runner)
#include "stepgen/plan/partition.hpp"

namespace stepgen::model {

/// What `stepgen plan` (or the generated program) knows that the spec does not.
struct PlanOptions {
  int devices = 1;
  /// Relative device speeds. Empty: the spec's weights when they give one per device, else
  /// equal weights.
  std::vector<double> weights;
  /// How the grid is split. None: the program plan's default (slabs where the exchanges can
  /// overlap computation: ProgramPlan::overlap_obstacle is empty, else min-exchange).
  std::optional<rt::Strategy> strategy;
  std::int64_t device_memory = 0;  ///< bytes per device; 0 = the spec's (out of core only)
  /// Out of core as a program's --out-of-core: auto (when a part's arrays exceed the budget;
  /// with no budget known, when the spec has <out_of_core>), on, off.
  enum class OutOfCore { kAuto, kOn, kOff };
  OutOfCore out_of_core = OutOfCore::kAuto;
  /// The out-of-core model's figures (link, kernels, device copies) and where each came from:
  /// assumed (ooc::Link's defaults), a calibration file, --link.
  rt::LinkFigures figures;
  std::int64_t steps = 0;  ///< time steps the run is planned for; 0 = the spec's
  /// Out of core, the program's --ooc-chunks and --steps-per-pass (0: the spec's, else the
  /// model's choice).
  std::int64_t chunks = 0, steps_per_pass = 0;
  /// The program's --trapezoid (where its kernels allow it).
  bool trapezoid = true;
  /// `--out-of-core auto` given: on data that fits, the in-core run and the best
  /// out-of-core plan are predicted and the faster planned (rt::ooc::choose_auto).
  bool compare = false;
};

/// A model halo as the runtime's type, in `dims` dimensions.
rt::Halo to_rt_halo(const Halo& h, int dims);

/// The union of every array's read halo: what the grid as a whole reads around a cell.
rt::Halo grid_halo(const Model& m);

/// The validity shrink of one time step: per dimension and side, the sum over the body's
/// launches of the widest halo that launch reads (a launch reading with width h makes its
/// output valid h cells less far into the ghost zone than its input).
std::array<rt::Index, 3> step_shrink_lo(const Model& m);
std::array<rt::Index, 3> step_shrink_hi(const Model& m);
/// One launch's share of it: the widest halo its kernel reads (below or above), per dimension.
std::array<rt::Index, 3> launch_shrink(const Model& m, const Kernel& k, bool below);

/// Ghost widths of the local buffers below / above the owned box. exchange_every == 1: the
/// grid halo's widths (an exchange follows every launch that needs one). k = exchange_every
/// > 1: k * step_shrink, the depth that keeps the owned box valid for k steps of redundant
/// computation between exchanges.
std::array<rt::Index, 3> ghost_lo(const Model& m);
std::array<rt::Index, 3> ghost_hi(const Model& m);

/// Split granularity: per dimension the lcm of the kernels' local sizes (1 where none).
/// Split points' granule per dimension: the kernels' work-group sizes, times the cells a
/// work-item computes (overlap.hpp: cells_per_item); the grid's extent where such a kernel's
/// ghost widths are not multiples of those cells (not split). `why`, when given, gets the reason
/// per dimension where cells per item count ("" elsewhere).
rt::Vec3 granule(const Model& m, std::array<std::string, 3>* why = nullptr);

/// The merged read halos of the array's swap/rotate group (its buffers serve every member).
rt::Halo group_halo(const Model& m, int array);

/// True when the array has the grid's shape and is therefore split over the devices; other
/// arrays (coefficient tables, ...) are copied whole to every device.
bool is_partitioned(const Model& m, int array);

/// True when the partitioned array's ghost cells are exchanged (see model/groups.hpp).
bool is_exchanged(const Model& m, int array);

/// How many times the array's ghost cells are refreshed per exchange interval (every
/// exchange_every steps). Exchanging every step: once after each launch that writes it (so
/// of a swapped pair A/B written as B, only B). Deep halos: once, after the body's k-th run,
/// for every exchanged array. 0 when it is not exchanged.
int exchanges_per_interval(const Model& m, int array);

/// The partition request: grid, granule, grid halo, ghost widths, devices, weights, strategy,
/// exchange interval, from the program plan's facts and the options. bytes_per_cell is the
/// element bytes of the exchanged arrays, each counted exchanges_per_interval times, so that
/// the partitioner's cost is the bytes the program moves per interval (its ranking of grids
/// does not depend on this factor).
rt::PartitionRequest partition_request(const ProgramPlan& pp, const PlanOptions& options);

/// One exchanged array's transfers for one exchange.
struct ArrayExchange {
  int array = -1;
  rt::Halo halo;  ///< group_halo(array)
  int times = 1;  ///< exchanges_per_interval(array)
  std::vector<rt::Transfer> transfers;
  rt::Index bytes_per_exchange = 0;
};

/// The out-of-core request a program makes (templates' run_in_or_out_of_core): the grid, each
/// part's owned box, one step's shrink, every array with its element bytes and whether it holds
/// results, the spec's chunks, steps per pass (0 = auto) and region sharing, 3 buffer slots,
/// the trapezoid where the program plan allows it (and options.trapezoid), band sharing on.
rt::ooc::Request ooc_request(const ProgramPlan& pp, const rt::Partition& p,
                             const PlanOptions& options);

/// Device bytes a part needs besides its chunk buffers: the arrays that are not partitioned.
rt::Index resident_bytes(const Model& m);

struct Plan {
  rt::Partition partition;
  int every = 1;                         ///< steps between exchanges
  std::vector<ArrayExchange> exchanges;  ///< exchanged arrays, in model order
  /// Per part: bytes received (its ghost cells refreshed) / sent, per step: the sum over
  /// exchanged arrays of bytes_per_exchange * times, divided by `every` (rounded down).
  std::vector<rt::Index> recv_bytes_per_step;
  std::vector<rt::Index> send_bytes_per_step;
  rt::Index exchange_bytes_per_step = 0;  ///< all parts (each byte counted once)
  /// Per part: device buffers when running in core (ghost box per partitioned array, whole
  /// arrays otherwise).
  std::vector<rt::Index> buffer_bytes;
  /// The budget: the options', else the spec's (0 when none was given).
  std::int64_t device_memory = 0;
  /// The largest part's arrays over its ghost box: what a program compares with the budget.
  rt::Index in_core_bytes = 0;
  // Out of core: what a program runs, chosen by the program's chooser (rt::ooc::choose).
  bool out_of_core = false;
  std::string reason;          ///< why out of core (or why not, when a budget was given)
  rt::ooc::Schedule schedule;  ///< chunks, steps per pass, each part's chunk boxes and bytes
  bool auto_chunks = false, auto_k = false;  ///< chosen by the model (else the spec's)
  rt::LinkFigures figures;                   ///< the figures the model assumed
  rt::Index steps = 0;                       ///< time steps the choice was made for
  double predicted_s = 0;                    ///< rt::ooc::predict for those steps
  /// With PlanOptions::compare on data that fits, the in-core run's prediction
  /// (rt::ooc::predict_in_core; 0: not compared).
  double in_core_predicted_s = 0;
};

/// A plan error caused by a part of the spec: out of core, the <out_of_core> element (a chunk
/// that cannot fit, device memory too small). The message is the cause; `loc` where it is.
class LocatedPlanError : public rt::PlanError {
 public:
  LocatedPlanError(const std::string& message, spec::Loc where)
      : rt::PlanError(message), loc(where) {}
  spec::Loc loc;
};

/// Builds the plan. Throws rt::PlanError with a message a user can act on (LocatedPlanError
/// when a part of the spec is the cause).
/// Out of core: the chunk count and steps per pass are the spec's where given; where auto they
/// are what a program picks, rt::ooc::choose over the program's request (ooc_request) with the
/// options' figures, device_memory (the options', else the spec's, else an error asking for
/// --device-memory) and steps.
Plan make_plan(const ProgramPlan& pp, const PlanOptions& options);

}  // namespace stepgen::model
