#pragma once
/// \file
/// The stepgen command line: argument parsing and the driver that runs readers, validation,
/// planning and emitters. main() only calls run(); tests call it too.

#include <iosfwd>

namespace stepgen::cli {

/// Exit codes. `generate --check` exits kSpecErrors (1) also when the output is not up to date.
enum Exit : int { kOk = 0, kSpecErrors = 1, kUsage = 2, kConflicts = 3 };

/// Runs stepgen with the given arguments; output to `out`, diagnostics to `err`.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace stepgen::cli
