#pragma once
/// \file
/// The neutral spec tree: what the XML and YAML readers produce. Every value is kept as text with
/// its source position; meaning (numbers, expressions, names) is given to it later by model/.
/// No pugixml or yaml-cpp type appears here.

#include <optional>
#include <string>
#include <vector>

namespace stepgen::spec {

/// One-based line and column in the spec file; 0 means "unknown".
struct Loc {
  int line = 0;
  int col = 0;
};

/// A piece of text from the spec and where it starts. `present` is false when the spec did not
/// give it (then `loc` points at the element or mapping that should have held it).
struct Text {
  std::string value;
  Loc loc;
  bool present = false;
};

struct Constant {
  Text name;
  Text value;  ///< integer or floating literal, or an expression of earlier constants
  Loc loc;
};

struct Array {
  Text name;
  Text type;               ///< float, double, int, ...
  std::vector<Text> size;  ///< one entry per dimension, fastest first; expressions
  Text init;               ///< zero | random(seed) | value(v) | copy(X) | file(path) | none
  Text save;               ///< optional "true|false": save at the end (reference comparisons)
  Loc loc;
};

/// A table (<table>, YAML `tables`): a read-only 1-3D array of any size, not grid-shaped, copied
/// whole to every device.
struct Table {
  Text name;
  Text type;               ///< float, double, int, ...
  std::vector<Text> size;  ///< one entry per dimension, fastest first; expressions
  Text init;               ///< as Array::init
  Loc loc;
};

/// One halo point, e.g. {-10,0}: one expression per dimension.
struct HaloPoint {
  std::vector<Text> offsets;
  Loc loc;
};

struct KernelArg {
  enum class Kind { kArray, kScalar, kTable };
  Kind kind = Kind::kArray;
  Text array;                   ///< kArray: array name
  Text table;                   ///< kTable: table name (access, when given, is kept in `access`)
  Text access;                  ///< kArray: read | write | readwrite
  std::vector<HaloPoint> halo;  ///< kArray: dependent points
  std::vector<Text> halo_lo;    ///< kArray: widths below, per dimension (alternative form)
  std::vector<Text> halo_hi;    ///< kArray: widths above, per dimension
  Text in_place;                ///< kArray: "wavefront" (readwrite with a halo; docs/spec.md)
  Text scalar_type;             ///< kScalar: int, float, ...
  Text value;                   ///< kScalar: expression
  Loc loc;
};

struct Kernel {
  Text name;
  Text source;       ///< path relative to the spec file
  Text language;     ///< opencl | cuda (optional: from the extension)
  Text cuda_source;  ///< optional CUDA version of the kernel (.cu), relative to the spec file
  std::vector<KernelArg> args;
  std::vector<Text> global;  ///< expressions; empty = the first written array's extents
  std::vector<Text> local;   ///< expressions; empty = backend default; "auto": tuned at start-up
  Text local_candidates;     ///< with local "auto": the shapes to try ("32 8; 16 16"), optional
  Loc loc;
};

/// One point of an <inject> or <record>: one coordinate per dimension, fastest first.
struct TracePoint {
  std::vector<Text> coords;
  Loc loc;
};

/// One statement of the time loop body.
struct Step {
  enum class Kind { kLaunch, kSwap, kRotate, kInject, kRecord };
  Kind kind = Kind::kLaunch;
  Text kernel;               ///< kLaunch
  std::vector<Text> arrays;  ///< kSwap: two names; kRotate: two or more; kInject/kRecord: one
  // --- kInject / kRecord (sources and receivers) ---
  std::vector<TracePoint> points;  ///< `at` as a list of points (kInject: one)
  Text at_file;                    ///< `at="file(points.txt)"`: the text inside file(...)
  Text value;                      ///< kInject: an expression of step, or file(wavelet.raw)
  Text every;                      ///< kRecord: sample every this many steps (default 1)
  Text file;                       ///< kRecord: the trace file the program writes
  Text at;                         ///< `at` as written (its position: errors about the points)
  Loc loc;
};

/// A <reduce> of the time-loop body (YAML: {reduce: NAME, op: .., array: ..}).
struct Reduce {
  Text name;
  Text op;                   ///< sum | min | max | l2 | linf
  Text array;                ///< the array reduced
  Text minus;                ///< optional: the array subtracted
  Text every;                ///< optional: steps between computations (default 1)
  std::size_t position = 0;  ///< the body's steps before it
  Loc loc;
};

/// <monitor every=".." file=".."/>.
struct Monitor {
  Text every;
  Text file;
  Loc loc;
  bool present = false;
};

struct Iterate {
  Text steps;  ///< expression
  Text until;  ///< optional: a condition over reductions and `step`
  /// Where each character of `until` stands (XML: entities such as &lt; make a character's
  /// column differ from its offset); empty: `until.loc` plus the offset.
  std::vector<Loc> until_locs;
  std::vector<Step> body;
  std::vector<Reduce> reductions;  ///< in body order
  Loc loc;
  bool present = false;
};

struct Devices {
  Text type;     ///< all | gpu | cpu
  Text count;    ///< all | N
  Text weights;  ///< optional: "w1 w2 ..." relative speeds
  Loc loc;
  bool present = false;
};

struct Exchange {
  Text every;  ///< k: exchange deep halos every k steps
  Loc loc;
  bool present = false;
};

struct OutOfCore {
  Text chunks;          ///< auto | N
  Text steps_per_pass;  ///< auto | K
  Text region_sharing;  ///< true | false
  Text device_memory;   ///< auto | size such as 8GiB
  Loc loc;
  bool present = false;
};

struct Distribution {
  Text engine;  ///< none | mpi
  Loc loc;
  bool present = false;
};

/// <boundary arrays="U V" dims="x y" kind="periodic"/>: the frame of ghost cells beyond the
/// grid's edge of the listed arrays (their swap/rotate groups) in the listed dimensions.
struct Boundary {
  std::vector<Text> arrays;  ///< array names
  std::vector<Text> dims;    ///< x | y | z
  Text kind;                 ///< periodic | value(v) | mirror | copy
  Loc loc;
};

// --- io: <output> and <checkpoint> (docs/io.md) ----------------------------------------------
/// <output arrays="p q" every="50" file="wave.h5" first="true" last="true"/>.
struct Output {
  Text arrays;                    ///< names separated by spaces or commas (YAML: a list, joined)
  std::vector<Text> array_items;  ///< YAML's list, each name where it stands (else empty)
  Text every;                     ///< expression: steps between snapshots
  Text file;                      ///< .h5 (HDF5 + XDMF) or .raw (one raw file per array and step)
  Text first;                     ///< optional true|false: also the initial state (step 0)
  Text last;                      ///< optional true|false: also the state after the last step
  Loc loc;
};

/// <checkpoint every="1000" file="run.ckpt"/>.
struct Checkpoint {
  Text every;
  Text file;
  Loc loc;
  bool present = false;
};
// --- end io ---------------------------------------------------------------------------------

/// A whole spec file as written. Lists keep the file's order.
struct SpecTree {
  std::string path;  ///< as given on the command line (used in diagnostics)
  Text name;
  std::vector<Constant> constants;
  std::vector<Array> arrays;
  std::vector<Table> tables;  ///< <table> elements / YAML `tables`
  std::vector<Kernel> kernels;
  Iterate iterate;
  Devices devices;
  Exchange exchange;
  OutOfCore out_of_core;
  Distribution distribution;
  Monitor monitor;
  std::vector<Boundary> boundaries;  ///< in spec order
  std::vector<Output> outputs;       ///< io: in the file's order
  Checkpoint checkpoint;             ///< io
  /// Halo points given at top level (STEPOCL's <shadow>): they apply to every array argument
  /// read with offsets that has no halo of its own.
  std::vector<HaloPoint> shadow;
  Loc loc;
};

}  // namespace stepgen::spec
