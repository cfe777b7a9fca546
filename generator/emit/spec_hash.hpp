#pragma once
/// \file
/// The spec's identity for checkpoints (the `spec_hash` line of a checkpoint's header): a
/// CRC-64 of a canonical text of everything that decides the state a step leaves and where the
/// run stops. A program restarts only from a checkpoint of the same identity.

#include <string>

#include "model/model.hpp"

namespace stepgen::emit {

/// The canonical text the hash covers (docs/io.md, "What a checkpoint holds"): the constants'
/// values, the arrays (type, size, initial value), the tables, the kernels (their files' names,
/// arguments, halos, sizes; not the files' text: a fixed kernel may resume a run), the body
/// (launches, swaps, rotations, injects with their values, records), the exchange interval, the
/// boundaries, the reductions (name, op, arrays, interval, place in the body) and the `until`
/// condition. Comments, layout, the XML or YAML form, the stencil's name, steps, devices,
/// out-of-core settings, outputs, the monitor and the checkpoint's own settings do not count:
/// they change neither a step's result nor the step the run stops at.
std::string spec_identity_text(const model::Model& m);

/// crc64 of spec_identity_text, as 16 lowercase hex digits.
std::string spec_hash(const model::Model& m);

}  // namespace stepgen::emit
