// <local size="auto"/>: the candidate work-group shapes the program times at start-up
// (runtime/stepgen/exec/tune.hpp), and the kernels that may not say it.

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "checks/signature.hpp"
#include "checks/validate.hpp"
#include "checks/validate_util.hpp"
#include "spec/reader.hpp"

namespace stepgen::model::detail {
namespace {

/// The shapes tried when the spec lists none: 32 or more work-items along x (whole memory
/// transactions), from flat to deep blocks, at most 1024 work-items (CUDA's limit).
std::vector<std::vector<std::int64_t>> default_candidates(int dims) {
  if (dims == 1) return {{256}, {64}, {128}, {512}, {1024}};
  if (dims == 2)
    return {{32, 8}, {32, 4}, {32, 16}, {64, 4}, {64, 8}, {128, 2}, {128, 4}, {256, 1}, {16, 16}};
  return {{32, 4, 4}, {32, 8, 1}, {32, 8, 2}, {32, 1, 8}, {32, 1, 16}, {32, 2, 8},  {32, 4, 8},
          {64, 2, 2}, {64, 4, 1}, {64, 1, 4}, {64, 2, 4}, {16, 16, 1}, {128, 1, 1}, {128, 2, 2}};
}

/// The source with comments blanked (newlines kept, so that line numbers stay).
std::string without_comments(const std::string& s) {
  std::string out = s;
  for (std::size_t i = 0; i + 1 < out.size(); ++i) {
    if (out[i] == '/' && out[i + 1] == '/') {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out[i] == '/' && out[i + 1] == '*') {
      std::size_t j = i;
      for (; j + 1 < out.size() && !(out[j] == '*' && out[j + 1] == '/'); ++j)
        if (out[j] != '\n') out[j] = ' ';
      for (std::size_t e = std::min(j + 2, out.size()); j < e; ++j) out[j] = ' ';
      i = j - 1;
    } else if (out[i] == '"') {  // string literals: skipped as they are
      for (++i; i < out.size() && out[i] != '"' && out[i] != '\n'; ++i)
        if (out[i] == '\\') ++i;
    }
  }
  return out;
}

/// The text of a kernel file, when it is a regular file of at most spec::kMaxSourceBytes (a
/// FIFO or /dev/zero would block or never end; those are reported where the kernel's sources
/// are checked).
bool read_source(const std::string& path, std::string& text) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) ||
      std::filesystem::file_size(path, ec) > spec::kMaxSourceBytes || ec)
    return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream out;
  out << in.rdbuf();
  text = out.str();
  return true;
}

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

/// The first identifier of `source` that starts with one of `names` (whole identifiers, or
/// prefixes ending in '_' such as "work_group_"), and its line; empty when there is none.
std::pair<std::string, int> first_use(const std::string& source,
                                      const std::vector<std::string>& names) {
  int line = 1;
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\n') ++line;
    if (!ident_char(source[i]) || (i > 0 && ident_char(source[i - 1]))) continue;
    std::size_t e = i;
    while (e < source.size() && ident_char(source[e])) ++e;
    const std::string word = source.substr(i, e - i);
    for (const std::string& n : names) {
      const bool prefix = n.back() == '_';
      if (prefix ? word.rfind(n, 0) == 0 : word == n) return {word, line};
    }
    i = e - 1;
  }
  return {"", 0};
}

}  // namespace

// OpenCL runs a launch over part of its work-items (a slab along the slowest dimension: the
// overlap of exchanges, the out-of-core trapezoid) with a global offset and a smaller global
// size. get_global_id() counts the offset; get_group_id() and get_num_groups() do not, and
// get_global_size() is the slab's: a kernel indexing with them (x = get_group_id(0) *
// get_local_size(0) + get_local_id(0), a row stride of get_global_size(0)) computes other cells
// there; get_global_offset() is the slab's offset, which a kernel written for one device takes
// to be 0 (x = get_global_id(0) - get_global_offset(0)). Either computes wrong cells on 2
// devices without an error, so such a kernel runs whole (guarded by
// tests/e2e/offset_blind_test.sh). Its whole file is read, as for <local size="auto"/>.
void Builder::note_offset_blind_queries(Kernel& kernel) {
  if (kernel.language != Language::kOpenCL || kernel.source.empty()) return;
  std::string text;
  if (!read_source(resolve(kernel.source), text)) return;
  const auto [word, line] =
      first_use(without_comments(text),
                {"get_group_id", "get_num_groups", "get_global_size", "get_global_offset"});
  if (!word.empty())
    kernel.offset_blind = kernel.source + ":" + std::to_string(line) + " uses '" + word + "'";
}

// A CUDA kernel written as a template (`template <typename T> __global__ void k(const T* a,
// T* b, int n)`, often with `template __global__ void k<float>(...)` after it): the launch by
// name deduces nothing from the arrays' pointers (they convert to the kernel's types), so the
// generated code would not compile. A template of one type parameter is launched as k<E>, E the
// element type of its first array argument; any other template is an error at the source
// naming the declaration (guarded by tests/cuda_emu/forms_test.sh and
// tests/errors/kernel_template.xml).
void Builder::note_cuda_template(const spec::Kernel& k, Kernel& kernel) {
  const std::string& path = kernel.language == Language::kCuda ? kernel.source : kernel.cuda_source;
  if (path.empty()) return;
  std::string text;
  if (!read_source(resolve(path), text)) return;
  text = without_comments(text);
  // Each `__global__` declaration of the kernel's name: the text since the previous ';', '}'
  // or '{' (at file scope: a declaration's start) says whether it is a template.
  for (std::size_t at = text.find("__global__"); at != std::string::npos;
       at = text.find("__global__", at + 10)) {
    std::size_t open = text.find('(', at);
    if (open == std::string::npos) break;
    std::size_t name_end = text.find_last_not_of(" \t\r\n", open - 1);
    if (name_end == std::string::npos) continue;
    std::size_t name_start = name_end;
    while (name_start > 0 && ident_char(text[name_start - 1])) --name_start;
    if (text.compare(name_start, name_end + 1 - name_start, kernel.name) != 0 ||
        name_end + 1 - name_start != kernel.name.size())
      continue;
    const std::size_t from = text.find_last_of(";{}", at);
    const std::string head = text.substr(from == std::string::npos ? 0 : from + 1,
                                         at - (from == std::string::npos ? 0 : from + 1));
    const std::size_t t = head.find("template");
    if (t == std::string::npos) return;  // a plain kernel
    const std::size_t lt = head.find('<', t), gt = head.rfind('>');
    if (lt == std::string::npos || gt == std::string::npos || gt < lt) return;  // instantiation
    std::string params = head.substr(lt + 1, gt - lt - 1);
    const int line = 1 + static_cast<int>(std::count(
                             text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    const bool one = params.find(',') == std::string::npos;
    params.erase(0, params.find_first_not_of(" \t\r\n"));
    const bool type = params.rfind("typename", 0) == 0 || params.rfind("class", 0) == 0;
    const KernelArg* first = nullptr;
    for (const KernelArg& a : kernel.args)
      if (a.kind == KernelArg::Kind::kArray && a.array >= 0) {
        first = &a;
        break;
      }
    if (!one || !type || !first) {
      diags_.error((kernel.language == Language::kCuda ? k.source : k.cuda_source).loc,
                   "kernel " + quote(kernel.name) + " in " + path + ":" + std::to_string(line) +
                       " is a template of parameters <" + head.substr(lt + 1, gt - lt - 1) +
                       ">: stepgen launches a template of one type parameter only, as the "
                       "element type of its first array argument; launch it through a kernel "
                       "that is not a template, or give it one type parameter");
      return;
    }
    kernel.cuda_template = std::string("<") +
                           cuda_type_name(m_.arrays[static_cast<std::size_t>(first->array)].type) +
                           ">";
    return;
  }
}

// A kernel file that #includes a file of its own folder ("common.h"): the generated program
// copies and compiles the kernel files alone. OpenCL compiles the text at run time, where a
// quoted #include finds the working directory's file of that name (another common.h there
// changes the results silently, --verify agreeing); nvcc, building the CUDA copy, finds none.
// Until stepgen carries such files, they are an error at the source (guarded by
// tests/errors/kernel_local_include.xml).
void Builder::check_local_includes(const spec::Kernel& k, const Kernel& kernel) {
  const std::pair<const spec::Text*, const std::string*> sources[] = {
      {&k.source, &kernel.source}, {&k.cuda_source, &kernel.cuda_source}};
  for (const auto& [text, path] : sources) {
    if (path->empty()) continue;
    const std::string full = resolve(*path);
    std::string source;
    if (!read_source(full, source)) continue;
    source = without_comments(source);
    int line = 1;
    for (std::size_t i = 0; i < source.size(); ++i) {
      if (source[i] == '\n') ++line;
      if (source[i] != '#' ||
          (i > 0 && source.find_last_not_of(" \t", i - 1) != std::string::npos &&
           source[source.find_last_not_of(" \t", i - 1)] != '\n'))
        continue;
      std::size_t j = source.find_first_not_of(" \t", i + 1);
      if (j == std::string::npos || source.compare(j, 7, "include") != 0) continue;
      j = source.find_first_not_of(" \t", j + 7);
      if (j == std::string::npos || source[j] != '"') continue;
      const std::size_t e = source.find('"', j + 1);
      if (e == std::string::npos) continue;
      const std::string name = source.substr(j + 1, e - j - 1);
      std::error_code ec;
      const std::filesystem::path header = std::filesystem::path(full).parent_path() / name;
      if (!std::filesystem::exists(header, ec)) continue;
      diags_.error(text->loc, "kernel source " + quote(*path) + " includes \"" + name +
                                  "\" (line " + std::to_string(line) +
                                  "), a file of its folder: the generated program carries the "
                                  "kernel files alone (an OpenCL program compiles them at run "
                                  "time, where a file of that name in the working directory "
                                  "would be taken instead); paste it into the kernel file");
      break;
    }
  }
}

void Builder::build_local_auto(const spec::Kernel& k, Kernel& kernel) {
  const spec::Text& at = k.local.front();
  kernel.local_auto = true;
  // Only a kernel whose results cannot depend on the shape may be tuned: no local (shared)
  // memory, barriers, work-group or warp queries. The kernel's whole file is read (helpers it
  // calls live there); #included files are not.
  struct Source {
    std::string path;
    std::vector<std::string> names;
  };
  std::vector<Source> sources;
  const std::vector<std::string> opencl = {"__local",
                                           "local",
                                           "barrier",
                                           "work_group_",
                                           "sub_group_",
                                           "get_local_id",
                                           "get_local_size",
                                           "get_group_id",
                                           "get_num_groups",
                                           "get_enqueued_local_size",
                                           "get_local_linear_id"};
  const std::vector<std::string> cuda = {
      "__shared__", "__syncthreads", "__syncwarp", "__shfl_",  "__ballot_",
      "__any_sync", "__all_sync",    "__match_",   "warpSize", "cooperative_groups"};
  if (!kernel.source.empty())
    sources.push_back({kernel.source, kernel.language == Language::kCuda ? cuda : opencl});
  if (!kernel.cuda_source.empty()) sources.push_back({kernel.cuda_source, cuda});
  for (const Source& src : sources) {
    std::string text;
    if (!read_source(resolve(src.path), text)) continue;
    // reqd_work_group_size allows one shape only: the tuner's other candidates would fail to
    // launch with a bare CL_INVALID_WORK_GROUP_SIZE, -54 (guarded by
    // tests/errors/model_local_auto.xml).
    if (const auto [req, req_line] = first_use(without_comments(text), {"reqd_work_group_size"});
        !req.empty()) {
      diags_.error(at.loc, "kernel " + quote(kernel.name) +
                               " cannot have <local size=\"auto\"/>: " + src.path + ":" +
                               std::to_string(req_line) +
                               " uses 'reqd_work_group_size', which allows that one work-group "
                               "shape only; give it as <local size>");
      continue;
    }
    const auto [word, line] = first_use(without_comments(text), src.names);
    if (!word.empty())
      diags_.error(at.loc, "kernel " + quote(kernel.name) +
                               " cannot have <local size=\"auto\"/>: " + src.path + ":" +
                               std::to_string(line) + " uses '" + word +
                               "', so its results may depend on the work-group shape; give "
                               "a fixed <local size>");
  }
  if (!k.local_candidates.present) {
    kernel.local_candidates = default_candidates(m_.dims);
    return;
  }
  // "32 8; 16 16": shapes separated by ';', sizes by spaces or commas.
  std::stringstream list(k.local_candidates.value);
  std::string item;
  while (std::getline(list, item, ';')) {
    for (char& c : item)
      if (c == ',') c = ' ';
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    std::istringstream sizes(item);
    std::vector<std::int64_t> shape;
    std::string size;
    bool ok = true;
    std::int64_t items = 1;
    while (sizes >> size) {
      std::int64_t v = 0;
      std::size_t used = 0;
      try {
        v = std::stoll(size, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != size.size() || v < 1 || v > 1024) {
        diags_.error(k.local_candidates.loc, "candidate work-group size " + quote(size) +
                                                 " of kernel " + quote(kernel.name) +
                                                 " must be an integer from 1 to 1024");
        ok = false;
        break;
      }
      shape.push_back(v);
      items *= v;
    }
    if (!ok) continue;
    if (shape.empty()) {
      diags_.error(k.local_candidates.loc, "an empty candidate shape in 'candidates' of kernel " +
                                               quote(kernel.name) +
                                               " (shapes are separated by ';')");
      continue;
    }
    if (grid_ok_ && shape.size() != static_cast<std::size_t>(m_.dims)) {
      diags_.error(k.local_candidates.loc,
                   "candidate shape '" + item + "' of kernel " + quote(kernel.name) + " has " +
                       std::to_string(shape.size()) + " sizes; the grid has " +
                       std::to_string(m_.dims) + " dimensions");
      continue;
    }
    if (items > 1024) {
      diags_.error(k.local_candidates.loc,
                   "candidate shape '" + item + "' of kernel " + quote(kernel.name) + " has " +
                       std::to_string(items) + " work-items; at most 1024 (CUDA's limit)");
      continue;
    }
    kernel.local_candidates.push_back(shape);
  }
  if (kernel.local_candidates.empty() && !diags_.has_errors())
    diags_.error(k.local_candidates.loc,
                 "'candidates' of kernel " + quote(kernel.name) + " lists no shape");
}

}  // namespace stepgen::model::detail
