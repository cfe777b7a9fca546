#pragma once
/// \file
/// What every generated program needs whatever the backend (one header each, all included
/// here): program_options.hpp (errors, options, usage), host_array.hpp (host memory and arrays,
/// comparison), raw_files.hpp (--load, atomic --save), report.hpp (timers, figures, report).

#include "stepgen/host_array.hpp"
#include "stepgen/program_options.hpp"
#include "stepgen/raw_files.hpp"
#include "stepgen/report.hpp"
