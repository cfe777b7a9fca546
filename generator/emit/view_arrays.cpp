#include <string>
#include <vector>

#include "emit/cpp_text.hpp"
#include "emit/view_parts.hpp"

namespace stepgen::emit::view_parts {

using cpp::fill;
using model::Init;
using model::Model;

namespace {

const std::string kSpecFolderNote = "  // relative to the spec's folder (--spec-dir)";

// Initialisation statement for one array, in the generated make_host_arrays().
std::string array_init(const Model& m, const model::Array& a) {
  const std::string type = model::type_info(a.type).cpp_name;
  const std::string target = "host[array::" + a.name + "]";
  switch (a.init.kind) {
    case Init::Kind::kZero:
      return "// " + a.name + ": zero (host arrays start zeroed)";
    case Init::Kind::kNone:
      return "// " + a.name + ": no initial values (starts zeroed)";
    case Init::Kind::kRandom:
      return fill("rt::fill_random<{type}>({target}, kGrid, {seed}u);",
                  {{"type", type}, {"target", target}, {"seed", std::to_string(a.init.seed)}});
    case Init::Kind::kValue:  // without a host copy: made on the devices
      return fill(
          "if ({target}.held) std::fill_n({target}.as<{type}>(), count, "
          "static_cast<{type}>({value}));",
          {{"target", target}, {"type", type}, {"value", a.init.value}});
    case Init::Kind::kCopy:
      return fill(
          "if ({target}.held) {target}.bytes = {source}.bytes;",
          {{"target", target}, {"source", "host[" + cpp::array_id(m, a.init.source) + "]"}});
    case Init::Kind::kFile:  // held unless a caller has the values already
      return fill(
          "if ({target}.held) rt::load_raw({target}, rt::spec_file(\"{dir}\", "
          "\"{path}\"));{note}",
          {{"target", target},
           {"dir", cpp::spec_dir_abs(m)},
           {"path", a.init.path},
           {"note", kSpecFolderNote}});
  }
  return {};
}

// How the engines make one array's initial values on the devices (rt::ArrayInit, the last
// field of the generated kArrayInfo): file() on the host (uploaded), the others on the devices
// with the host's bits when the array has no host copy.
std::string device_init(const Model& m, const model::Array& a) {
  const std::string type = model::type_info(a.type).cpp_name;
  switch (a.init.kind) {
    case Init::Kind::kZero:
    case Init::Kind::kNone:
      return "rt::init_zero()";
    case Init::Kind::kRandom:
      return fill("rt::init_random<{type}>({seed}u)",
                  {{"type", type}, {"seed", std::to_string(a.init.seed)}});
    case Init::Kind::kValue:
      return fill("rt::init_value<{type}>(static_cast<{type}>({value}))",
                  {{"type", type}, {"value", a.init.value}});
    case Init::Kind::kCopy:
      return fill("rt::init_copy({source})", {{"source", cpp::array_id(m, a.init.source)}});
    case Init::Kind::kFile:
      return "rt::init_host()";
  }
  return "rt::init_host()";
}

// The same statement in an MPI program's make_rank_arrays(box), where `host` holds one rank's
// box: per-cell values come from the global cell index, files are read by MPI-IO (collective).
std::string array_init_mpi(const Model& m, const model::Array& a) {
  if (a.init.kind != Init::Kind::kFile) return array_init(m, a);  // the same for any box
  return fill(
      "mpi::read_array(MPI_COMM_WORLD, host[array::{name}], kGrid, "
      "rt::spec_file(\"{dir}\", \"{path}\"));{note}",
      {{"name", a.name},
       {"dir", cpp::spec_dir_abs(m)},
       {"path", a.init.path},
       {"note", kSpecFolderNote}});
}

// The arrays in the order their initialisation must run: copies after their sources.
std::vector<std::size_t> init_order(const Model& m) {
  std::vector<std::size_t> order;
  std::vector<bool> done(m.arrays.size(), false);
  for (std::size_t pass = 0; pass <= m.arrays.size(); ++pass)
    for (std::size_t i = 0; i < m.arrays.size(); ++i) {
      const model::Array& a = m.arrays[i];
      bool ready =
          a.init.kind != Init::Kind::kCopy || done[static_cast<std::size_t>(a.init.source)];
      if (!done[i] && ready) {
        done[i] = true;
        order.push_back(i);
      }
    }
  if (order.size() != m.arrays.size()) throw EmitError("copy() initialisations form a cycle");
  return order;
}

// Initialisation statement for one table, in the generated host_tables() (`t`: the tables).
std::string table_init(const Model& m, const model::Table& tb) {
  const std::string type = model::type_info(tb.type).cpp_name;
  const std::string target = "t[table::" + tb.name + "]";
  switch (tb.init.kind) {
    case Init::Kind::kZero:
    case Init::Kind::kNone:
      return "// " + tb.name + ": zero (host tables start zeroed)";
    case Init::Kind::kRandom:
      return fill("rt::fill_random<{type}>({target}, {target}.box, {seed}u);",
                  {{"type", type}, {"target", target}, {"seed", std::to_string(tb.init.seed)}});
    case Init::Kind::kValue:
      return fill(
          "std::fill_n({target}.as<{type}>(), {target}.box.volume(), "
          "static_cast<{type}>({value}));",
          {{"target", target}, {"type", type}, {"value", tb.init.value}});
    case Init::Kind::kCopy:
      return fill("{target}.bytes = t[table::{source}].bytes;",
                  {{"target", target},
                   {"source", m.tables[static_cast<std::size_t>(tb.init.source)].name}});
    case Init::Kind::kFile:
      // Relative to the spec's folder, baked in (absolute) as for arrays; the line's length
      // depends on where the spec lies, hence clang-format off (generated code is formatted).
      return fill(
          "// {name}: relative to the spec's folder (--spec-dir)\n"
          "    // clang-format off\n"
          "    rt::load_raw({target}, rt::spec_file(\"{dir}\", \"{path}\"));\n"
          "    // clang-format on",
          {{"name", tb.name},
           {"target", target},
           {"dir", cpp::spec_dir_abs(m)},
           {"path", tb.init.path}});
  }
  return {};
}

}  // namespace

// Arrays: names, types, which get exchanged and compared, their halos, initial values.
void arrays(const model::ProgramPlan& plan, View& v) {
  const Model& m = *plan.model;
  std::vector<std::string> enum_items, quoted;
  View arrays{View::type::list};
  std::vector<std::string> inits(m.arrays.size());
  const std::vector<std::size_t> order = init_order(m);
  for (std::size_t i : order) inits[i] = array_init(m, m.arrays[i]);
  for (std::size_t i = 0; i < m.arrays.size(); ++i) {
    const model::Array& a = m.arrays[i];
    enum_items.push_back(a.name);
    quoted.push_back(cpp::literal(a.name));
    View item;
    item.set("name", a.name);
    item.set("cpp_type", model::type_info(a.type).cpp_name);
    const model::ArrayPlan& ap = plan.arrays[i];
    std::vector<std::string> flags;  // rt::ArrayFlags (runtime/stepgen/description/description.hpp)
    if (ap.exchanged) flags.push_back("rt::kExchanged");
    if (ap.compared) flags.push_back("rt::kResult");
    if (model::type_info(a.type).is_float) flags.push_back("rt::kFloating");
    if (ap.results) flags.push_back("rt::kStoredBack");
    item.set("flags", flags.empty() ? "rt::kNoFlags" : cpp::join(flags, " | "));
    item.set("halo", cpp::halo(ap.halo));
    item.set("init", inits[i]);
    item.set("device_init", device_init(m, a));
    arrays.push_back(item);
  }
  enum_items.push_back("kCount");
  v.set("array_enum", cpp::join(enum_items, ", "));
  v.set("array_names", cpp::braced(quoted));
  v.set("arrays", arrays);
  // Initialisation in dependency order (copies after their sources).
  // make_host_arrays(box) fills any box of the grid; the MPI program reads files by MPI-IO.
  View init_lines{View::type::list};
  bool init_count = false, init_mpi = false;
  for (std::size_t i : order) {
    const Init::Kind kind = m.arrays[i].init.kind;
    View line;
    line.set("init", plan.mpi ? array_init_mpi(m, m.arrays[i]) : inits[i]);
    init_lines.push_back(line);
    init_count = init_count || kind == Init::Kind::kValue;
    init_mpi = init_mpi || (plan.mpi && kind == Init::Kind::kFile);
  }
  v.set("inits", init_lines);
  v.set("init_count", flag(init_count));  // `count` is declared only where a fill uses it
  v.set("init_mpi", flag(init_mpi));      // `mpi::` only where a file is read by MPI-IO
}

// The spec's tables (<table>): has_tables, table_enum, tables (name, cpp_type, dims, size,
// init), table_bytes (runtime/stepgen/exec/tables.hpp).
void tables(const Model& m, View& v) {
  v.set("has_tables", flag(!m.tables.empty()));
  std::vector<std::string> enum_items;
  View tables{View::type::list};
  for (const model::Table& tb : m.tables) {
    enum_items.push_back(tb.name);
    View item;
    item.set("name", tb.name);
    item.set("cpp_type", model::type_info(tb.type).cpp_name);
    item.set("dims", std::to_string(tb.dims));
    item.set("size", cpp::vec3(tb.size));
    item.set("init", table_init(m, tb));
    tables.push_back(item);
  }
  enum_items.push_back("kCount");
  v.set("table_enum", cpp::join(enum_items, ", "));
  v.set("tables", tables);
  v.set("table_bytes", std::to_string(m.table_bytes()));
}

}  // namespace stepgen::emit::view_parts
