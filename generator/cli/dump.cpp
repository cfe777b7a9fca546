// `stepgen dump` (cli/dump.hpp).
#include "cli/dump.hpp"

#include <ostream>

#include "cli/driver.hpp"
#include "emit/emitter.hpp"
#include "plan/dump.hpp"
#include "plan/plan.hpp"
#include "spec/reader.hpp"
#include "spec/spec_dump.hpp"

namespace stepgen::cli {

int dump(const std::string& spec_path, const DumpRequest& request, std::ostream& out,
         std::ostream& err) {
  std::unique_ptr<emit::Emitter> emitter = emit::make_emitter(request.target);
  if (!emitter) {
    err << "stepgen: error: no backend '" << request.target << "'\n";
    return kUsage;
  }
  std::string text, problem;
  if (!spec::load_spec_text(spec_path, text, problem)) {
    err << spec_path << ": error: the spec file " << problem << "\n";
    return kSpecErrors;
  }
  Diagnostics diags(spec_path, std::move(text));
  const bool all = request.stage == "all";
  auto heading = [&](const std::string& what) {
    if (all) out << (what == "spec" ? "" : "\n") << "== " << what << " ==\n";
  };
  auto finish = [&]() {
    diags.print(err);
    return diags.has_errors() ? kSpecErrors : kOk;
  };
  std::optional<spec::SpecTree> tree = spec::read_spec(spec_path, diags.source(), diags);
  if (!tree) return finish();
  if (all || request.stage == "spec") {
    heading("spec");
    out << spec::dump_spec(*tree);
  }
  if (request.stage == "spec" || diags.has_errors()) return finish();

  std::optional<model::Model> model = model::build_model(*tree, diags);
  if (!model || diags.has_errors()) return finish();
  if (all || request.stage == "model") {
    heading("model");
    out << model::dump_model(*model);
  }
  if (request.stage == "model") return finish();

  try {
    model::ProgramOptions options;
    options.backend = emitter->caps();
    if (!request.distribution.empty()) options.mpi = request.distribution == "mpi";
    const model::ProgramPlan plan = model::build_program_plan(*model, options);
    heading("plan (" + request.target + ")");
    out << model::dump_plan(plan);
  } catch (const model::LocatedPlanError& e) {
    diags.error(e.loc, e.what());
  } catch (const rt::PlanError& e) {
    diags.error({}, e.what());
  }
  return finish();
}

}  // namespace stepgen::cli
