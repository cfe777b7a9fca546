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

/// One halo point, e.g. {-10,0}: one expression per dimension.
struct HaloPoint {
  std::vector<Text> offsets;
  Loc loc;
};

struct KernelArg {
  enum class Kind { kArray, kScalar };
  Kind kind = Kind::kArray;
  Text array;                   ///< kArray: array name
  Text access;                  ///< kArray: read | write | readwrite
  std::vector<HaloPoint> halo;  ///< kArray: dependent points
  std::vector<Text> halo_lo;    ///< kArray: widths below, per dimension (alternative form)
  std::vector<Text> halo_hi;    ///< kArray: widths above, per dimension
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
  std::vector<Text> local;   ///< expressions; empty = backend default
  Loc loc;
};

/// One statement of the time loop body.
struct Step {
  enum class Kind { kLaunch, kSwap, kRotate };
  Kind kind = Kind::kLaunch;
  Text kernel;               ///< kLaunch
  std::vector<Text> arrays;  ///< kSwap: two names; kRotate: two or more
  Loc loc;
};

struct Iterate {
  Text steps;  ///< expression
  std::vector<Step> body;
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
  std::vector<Kernel> kernels;
  Iterate iterate;
  Devices devices;
  Exchange exchange;
  OutOfCore out_of_core;
  Distribution distribution;
  std::vector<Output> outputs;  ///< io: in the file's order
  Checkpoint checkpoint;        ///< io
  /// Halo points given at top level (STEPOCL's <shadow>): they apply to every array argument
  /// read with offsets that has no halo of its own.
  std::vector<HaloPoint> shadow;
  Loc loc;
};

}  // namespace stepgen::spec
