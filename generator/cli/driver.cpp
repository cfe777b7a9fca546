#include "cli/driver.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "diag/diagnostics.hpp"
#include "emit/emitter.hpp"
#include "model/model.hpp"
#include "model/plan.hpp"
#include "spec/reader.hpp"

namespace stepgen::cli {

namespace fs = std::filesystem;

namespace {

/// Reads, validates and reports one spec. Returns the model when there was no error.
std::optional<model::Model> load(const std::string& path, std::ostream& err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    err << path << ": error: cannot open the spec file\n";
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  Diagnostics diags(path, text.str());
  std::optional<model::Model> model;
  if (std::optional<spec::SpecTree> tree = spec::read_spec(path, diags.source(), diags))
    model = model::build_model(*tree, diags);
  diags.print(err);
  if (diags.has_errors()) return std::nullopt;
  return model;
}

std::string targets_list() {
  std::string s;
  for (const std::string& n : emit::emitter_names()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

int generate(const std::string& spec_path, const std::string& target, std::string out_dir,
             const std::string& distribution, std::ostream& out, std::ostream& err) {
  std::unique_ptr<emit::Emitter> emitter = emit::make_emitter(target);
  if (!emitter) {
    err << "stepgen: error: no backend '" << target << "' (available: " << targets_list() << ")\n";
    return kUsage;
  }
  std::optional<model::Model> model = load(spec_path, err);
  if (!model) return kSpecErrors;
  if (!distribution.empty()) model->mpi = distribution == "mpi";  // --distribution overrides the spec
  if (model->mpi && target != "opencl") {
    err << "stepgen: error: MPI programs (distribution mpi) are generated for the opencl target only, not '" << target
        << "' (use --distribution none for a one-process program)\n";
    return distribution.empty() ? kSpecErrors : kUsage;
  }
  if (out_dir.empty()) out_dir = model->name + "-" + target;
  emit::OutputSet files;
  try {
    emitter->emit(*model, files);
    emit::WriteResult result = emit::write_output(files, out_dir);
    out << "stepgen: " << target << " program '" << model->name << "' in " << out_dir << ": "
        << result.written.size() << " file(s) written, " << result.unchanged.size() << " unchanged\n"
        << "  build: cmake -S " << out_dir << " -B " << out_dir << "/build && cmake --build " << out_dir
        << "/build\n"
        << "  run:   " << out_dir << "/build/" << model->name << " --help\n";
  } catch (const std::exception& e) {
    err << spec_path << ": error: " << e.what() << "\n";
    return kSpecErrors;
  }
  return kOk;
}

int plan(const std::string& spec_path, int devices, const std::vector<double>& weights, const std::string& strategy,
         std::int64_t device_memory, bool json, const std::string& svg, std::ostream& out, std::ostream& err) {
  std::optional<model::Model> model = load(spec_path, err);
  if (!model) return kSpecErrors;
  model::PlanOptions options;
  options.devices = devices;
  options.weights = weights;
  options.strategy = strategy == "stepocl" ? rt::Strategy::kStepocl : rt::Strategy::kMinExchange;
  options.device_memory = device_memory;
  try {
    model::Plan p = model::make_plan(*model, options);
    // Fewer parts than devices is not an error (a program uses what fits), but say so plainly.
    std::size_t used = p.partition.parts.size();
    if (used < static_cast<std::size_t>(devices))
      err << spec_path << ": warning: only " << used << " of " << devices
          << " devices can be used: " << p.partition.rationale << "\n";
    out << (json ? model::plan_json(*model, p) : model::plan_text(*model, p));
    if (!svg.empty()) {
      std::ofstream file(svg, std::ios::binary | std::ios::trunc);
      file << model::plan_svg(*model, p);
      if (!file) {
        err << "stepgen: error: cannot write '" << svg << "'\n";
        return kSpecErrors;
      }
    }
  } catch (const rt::PlanError& e) {
    err << spec_path << ": error: " << e.what() << "\n";
    return kSpecErrors;
  }
  return kOk;
}

// Parses "8GiB", "512MiB", "1000000" into bytes; nullopt when malformed.
std::optional<std::int64_t> parse_bytes(const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string unit = text.substr(used);
  const std::pair<const char*, double> units[] = {{"", 1},         {"B", 1},          {"KiB", 1024.0},
                                                  {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1099511627776.0},
                                                  {"KB", 1e3},      {"MB", 1e6},      {"GB", 1e9},
                                                  {"TB", 1e12}};
  for (const auto& [name, scale] : units)
    if (unit == name && value > 0) return static_cast<std::int64_t>(value * scale);
  return std::nullopt;
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  // `stepgen SPEC ...` means `stepgen generate SPEC ...`.
  std::vector<std::string> args(argv + 1, argv + argc);
  const std::vector<std::string> commands = {"check", "generate", "plan"};
  if (!args.empty() && args[0][0] != '-' &&
      std::find(commands.begin(), commands.end(), args[0]) == commands.end())
    args.insert(args.begin(), "generate");

  CLI::App app{"stepgen: multi-device stencil host programs from a spec and an unmodified kernel", "stepgen"};
  app.set_version_flag("--version", "stepgen " STEPGEN_VERSION);
  app.require_subcommand(1);
  app.footer("A spec alone (stepgen SPEC) means: stepgen generate SPEC.\nExit codes: 0 success, 1 spec errors, 2 usage errors.");

  std::vector<std::string> check_specs;
  CLI::App* check = app.add_subcommand("check", "Read and validate specs; report every error and warning");
  check->add_option("specs", check_specs, "Spec files (.xml, .yaml)")->required();

  std::string gen_spec, target = "opencl", out_dir;
  CLI::App* gen = app.add_subcommand("generate", "Generate a host program for a backend");
  gen->add_option("spec", gen_spec, "Spec file (.xml, .yaml)")->required();
  gen->add_option("--target,-t", target, "Backend: " + targets_list())->capture_default_str();
  gen->add_option("-o,--output", out_dir, "Output folder (default: NAME-TARGET)");
  std::string distribution;
  gen->add_option("--distribution", distribution, "none or mpi (one rank per device); default: the spec's")
      ->check(CLI::IsMember({"none", "mpi"}));

  std::string plan_spec, strategy = "min-exchange", svg, memory;
  int devices = 1;
  std::vector<double> weights;
  bool json = false;
  CLI::App* pl = app.add_subcommand("plan", "Show how the grid is split, exchanged and chunked");
  pl->add_option("spec", plan_spec, "Spec file (.xml, .yaml)")->required();
  pl->add_option("--devices,-n", devices, "Number of devices")->check(CLI::PositiveNumber)->capture_default_str();
  pl->add_option("--weights", weights, "Relative device speeds, one per device")->delimiter(',');
  pl->add_option("--strategy", strategy, "min-exchange (default) or stepocl")
      ->check(CLI::IsMember({"min-exchange", "stepocl"}));
  pl->add_option("--device-memory", memory, "Device memory budget for out-of-core plans (e.g. 8GiB)");
  pl->add_flag("--json", json, "Machine-readable output");
  pl->add_option("--svg", svg, "Also draw the plan into this SVG file");

  std::vector<const char*> cargs{"stepgen"};
  for (const std::string& a : args) cargs.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(cargs.size()), cargs.data());
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return kOk;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return kOk;
  } catch (const CLI::CallForVersion&) {
    out << "stepgen " STEPGEN_VERSION "\n";
    return kOk;
  } catch (const CLI::ParseError& e) {
    err << "stepgen: error: " << e.what() << "\n(see stepgen --help)\n";
    return kUsage;
  }

  if (check->parsed()) {
    int status = kOk;
    for (const std::string& s : check_specs)
      if (!load(s, err)) status = kSpecErrors;
    return status;
  }
  if (gen->parsed()) return generate(gen_spec, target, out_dir, distribution, out, err);
  if (pl->parsed()) {
    std::int64_t bytes = 0;
    if (!memory.empty()) {
      std::optional<std::int64_t> b = parse_bytes(memory);
      if (!b) {
        err << "stepgen: error: --device-memory expects a size such as 8GiB, got '" << memory << "'\n";
        return kUsage;
      }
      bytes = *b;
    }
    if (!weights.empty() && static_cast<int>(weights.size()) != devices) {
      err << "stepgen: error: --weights gives " << weights.size() << " weights for " << devices << " devices\n";
      return kUsage;
    }
    return plan(plan_spec, devices, weights, strategy, bytes, json, svg, out, err);
  }
  return kUsage;
}

}  // namespace stepgen::cli
