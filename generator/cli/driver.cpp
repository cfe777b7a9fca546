#include "cli/driver.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "checks/probe_check.hpp"
#include "checks/signature.hpp"
#include "cli/dump.hpp"
#include "diag/diagnostics.hpp"
#include "emit/emitter.hpp"
#include "emit/provenance.hpp"
#include "emit/regenerate.hpp"
#include "model/model.hpp"
#include "plan/plan.hpp"
#include "plan/plan_print.hpp"
#include "plan/program_plan.hpp"
#include "spec/reader.hpp"
#include "spec/schema.hpp"

namespace stepgen::cli {

namespace fs = std::filesystem;

namespace {

/// Reads, validates and reports one spec. Returns the model when there was no error; `source`,
/// when given, receives the spec's text (for messages that point into it later). With a
/// `signatures` checker, a valid model's kernels are also checked against their sources; with
/// `probe_notes`, they are probed on PoCL (check --probe), the probe's notes written there.
std::optional<model::Model> load(const std::string& path, std::ostream& err,
                                 std::string* source = nullptr,
                                 model::SignatureChecker* signatures = nullptr,
                                 std::ostream* probe_notes = nullptr) {
  std::string text, problem;
  if (!spec::load_spec_text(path, text, problem)) {
    err << path << ": error: the spec file " << problem << "\n";
    return std::nullopt;
  }
  if (source) *source = text;
  Diagnostics diags(path, std::move(text));
  std::optional<model::Model> model;
  if (std::optional<spec::SpecTree> tree = spec::read_spec(path, diags.source(), diags))
    model = model::build_model(*tree, diags);
  if (model && signatures && !diags.has_errors()) signatures->check(*model, diags);
  // --probe: the kernels run once on PoCL (checks/probe_check.hpp), notes on `probe_notes`.
  if (model && probe_notes && !diags.has_errors()) model::probe_check(*model, diags, *probe_notes);
  diags.print(err);
  if (diags.has_errors()) return std::nullopt;
  return model;
}

std::string targets_list() {
  std::string s;
  for (const std::string& n : emit::emitter_names()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

/// What `stepgen generate` was asked to do besides SPEC.
struct GenerateRequest {
  std::string target = "opencl";
  std::string out_dir;
  std::string templates;  ///< custom template folder, "" = built-in
  std::string depfile, depfile_target;
  std::string distribution;  ///< "none" or "mpi" overrides the spec's; "" = the spec's
  bool check = false;
  bool force = false;
  bool signatures = true;  ///< check the kernels' parameters against the spec's arguments
};

// A path as make and ninja read it in a depfile.
std::string depfile_escape(const std::string& path) {
  std::string s;
  for (char c : path) {
    if (c == ' ' || c == '#' || c == '\\') s += '\\';
    if (c == '$') s += '$';
    s += c;
  }
  return s;
}

void write_depfile(const std::string& file, const std::string& target,
                   const std::vector<std::string>& inputs) {
  std::string text = depfile_escape(target) + ":";
  for (const std::string& in : inputs)
    text += " \\\n  " + depfile_escape(fs::absolute(in).lexically_normal().generic_string());
  emit::write_file_if_changed(file, text + "\n");
}

int generate(const std::string& spec_path, GenerateRequest request, std::ostream& out,
             std::ostream& err) {
  std::unique_ptr<emit::Emitter> emitter = emit::make_emitter(request.target);
  if (!emitter) {
    err << "stepgen: error: no backend '" << request.target << "' (available: " << targets_list()
        << ")\n";
    return kUsage;
  }
  emit::GenerateOptions options;
  if (!request.templates.empty()) {
    try {
      options.templates = emit::TemplateSet::from_folder(request.templates);
    } catch (const emit::EmitError& e) {
      err << "stepgen: error: " << e.what() << "\n";
      return kUsage;
    }
  }
  model::SignatureChecker checker;
  std::string source;
  std::optional<model::Model> model =
      load(spec_path, err, &source, request.signatures ? &checker : nullptr);
  if (!model) return kSpecErrors;
  std::string& out_dir = request.out_dir;
  const std::string& target = request.target;
  const std::string& distribution = request.distribution;
  if (!distribution.empty()) options.mpi = distribution == "mpi";  // overrides the spec's
  if (out_dir.empty()) out_dir = model->name + "-" + target;
  options.output_dir = out_dir;
  emit::OutputSet files;
  try {
    files = emit::generate_files(*model, *emitter, options);
  } catch (const emit::LocatedEmitError& e) {  // at the part of the spec that causes it
    Diagnostics diags(spec_path, source);
    diags.error(e.loc, e.what());
    diags.print(err);
    return kSpecErrors;
  } catch (const std::exception& e) {
    err << spec_path << ": error: " << e.what() << "\n";
    return kSpecErrors;
  }
  // The folder is locked from planning to the last write, so that runs into one folder take
  // turns (a --check waits for a running generate rather than reading it half done).
  std::error_code ec;
  bool created = false;
  if (!request.check && fs::symlink_status(out_dir, ec).type() == fs::file_type::not_found) {
    created = fs::create_directories(out_dir, ec);
    if (ec) {
      err << "stepgen: error: cannot create folder '" << out_dir << "': " << ec.message() << "\n";
      return kSpecErrors;
    }
  }
  emit::OutputLock lock(out_dir, !request.check, [&] {
    err << "stepgen: waiting for another stepgen run on " << out_dir << " to finish\n";
  });
  emit::UpdatePlan plan;
  try {
    emit::UpdateOptions update;
    update.force = request.force;
    update.locked = lock.held() && !request.check;
    plan = emit::plan_update(files, out_dir, update);
    if (!request.check && !request.depfile.empty()) emit::check_replaceable(request.depfile);
  } catch (const emit::PathError& e) {
    err << e.what() << "\nstepgen: nothing was written (" << out_dir
        << " holds paths stepgen does not touch; see docs/editing.md)\n";
    if (created) fs::remove(out_dir, ec);  // the empty folder this run made
    return kSpecErrors;
  } catch (const std::exception& e) {
    err << spec_path << ": error: " << e.what() << "\n";
    if (created) fs::remove(out_dir, ec);
    return kSpecErrors;
  }
  if (request.check) {
    if (plan.up_to_date()) {
      out << "stepgen: " << out_dir << " is up to date\n";
      return kOk;
    }
    out << emit::describe_changes(plan);
    err << "stepgen: " << out_dir << " is not up to date with " << spec_path
        << " (run the same command without --check)\n";
    return kSpecErrors;
  }
  std::vector<std::string> changed;  // saved by the user while this run wrote
  try {
    changed = emit::apply_update(plan);
    if (!request.depfile.empty())
      write_depfile(request.depfile,
                    request.depfile_target.empty() ? out_dir : request.depfile_target,
                    emit::generation_inputs(*model, options));
  } catch (const emit::PathError& e) {
    err << e.what() << "\n";
    return kSpecErrors;
  } catch (const std::exception& e) {
    err << spec_path << ": error: " << e.what() << "\n";
    return kSpecErrors;
  }
  std::size_t written = 0, unchanged = 0;
  for (const emit::FileChange& c : plan.files) {
    if (std::find(changed.begin(), changed.end(), c.path) != changed.end()) {
      out << "stepgen: " << c.path
          << " changed while stepgen ran (saved meanwhile?): left as it is; regenerate to "
             "merge it\n";
      continue;
    }
    if (c.after && c.after != c.before) ++written;
    if (c.after && c.after == c.before) ++unchanged;
    std::string note = emit::change_note(c);
    if (!note.empty()) out << note << "\n";
  }
  for (const auto& [temp, name] : plan.saved)
    out << "stepgen: " << temp
        << ", left by an interrupted run, held bytes found nowhere else (a save that landed "
           "while it ran?): "
        << (plan.remove_leftovers ? "kept as " + name : "left as it is") << "\n";
  std::vector<std::string> conflicts = plan.conflicts();
  for (const std::string& c : changed)
    if (std::find(conflicts.begin(), conflicts.end(), c) == conflicts.end()) conflicts.push_back(c);
  out << "stepgen: " << request.target << " program '" << model->name << "' in " << out_dir << ": "
      << written << " file(s) written, " << unchanged << " unchanged";
  if (!conflicts.empty()) {
    out << "\n";
    err << "stepgen: " << conflicts.size() << " file(s) need your attention:\n";
    for (const std::string& c : conflicts) err << "  " << out_dir << "/" << c << "\n";
    err << "Resolve them and regenerate, or regenerate with --force (your files are saved as "
           ".orig).\n";
    return kConflicts;
  }
  out << "\n  build: cmake -S " << out_dir << " -B " << out_dir << "/build && cmake --build "
      << out_dir << "/build\n"
      << "  run:   " << out_dir << "/build/" << model->name << " --help\n";
  return kOk;
}

int export_templates(const std::string& dir, std::ostream& out, std::ostream& err) {
  try {
    std::vector<std::string> files = emit::export_templates(dir);
    for (const std::string& f : files) out << "  " << (fs::path(dir) / f).generic_string() << "\n";
    out << "stepgen: " << files.size()
        << " template(s) written; generate with them: stepgen generate SPEC "
        << "--templates " << dir << "\n";
  } catch (const emit::EmitError& e) {
    err << "stepgen: error: " << e.what() << "\n";
    return kSpecErrors;
  }
  return kOk;
}

std::optional<std::int64_t> parse_bytes(const std::string& text);

/// What `stepgen plan` was asked besides SPEC.
struct PlanRequest {
  std::string target = "opencl";  ///< whose capabilities the plan assumes
  int devices = 1;
  std::vector<double> weights;
  std::string strategy;
  std::string device_memory;  ///< as given ("" = the spec's)
  std::string out_of_core = "auto";
  std::string calibration;  ///< a calibration file ("" = none)
  std::string link;         ///< KEY=VALUE figures ("" = none)
  std::int64_t steps = 0;
  std::int64_t chunks = 0, steps_per_pass = 0;  ///< out of core, as the program's flags
  bool json = false;
  std::string svg;
  bool out_of_core_given = false;  ///< oocauto: --out-of-core given (auto: compare)
};

int plan(const std::string& spec_path, const PlanRequest& request, std::ostream& out,
         std::ostream& err) {
  std::unique_ptr<emit::Emitter> emitter = emit::make_emitter(request.target);
  if (!emitter) {
    err << "stepgen: error: no backend '" << request.target << "' (available: " << targets_list()
        << ")\n";
    return kUsage;
  }
  model::PlanOptions options;
  options.devices = request.devices;
  options.weights = request.weights;
  if (!request.strategy.empty()) options.strategy = rt::parse_strategy(request.strategy);
  if (!request.device_memory.empty()) {
    std::optional<std::int64_t> b = parse_bytes(request.device_memory);
    if (!b) {
      err << "stepgen: error: --device-memory expects a size such as 8GiB, got '"
          << request.device_memory << "'\n";
      return kUsage;
    }
    options.device_memory = *b;
  }
  options.out_of_core = request.out_of_core == "on"    ? model::PlanOptions::OutOfCore::kOn
                        : request.out_of_core == "off" ? model::PlanOptions::OutOfCore::kOff
                                                       : model::PlanOptions::OutOfCore::kAuto;
  options.steps = request.steps;
  options.chunks = request.chunks;
  options.steps_per_pass = request.steps_per_pass;
  options.compare = request.out_of_core_given && request.out_of_core == "auto";  // oocauto
  // The out-of-core model's figures: assumed, then a calibration file's, then --link's.
  try {
    if (!request.calibration.empty()) rt::read_link_figures(request.calibration, options.figures);
    if (!request.link.empty()) rt::apply_link_figures(request.link, "--link", options.figures);
  } catch (const rt::UsageError& e) {
    err << "stepgen: error: " << e.what() << "\n";
    return kUsage;
  }
  std::string source;
  std::optional<model::Model> model = load(spec_path, err, &source);
  if (!model) return kSpecErrors;
  const bool json = request.json;
  const std::string& svg = request.svg;
  const int devices = request.devices;
  try {
    model::ProgramOptions program_options;
    program_options.backend = emitter->caps();
    const model::ProgramPlan program = model::build_program_plan(*model, program_options);
    model::Plan p = model::make_plan(program, options);
    // Fewer parts than devices is not an error (a program uses what fits), but say so plainly.
    std::size_t used = p.partition.parts.size();
    if (used < static_cast<std::size_t>(devices))
      err << spec_path << ": warning: only " << used << " of " << devices
          << " devices can be used: " << p.partition.rationale << "\n";
    out << (json ? model::plan_json(program, p) : model::plan_text(program, p));
    if (!svg.empty()) emit::write_file_if_changed(svg, model::plan_svg(program, p));
  } catch (const model::LocatedPlanError& e) {  // at the part of the spec that causes it
    Diagnostics diags(spec_path, source);
    diags.error(e.loc, e.what());
    diags.print(err);
    return kSpecErrors;
  } catch (const rt::PlanError& e) {
    err << spec_path << ": error: " << e.what() << "\n";
    return kSpecErrors;
  } catch (const emit::PathError& e) {
    err << e.what() << "\n";
    return kSpecErrors;
  } catch (const emit::EmitError& e) {
    err << "stepgen: error: " << e.what() << "\n";
    return kSpecErrors;
  }
  return kOk;
}

// `stepgen schema`: the spec schema as JSON Schema (YAML) or XSD (XML), to `file` or `out`.
int write_schema(const std::string& format, const std::string& file, std::ostream& out,
                 std::ostream& err) {
  const std::string text = format == "xsd" ? spec::schema::xsd() : spec::schema::json_schema();
  if (file.empty()) {
    out << text;
    return kOk;
  }
  try {
    emit::write_file_if_changed(file, text);
  } catch (const emit::PathError& e) {
    err << e.what() << "\n";
    return kSpecErrors;
  } catch (const emit::EmitError& e) {
    err << "stepgen: error: " << e.what() << "\n";
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
  const std::pair<const char*, double> units[] = {{"", 1},          {"B", 1},
                                                  {"KiB", 1024.0},  {"MiB", 1 << 20},
                                                  {"GiB", 1 << 30}, {"TiB", 1099511627776.0},
                                                  {"KB", 1e3},      {"MB", 1e6},
                                                  {"GB", 1e9},      {"TB", 1e12}};
  for (const auto& [name, scale] : units)
    if (unit == name && value > 0) return static_cast<std::int64_t>(value * scale);
  return std::nullopt;
}

// The `plan` subcommand's options, into `spec` and `r`; `plan_ooc`: its --out-of-core option
// (whether it was given decides what auto means).
CLI::App* add_plan_command(CLI::App& app, std::string& spec, PlanRequest& r,
                           CLI::Option** plan_ooc) {
  CLI::App* pl = app.add_subcommand("plan", "Show how the grid is split, exchanged and chunked");
  pl->add_option("spec", spec, "Spec file (.xml, .yaml)")->required();
  pl->add_option("--target,-t", r.target, "The backend whose program is planned: " + targets_list())
      ->capture_default_str();
  pl->add_option("--devices,-n", r.devices, "Number of devices (1 to 1024)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  pl->add_option("--weights", r.weights,
                 "Relative device speeds, one per device, each from 1e-6 to 1e6")
      ->delimiter(',')
      ->check(CLI::Range(1e-6, 1e6));
  pl->add_option("--strategy", r.strategy,
                 "min-exchange, slabs or stepocl (default: slabs where the exchange can overlap "
                 "computation, "
                 "else min-exchange)")
      ->check(CLI::IsMember({"min-exchange", "slabs", "stepocl"}));
  pl->add_option(
      "--device-memory", r.device_memory,
      "Device memory budget (e.g. 8GiB): a part whose arrays exceed it is planned out of core");
  *plan_ooc =
      pl->add_option("--out-of-core", r.out_of_core,
                     "auto (when the arrays do not fit the budget; without one, when the spec has "
                     "<out_of_core>; given, also when predicted faster than in core), on "
                     "or off, as the program's flag")
          ->check(CLI::IsMember({"auto", "on", "off"}))
          ->capture_default_str();
  pl->add_option(
      "--calibration", r.calibration,
      "Out-of-core figures from this file: a program's saved output (its 'calibration:' line) or "
      "KEY=VALUE items");
  pl->add_option("--link", r.link,
                 "Out-of-core figures, e.g. h2d=25,d2h=25,bidir=40,kernel=0.01,d2d=1500 (GB/s; "
                 "kernel in ns per "
                 "cell-step); over the calibration file's; the rest are assumed");
  pl->add_option("--steps", r.steps, "Time steps the run is planned for (default: the spec's)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 62));
  pl->add_option("--ooc-chunks", r.chunks,
                 "Out of core, chunks per part, as the program's flag (default: the spec's, else "
                 "the model's)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
  pl->add_option("--steps-per-pass", r.steps_per_pass,
                 "Out of core, time steps per pass, as the program's flag (default: the spec's, "
                 "else the model's)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
  pl->add_flag("--json", r.json, "Machine-readable output");
  pl->add_option("--svg", r.svg, "Also draw the plan into this SVG file");

  return pl;
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  // `stepgen SPEC ...` means `stepgen generate SPEC ...`.
  std::vector<std::string> args(argv + 1, argv + argc);
  const std::vector<std::string> commands = {"check", "dump",   "generate",
                                             "plan",  "schema", "templates"};
  if (!args.empty() && args[0][0] != '-' &&
      std::find(commands.begin(), commands.end(), args[0]) == commands.end())
    args.insert(args.begin(), "generate");

  CLI::App app{"stepgen: multi-device stencil host programs from a spec and an unmodified kernel",
               "stepgen"};
  app.set_version_flag("--version", "stepgen " STEPGEN_VERSION);
  app.require_subcommand(1);
  app.footer(
      "A spec alone (stepgen SPEC) means: stepgen generate SPEC.\nExit codes: 0 success, 1 spec "
      "errors (generate --check: not up to date), 2 usage errors,\n"
      "3 files need your attention (merge conflicts; see docs/editing.md).");

  std::vector<std::string> check_specs;
  CLI::App* check =
      app.add_subcommand("check", "Read and validate specs; report every error and warning");
  check->add_option("specs", check_specs, "Spec files (.xml, .yaml)")->required();
  bool no_signatures = false;
  const char* no_signatures_help =
      "Do not check the kernels' parameters against the spec's arguments (OpenCL: built with "
      "PoCL; CUDA: parsed with libclang)";
  check->add_flag("--no-signature-check", no_signatures, no_signatures_help);
  bool check_probe = false;
  check->add_flag("--probe", check_probe,
                  "Also run each OpenCL kernel once on PoCL over a small box: a declared halo too "
                  "small is an error, the rim each kernel leaves unwritten is printed (what the "
                  "generated programs do at start-up)");

  std::string gen_spec;
  GenerateRequest request;
  CLI::App* gen = app.add_subcommand(
      "generate", "Generate a host program for a backend (hand edits are merged)");
  gen->add_option("spec", gen_spec, "Spec file (.xml, .yaml)")->required();
  gen->add_option("--target,-t", request.target, "Backend: " + targets_list())
      ->capture_default_str();
  gen->add_option("-o,--output", request.out_dir, "Output folder (default: NAME-TARGET)");
  gen->add_flag("--check", request.check,
                "Write nothing; exit 0 when the output folder is up to date, else 1 with a diff");
  gen->add_flag(
      "--force", request.force,
      "Replace edited, conflicting or deleted files (an edited file is saved as FILE.orig)");
  gen->add_option("--templates", request.templates,
                  "Use the templates in this folder (stepgen templates export)");
  gen->add_option("--depfile", request.depfile,
                  "Also write a make/ninja depfile of the inputs (spec, kernels, templates)");
  gen->add_option("--depfile-target", request.depfile_target,
                  "The target the depfile names (default: the output folder)");
  gen->get_option("--check")->excludes("--force");
  bool gen_no_signatures = false;
  gen->add_flag("--no-signature-check", gen_no_signatures, no_signatures_help);
  gen->add_option("--distribution", request.distribution,
                  "none or mpi (one rank per device); default: the spec's")
      ->check(CLI::IsMember({"none", "mpi"}));

  std::string plan_spec;
  PlanRequest plan_request;
  CLI::Option* plan_ooc = nullptr;
  CLI::App* pl = add_plan_command(app, plan_spec, plan_request, &plan_ooc);

  std::string export_dir;
  CLI::App* tpl = app.add_subcommand("templates", "Work with the code templates");
  tpl->require_subcommand(1);
  CLI::App* tpl_export =
      tpl->add_subcommand("export", "Write the built-in templates into a folder, for editing");
  tpl_export->add_option("dir", export_dir, "Folder to write them into (new files only)")
      ->required();

  std::string schema_format = "json", schema_file;
  CLI::App* sch = app.add_subcommand(
      "schema", "Write the spec schema: JSON Schema for YAML specs, XSD for XML (editors)");
  sch->add_option("--format,-f", schema_format, "json (YAML specs) or xsd (XML specs)")
      ->check(CLI::IsMember({"json", "xsd"}))
      ->capture_default_str();
  sch->add_option("-o,--output", schema_file, "Write it to this file (default: standard output)");

  std::string dump_spec;
  DumpRequest dump_request;
  CLI::App* dmp = app.add_subcommand(
      "dump", "Print what each stage makes of a spec: the read tree, the model, the plan");
  dmp->add_option("spec", dump_spec, "Spec file (.xml, .yaml)")->required();
  dmp->add_option("--stage,-s", dump_request.stage,
                  "spec (as read, with line:col), model (validated), plan (what the program "
                  "does), or all three in order")
      ->check(CLI::IsMember({"spec", "model", "plan", "all"}))
      ->capture_default_str();
  dmp->add_option("--target,-t", dump_request.target, "The backend planned for: " + targets_list())
      ->capture_default_str();
  dmp->add_option("--distribution", dump_request.distribution,
                  "none or mpi (one rank per device); default: the spec's")
      ->check(CLI::IsMember({"none", "mpi"}));

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
    model::SignatureChecker checker;  // each kernel source is read once for every spec
    for (const std::string& s : check_specs)
      if (!load(s, err, nullptr, no_signatures ? nullptr : &checker, check_probe ? &out : nullptr))
        status = kSpecErrors;
    return status;
  }
  if (gen->parsed()) {
    request.signatures = !gen_no_signatures;
    return generate(gen_spec, request, out, err);
  }
  if (tpl_export->parsed()) return export_templates(export_dir, out, err);
  if (dmp->parsed()) return dump(dump_spec, dump_request, out, err);
  if (sch->parsed()) return write_schema(schema_format, schema_file, out, err);
  if (pl->parsed()) {
    plan_request.out_of_core_given = plan_ooc->count() > 0;  // oocauto
    const PlanRequest& r = plan_request;
    if (!r.weights.empty() && static_cast<int>(r.weights.size()) != r.devices) {
      err << "stepgen: error: --weights gives " << r.weights.size() << " weights for " << r.devices
          << " devices\n";
      return kUsage;
    }
    return plan(plan_spec, r, out, err);
  }
  return kUsage;
}

}  // namespace stepgen::cli
