#pragma once
/// \file
/// What every generated program needs whatever the backend (one header each, all included
/// here): program_options.hpp (errors, options, usage), host_array.hpp (host memory and arrays,
/// comparison), raw_files.hpp (--load, atomic --save), report.hpp (timers, figures, report).

#include "stepgen/exec/host_array.hpp"
#include "stepgen/exec/program_options.hpp"
#include "stepgen/exec/raw_files.hpp"
#include "stepgen/exec/report.hpp"
