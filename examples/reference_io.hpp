#pragma once
/// \file
/// Command line and output shared by the serial references of examples/*/reference.cpp.
///
/// Contract (the end-to-end tests rely on it):
///   reference_<name> [--steps N] [--out DIR]
/// runs N time steps (default: the spec's `steps`) and writes DIR/<ARRAY>.raw (default DIR: .)
/// for every array the spec saves: each array that is not read-only, unless save="false".
/// Names are the logical names after every swap/rotate of the time loop, and each file holds the
/// whole array, raw little-endian, x fastest (index = x + nx * (y + ny * z)).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace examples {

/// The reference's options.
struct Options {
  long steps = 0;
  std::string out = ".";
};

[[noreturn]] inline void usage(const char* prog, const char* problem) {
  if (problem != nullptr) std::fprintf(stderr, "%s: %s\n", prog, problem);
  std::fprintf(stderr, "usage: %s [--steps N] [--out DIR]\n", prog);
  std::exit(problem != nullptr ? 2 : 0);
}

/// Parses `--steps N` / `--steps=N` and `--out DIR` / `--out=DIR`; `default_steps` is the spec's.
inline Options parse_options(int argc, char** argv, long default_steps) {
  Options opt;
  opt.steps = default_steps;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    std::string key = arg;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      key = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    } else if (arg == "--steps" || arg == "--out") {
      if (i + 1 >= argc) usage(argv[0], "missing value");
      value = argv[++i];
    }
    if (key == "--steps") {
      char* end = nullptr;
      opt.steps = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || opt.steps < 0) usage(argv[0], "bad --steps");
    } else if (key == "--out") {
      opt.out = value;
    } else if (key == "--help" || key == "-h") {
      usage(argv[0], nullptr);
    } else {
      usage(argv[0], ("unknown argument '" + arg + "'").c_str());
    }
  }
  return opt;
}

/// Writes `data` to DIR/<name>.raw as raw little-endian bytes; exits on any failure.
template <typename T>
void write_raw(const Options& opt, const std::string& name, const std::vector<T>& data) {
  const std::uint16_t probe = 1;
  unsigned char first_byte = 0;
  std::memcpy(&first_byte, &probe, 1);
  if (first_byte != 1) {
    std::fprintf(stderr, "reference: this host is not little-endian\n");
    std::exit(1);
  }
  std::error_code ec;
  std::filesystem::create_directories(opt.out, ec);
  const std::string path = (std::filesystem::path(opt.out) / (name + ".raw")).string();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(data.data(), sizeof(T), data.size(), f) != data.size() ||
      std::fclose(f) != 0) {
    std::fprintf(stderr, "reference: cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

}  // namespace examples
