#pragma once
/// \file
/// Spec readers: XML (pugixml) and YAML (yaml-cpp) files in, one neutral SpecTree out, with every
/// value's one-based source position. Neither library's types appear outside generator/spec/.
///
/// The readers check form, not meaning: unknown or duplicate elements, attributes and keys,
/// missing required ones, wrong YAML node kinds, malformed halo points and syntax errors. Every
/// error goes to the Diagnostics object and reading goes on, so that one run reports them all;
/// names, types and expressions are checked later by model/.
///
/// Any input is safe to read: files that are not regular files (directories, FIFOs, devices such
/// as /dev/zero), files over kMaxSpecBytes (YAML: kMaxYamlSpecBytes) or holding NUL bytes are
/// refused, nesting and list lengths are capped, and no exception escapes.

#include <cstddef>
#include <optional>
#include <string>

#include "diag/diagnostics.hpp"
#include "spec/spec_tree.hpp"

namespace stepgen::spec {

/// Largest spec file the readers accept.
inline constexpr std::size_t kMaxSpecBytes = std::size_t{16} << 20;
/// Largest YAML spec: yaml-cpp may need some hundreds of bytes of memory per byte of input.
inline constexpr std::size_t kMaxYamlSpecBytes = std::size_t{1} << 20;
/// Most items in a per-dimension list (size, global, local, halo widths, one halo point).
inline constexpr std::size_t kMaxDims = 3;
/// Most halo points one argument (or the top-level shadow) may list.
inline constexpr std::size_t kMaxHaloPoints = 4096;

/// Largest kernel source the generator copies into a program.
inline constexpr std::size_t kMaxSourceBytes = std::size_t{16} << 20;

/// What keeps stepgen from reading `path` as a file, or "" for a regular file (links followed):
/// "does not exist", "is not a regular file (a directory)" (or a FIFO, a character device, ...),
/// "cannot be examined (Permission denied)". Says nothing of its size or contents.
std::string file_problem(const std::string& path);

/// Reads regular file `path` into `text`, at most `limit` bytes: never blocks on a FIFO, never
/// reads more than limit + 1 bytes of anything. Returns false with the reason in `error`, worded
/// to follow the file's name as file_problem's are ("is too large (...)", "cannot be read (...)").
bool read_regular_file(const std::string& path, std::size_t limit, std::string& text,
                       std::string& error);

/// read_regular_file with kMaxSpecBytes: a spec file.
bool load_spec_text(const std::string& path, std::string& text, std::string& error);

/// Reads an XML spec (root <stencil>, or the STEPOCL paper's form: see xml_reader.cpp). `diags`
/// was constructed with `path` and `text`. Returns nullopt only when a syntax error (or a refused
/// file) leaves no tree; other errors are reported and the tree is still returned.
std::optional<SpecTree> read_xml(const std::string& path, const std::string& text,
                                 Diagnostics& diags);

/// Reads a YAML spec (a mapping with key `stencil` and the keys of yaml_reader.cpp). Same contract
/// as read_xml.
std::optional<SpecTree> read_yaml(const std::string& path, const std::string& text,
                                  Diagnostics& diags);

/// Reads a spec in either form: XML when `path` ends in .xml, YAML when it ends in .yaml or .yml;
/// otherwise XML when the first non-blank character is '<', else YAML.
std::optional<SpecTree> read_spec(const std::string& path, const std::string& text,
                                  Diagnostics& diags);

/// Reports, at its position, what makes `text` unfit for either reader (too large, a NUL byte).
/// Returns false when something was reported. read_xml and read_yaml call it first.
bool check_spec_text(const std::string& text, Diagnostics& diags);

}  // namespace stepgen::spec
