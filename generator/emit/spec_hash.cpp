#include "emit/spec_hash.hpp"

#include <cstdio>
#include <sstream>

#include "emit/output.hpp"
#include "stepgen/plan/checksum.hpp"

namespace stepgen::emit {

namespace {

using model::Expr;
using model::Model;

// An expression as text: constants by name (their values are part of the text apart), run-time
// terms by what they name.
std::string expr_text(const Model& m, const Expr& e) {
  return model::to_cpp(e, [&m](const Expr& leaf) -> std::string {
    switch (leaf.kind) {
      case Expr::Kind::kConstant:
        return "constant:" + leaf.text;
      case Expr::Kind::kStep:
        return "step";
      case Expr::Kind::kArrayDim:
        return leaf.text + "(" + m.arrays[static_cast<std::size_t>(leaf.array)].name + "," +
               std::to_string(leaf.dim) + ")";
      case Expr::Kind::kCall: {
        std::string s = leaf.text + "(";
        for (std::size_t i = 0; i < leaf.args.size(); ++i)
          s += (i ? "," : "") + expr_text(m, leaf.args[i]);
        return s + ")";
      }
      default:
        throw EmitError("internal error: unexpected expression leaf '" + leaf.text + "'");
    }
  });
}

// A double exactly (hex float): two values print alike only when they are equal.
std::string exact(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

void init_text(std::ostringstream& text, const model::Init& init) {
  text << " init " << static_cast<int>(init.kind) << " " << init.seed << " " << init.value << " "
       << init.source << " " << init.path;
}

void kernels_text(std::ostringstream& text, const Model& m) {
  for (const model::Kernel& k : m.kernels) {
    text << "kernel " << k.name << " " << k.source << " " << k.cuda_source << "\n";
    for (const model::KernelArg& a : k.args) {
      text << "  arg " << static_cast<int>(a.kind) << " " << a.array << " " << a.table << " "
           << static_cast<int>(a.access) << " halo";
      for (const auto& pt : a.halo.points) text << " " << pt[0] << "," << pt[1] << "," << pt[2];
      for (std::size_t d = 0; d < 3; ++d) text << " " << a.halo.lo[d] << ":" << a.halo.hi[d];
      if (a.kind == model::KernelArg::Kind::kScalar)
        text << " " << model::type_info(a.scalar_type).name << " " << expr_text(m, a.value);
      text << "\n";
    }
    for (const Expr& g : k.global) text << "  global " << expr_text(m, g) << "\n";
    for (std::int64_t l : k.local) text << "  local " << l << "\n";
  }
}

void body_text(std::ostringstream& text, const Model& m) {
  for (const model::Step& st : m.body) {
    text << "step " << static_cast<int>(st.kind) << " " << st.kernel;
    for (int a : st.arrays) text << " " << a;
    for (const auto& pt : st.points) text << " @" << pt[0] << "," << pt[1] << "," << pt[2];
    if (st.kind == model::Step::Kind::kInject) {
      if (st.value_file.empty()) {
        text << " value " << expr_text(m, st.value);
      } else {
        // The values are read at generation time: they, not the file's name, are the program's.
        text << " values " << st.values.size();
        for (double v : st.values) text << " " << exact(v);
      }
    }
    text << "\n";
  }
}

}  // namespace

std::string spec_identity_text(const Model& m) {
  std::ostringstream text;
  text << "stepgen spec 2\n";
  for (const model::Constant& c : m.constants)
    text << "constant " << c.name << " " << c.text << "\n";
  for (const model::Array& a : m.arrays) {
    text << "array " << a.name << " " << model::type_info(a.type).name << " " << a.size[0] << " "
         << a.size[1] << " " << a.size[2];
    init_text(text, a.init);
    text << " save " << a.save << "\n";
  }
  for (const model::Table& t : m.tables) {
    text << "table " << t.name << " " << model::type_info(t.type).name << " " << t.size[0] << " "
         << t.size[1] << " " << t.size[2];
    init_text(text, t.init);
    text << "\n";
  }
  kernels_text(text, m);
  body_text(text, m);
  text << "exchange_every " << m.exchange_every << "\n";
  for (const model::Boundary& b : m.boundaries) {
    text << "boundary " << static_cast<int>(b.kind) << " " << b.value << " dims " << b.dims[0]
         << b.dims[1] << b.dims[2] << " arrays";
    for (int a : b.arrays) text << " " << a;
    text << "\n";
  }
  // A reduction's value is carried in the checkpoint and decides where `until` stops the run.
  for (const model::Reduction& r : m.reductions)
    text << "reduce " << r.name << " " << r.op << " " << r.array << " " << r.minus << " every "
         << r.every << " at " << r.position << "\n";
  if (m.until.present) text << "until " << m.until.cpp << "\n";
  return text.str();
}

std::string spec_hash(const Model& m) {
  const std::string canonical = spec_identity_text(m);
  char hash[32];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(rt::io::crc64(canonical.data(), canonical.size())));
  return hash;
}

}  // namespace stepgen::emit
