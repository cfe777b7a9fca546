// Output and checkpoint: <output arrays every file first last> (any number) and
// <checkpoint every file> (YAML: outputs: [...], checkpoint: {...}). docs/spec.md, docs/io.md.

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "checks/validate.hpp"
#include "checks/validate_util.hpp"
#include "model/groups.hpp"

namespace stepgen::model::detail {

namespace {

bool ends_with(const std::string& s, const std::string& e) {
  return s.size() > e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
}

// The names of a list separated by spaces or commas, each with its offset in the text.
std::vector<std::pair<std::string, std::size_t>> names_in(const std::string& s) {
  std::vector<std::pair<std::string, std::size_t>> out;
  std::size_t i = 0;
  auto sep = [](char c) { return c == ',' || std::isspace(static_cast<unsigned char>(c)); };
  while (i < s.size()) {
    while (i < s.size() && sep(s[i])) ++i;
    const std::size_t b = i;
    while (i < s.size() && !sep(s[i])) ++i;
    if (i > b) out.emplace_back(s.substr(b, i - b), b);
  }
  return out;
}

// A file name the program writes: not blank, no control characters, not a folder.
std::string file_problem(const std::string& f) {
  if (f.empty()) return "is empty";
  for (char c : f)
    if (static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\')
      return "holds a control character, a quote or a backslash";
  if (f.back() == '/') return "names a folder";
  return {};
}

}  // namespace

void Builder::build_io() {
  // Arrays whose values the program keeps: written arrays with save="false" (scratch) are not
  // gathered in core and not kept out of core, so a snapshot of them would depend on the mode.
  auto scratch = [&](int id) {
    bool written = false;
    for (int a : array_group(m_, id))
      written = written || m_.arrays[static_cast<std::size_t>(a)].written;
    return written && !m_.arrays[static_cast<std::size_t>(id)].save;
  };
  for (const spec::Output& o : tree_.outputs) {
    Output out;
    out.loc = o.loc;
    if (require(o.arrays, "<output> needs the arrays to write (arrays=\"p q\")")) {
      // Each name where it stands: an offset into the attribute, or YAML's list items.
      std::vector<std::pair<std::string, spec::Loc>> listed;
      for (const spec::Text& t : o.array_items) listed.emplace_back(t.value, t.loc);
      if (o.array_items.empty())
        for (const auto& [name, offset] : names_in(o.arrays.value)) {
          spec::Loc at = o.arrays.loc;
          if (at.line > 0) at.col += static_cast<int>(offset);
          listed.emplace_back(name, at);
        }
      for (const auto& [name, at] : listed) {
        const int id = m_.find_array(name);
        if (id < 0) {
          diags_.error(at, "<output> names array " + quote(name) +
                               ", which the spec does not have" + did_you_mean(name, array_names_));
          continue;
        }
        const Array& a = m_.arrays[static_cast<std::size_t>(id)];
        if (a.dims != m_.dims || a.size != m_.domain) {
          diags_.error(at, "<output> of array " + quote(name) + ": it is " + size_string(id) +
                               ", not the grid's shape (only arrays over the whole grid are "
                               "written as snapshots)");
          continue;
        }
        if (scratch(id)) {
          diags_.error(at, "<output> of array " + quote(name) +
                               ": it is a scratch array (save=\"false\"): its values are not kept "
                               "between steps");
          continue;
        }
        if (std::find(out.arrays.begin(), out.arrays.end(), id) != out.arrays.end()) {
          diags_.error(at, "<output> lists array " + quote(name) + " twice");
          continue;
        }
        out.arrays.push_back(id);
      }
    }
    if (require(o.every, "<output> needs every=\"N\": the steps between snapshots"))
      if (std::optional<std::int64_t> v = constant_int(o.every, "every", 1)) out.every = *v;
    if (require(o.file, "<output> needs file=\"NAME.h5\" or file=\"NAME.raw\"")) {
      out.file = o.file.value;
      const std::string problem = file_problem(out.file);
      if (!problem.empty()) {
        diags_.error(o.file.loc, "<output> file " + quote(out.file) + " " + problem);
      } else if (ends_with(out.file, ".h5") || ends_with(out.file, ".hdf5")) {
        out.hdf5 = true;
      } else if (!ends_with(out.file, ".raw")) {
        diags_.error(o.file.loc, "<output> file " + quote(out.file) +
                                     " must end in .h5 or .hdf5 (an HDF5 file and an XDMF file "
                                     "beside it) or .raw (one raw file per array and step)");
      }
    }
    if (o.first.present)
      if (std::optional<bool> b = boolean(o.first, "first")) out.first = *b;
    if (o.last.present)
      if (std::optional<bool> b = boolean(o.last, "last")) out.last = *b;
    m_.outputs.push_back(std::move(out));
  }

  if (tree_.checkpoint.present) build_checkpoint();
  check_written_files();
}

void Builder::build_checkpoint() {
  const spec::Checkpoint& c = tree_.checkpoint;
  m_.checkpoint.enabled = true;
  m_.checkpoint.loc = c.loc;
  if (require(c.every, "<checkpoint> needs every=\"N\": the steps between checkpoints"))
    if (std::optional<std::int64_t> v = constant_int(c.every, "every", 1)) m_.checkpoint.every = *v;
  if (require(c.file, "<checkpoint> needs file=\"NAME\"")) {
    m_.checkpoint.file = c.file.value;
    const std::string problem = file_problem(c.file.value);
    if (!problem.empty())
      diags_.error(c.file.loc, "<checkpoint> file " + quote(c.file.value) + " " + problem);
  }
}

// Every file the program writes is its own: an output's (and an HDF5 output's XDMF file beside
// it), the checkpoint, the monitor's table and each record's trace, compared as paths (w.h5 and
// ./w.h5 are one file; v.h5 and v.hdf5 have one v.xdmf). The one check of it, at the later
// file's attribute. Two writers of one file would fail late (two outputs in one HDF5 file, at
// the last step) or lose one silently (a record and the monitor in one run.csv keep the
// monitor's table alone, exit 0). Guarded by tests/errors/io_files_collide.xml.
void Builder::check_written_files() {
  struct Written {
    std::string path;  ///< lexically normal
    std::string what;
    spec::Loc loc;
  };
  std::vector<Written> all;
  auto add = [&](const std::string& file, const std::string& what, spec::Loc loc) {
    if (file.empty() || !file_problem(file).empty()) return;
    all.push_back({std::filesystem::path(file).lexically_normal().generic_string(), what, loc});
  };
  for (std::size_t i = 0; i < m_.outputs.size() && i < tree_.outputs.size(); ++i) {
    const Output& o = m_.outputs[i];
    const spec::Loc at = tree_.outputs[i].file.loc;
    add(o.file, "the <output> file " + quote(o.file), at);
    if (!o.hdf5) {
      // One raw file per array and step, STEM_ARRAY_STEP.raw: two outputs' files may meet
      // there (r/p_G.raw of A and r/p.raw of G_A), and one would overwrite the other
      // (guarded by tests/errors/io_files_collide.xml).
      const std::string stem = o.file.substr(0, o.file.rfind('.'));
      for (int id : o.arrays) {
        const std::string each =
            stem + "_" + m_.arrays[static_cast<std::size_t>(id)].name + "_<step>.raw";
        add(each,
            "the files " + quote(each) + " of <output> " + quote(o.file) + " (array " +
                quote(m_.arrays[static_cast<std::size_t>(id)].name) + ")",
            at);
      }
    } else {
      const std::string stem = o.file.substr(0, o.file.rfind('.'));
      add(stem + ".xdmf",
          "the XDMF file " + quote(stem + ".xdmf") + " of <output> " + quote(o.file), at);
    }
  }
  if (m_.checkpoint.enabled)
    add(m_.checkpoint.file, "the <checkpoint> file " + quote(m_.checkpoint.file),
        tree_.checkpoint.file.loc);
  if (m_.monitor.present)
    add(m_.monitor.file, "the <monitor> file " + quote(m_.monitor.file), tree_.monitor.file.loc);
  for (std::size_t i = 0; i < m_.body.size() && i < tree_.iterate.body.size(); ++i)
    if (m_.body[i].kind == Step::Kind::kRecord)
      add(m_.body[i].file, "the record file " + quote(m_.body[i].file),
          tree_.iterate.body[i].file.loc);
  // One error per pair of attributes (an HDF5 output's XDMF file collides with the other's too).
  std::set<std::pair<std::pair<int, int>, std::pair<int, int>>> told;
  for (std::size_t j = 1; j < all.size(); ++j)
    for (std::size_t i = 0; i < j; ++i) {
      const Written& a = all[i];
      const Written& b = all[j];
      if (a.path != b.path) continue;
      const auto pair = std::make_pair(std::make_pair(a.loc.line, a.loc.col),
                                       std::make_pair(b.loc.line, b.loc.col));
      if (told.insert(pair).second)
        diags_.error(b.loc, b.what + (b.what.rfind("the files ", 0) == 0 ? " are " : " is ") +
                                a.what + " (line " + std::to_string(a.loc.line) +
                                "): each file the program writes must be its own");
      break;
    }
}

}  // namespace stepgen::model::detail
