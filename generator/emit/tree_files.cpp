// The files of a generated tree besides its rendered templates: the kernels' sources, each
// file once under kernels/ with as few of its folders as set it apart, and the runtime headers
// the program includes (embedded in stepgen at build time).
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "emit/embedded_files.hpp"
#include "emit/view.hpp"
#include "spec/reader.hpp"

namespace stepgen::emit {

namespace fs = std::filesystem;
using model::Model;

namespace {

// The file a kernel names, as one identity: two spellings of one file (k.cl, ./k.cl, a link)
// are one file.
fs::path identity(const fs::path& written) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(written, ec);
  return ec ? written : canonical;
}

// The last `n` parts of `p` (fewer when it has fewer), without its root.
fs::path last_parts(const fs::path& p, std::size_t n) {
  std::vector<fs::path> parts;
  for (const fs::path& part : p.relative_path()) parts.push_back(part);
  fs::path out;
  for (std::size_t i = parts.size() > n ? parts.size() - n : 0; i < parts.size(); ++i)
    out /= parts[i];
  return out;
}

}  // namespace

std::vector<KernelFile> kernel_files(const Model& m, const KernelFileOf& file_of) {
  std::vector<KernelFile> files;
  std::map<fs::path, std::size_t> by_identity;
  for (const model::Kernel& k : m.kernels) {
    fs::path source = fs::path(m.spec_dir) / file_of(k);
    fs::path written = fs::absolute(source).lexically_normal();
    if (by_identity.emplace(identity(written), files.size()).second)
      files.push_back({source.generic_string(), written.generic_string(), ""});
  }
  // A file keeps its name; files of one name each keep as few of their last folders as set them
  // apart from the others: a/k.cl and b/k.cl become kernels/a/k.cl and kernels/b/k.cl. (Two
  // suffixes of different lengths never collide: a shorter one would have been unique already.)
  std::map<std::string, std::vector<std::size_t>> by_name;
  for (std::size_t i = 0; i < files.size(); ++i)
    by_name[fs::path(files[i].path).filename().string()].push_back(i);
  for (const auto& [name, group] : by_name) {
    for (std::size_t i : group) {
      const fs::path path(files[i].path);
      std::size_t depth = 1;
      for (;; ++depth) {
        const fs::path mine = last_parts(path, depth);
        bool unique = true;
        for (std::size_t j : group)
          unique = unique && (j == i || last_parts(fs::path(files[j].path), depth) != mine);
        if (unique || mine == last_parts(path, depth + 1)) break;  // (whole paths differ)
      }
      files[i].target = "kernels/" + last_parts(path, depth).generic_string();
      if (!model::carried_by_build_files(
              files[i].target))  // a folder's (the spec checks the file's)
        throw EmitError("the kernel file " + files[i].path + " would be copied to " +
                        files[i].target +
                        ", a name the generated CMakeLists.txt cannot carry (a quote, "
                        "backslash, $ or ;, or a control character): rename its folder");
    }
  }
  // A folder of one target must not be another target (a file "kernels/a" beside "kernels/a/k.cl").
  std::set<std::string> targets;
  for (const KernelFile& f : files) targets.insert(f.target);
  for (const KernelFile& f : files)
    for (fs::path up = fs::path(f.target).parent_path(); up != "kernels" && !up.empty();
         up = up.parent_path())
      if (targets.count(up.generic_string()))
        throw EmitError("kernel files '" + up.generic_string() + "' and '" + f.target +
                        "' cannot both be placed in the output folder: rename one");
  return files;
}

std::vector<std::string> add_kernel_files(const Model& m, const KernelFileOf& file_of,
                                          const std::string& what, OutputSet& out) {
  std::vector<std::string> paths;
  for (const KernelFile& f : kernel_files(m, file_of)) {
    std::string text, problem;
    if (!spec::read_regular_file(f.source, spec::kMaxSourceBytes, text, problem))
      throw EmitError(what + " '" + f.source + "' " + problem);
    out.add(f.target, text);
    paths.push_back(f.target);
  }
  return paths;
}

std::vector<std::string> add_kernel_sources(const Model& m, OutputSet& out) {
  return add_kernel_files(
      m, [](const model::Kernel& k) { return k.source; }, "kernel source", out);
}

void add_runtime_headers(const std::vector<std::string>& names, OutputSet& out) {
  const std::string dir = "runtime/include/stepgen/";
  for (const std::string& n : names)
    if (!out.files().count("runtime/stepgen/" + n))
      out.add("runtime/stepgen/" + n, embedded_file(dir + n));
}

void add_included_runtime_headers(OutputSet& out) {
  // Every `#include "stepgen/..."` of the tree's files, and of the headers they bring, whatever
  // #if surrounds it (an HDF5 or MPI header a build may skip comes too): the tree holds what
  // any of its builds includes, and nothing listed by hand can fall behind the headers.
  static const std::regex include(R"re(#\s*include\s*"stepgen/([A-Za-z0-9_./]+\.hpp)")re");
  std::vector<std::string> todo;
  auto scan = [&](const std::string& text) {
    for (std::sregex_iterator it(text.begin(), text.end(), include), end; it != end; ++it)
      todo.push_back((*it)[1]);
  };
  for (const auto& [path, text] : out.files()) scan(text);
  std::set<std::string> seen;
  while (!todo.empty()) {
    const std::string name = todo.back();
    todo.pop_back();
    if (!seen.insert(name).second) continue;
    // exec/kernels/NAME_cl.hpp: made by the tree's build from the copied NAME.cl.
    if (name.rfind("exec/kernels/", 0) == 0) continue;
    const std::string& text = embedded_file("runtime/include/stepgen/" + name);
    add_runtime_headers({name}, out);
    scan(text);
  }
}

}  // namespace stepgen::emit
