// The time loop (steps, launches, swaps, rotations), how arrays are used, and the run settings
// (devices, exchange, out_of_core, distribution).

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "checks/validate.hpp"
#include "checks/validate_util.hpp"
#include "model/groups.hpp"

namespace stepgen::model::detail {

namespace {

std::vector<std::string> names_of(const std::vector<Kernel>& kernels) {
  std::vector<std::string> names;
  for (const Kernel& k : kernels) names.push_back(k.name);
  return names;
}

struct Word {
  std::string text;
  std::size_t pos;
};

// Splits at spaces and commas, keeping each word's offset.
std::vector<Word> words(const std::string& s) {
  std::vector<Word> out;
  std::size_t i = 0;
  auto sep = [](char c) { return c == ',' || std::isspace(static_cast<unsigned char>(c)); };
  while (i < s.size()) {
    while (i < s.size() && sep(s[i])) ++i;
    std::size_t b = i;
    while (i < s.size() && !sep(s[i])) ++i;
    if (i > b) out.push_back({s.substr(b, i - b), b});
  }
  return out;
}

}  // namespace

void Builder::build_loop() {
  const spec::Iterate& it = tree_.iterate;
  if (!it.present) {
    form_error(tree_.loc, "missing iterate: expected the time loop, with its steps and body");
    return;
  }
  if (require(it.steps, "missing steps: expected the number of time steps")) {
    if (std::optional<std::int64_t> v = constant_int(it.steps, "steps", 1)) m_.steps = *v;
  }
  bool any_launch = false;
  for (const spec::Step& s : it.body) {
    Step step;
    step.kind = s.kind == spec::Step::Kind::kLaunch ? Step::Kind::kLaunch
                : s.kind == spec::Step::Kind::kSwap ? Step::Kind::kSwap
                                                    : Step::Kind::kRotate;
    step.loc = s.loc;
    if (s.kind == spec::Step::Kind::kInject || s.kind == spec::Step::Kind::kRecord) {
      build_trace_step(s, step);  // validate_traces.cpp
      m_.body.push_back(step);
      continue;
    }
    if (s.kind == spec::Step::Kind::kLaunch) {
      any_launch = true;
      if (require(s.kernel, "launch names no kernel")) {
        step.kernel = m_.find_kernel(s.kernel.value);
        if (step.kernel < 0) {
          diags_.error(s.kernel.loc, "kernel " + quote(s.kernel.value) + " is not declared" +
                                         did_you_mean(s.kernel.value, names_of(m_.kernels)));
        } else {
          KernelState& k = kernel_state_[static_cast<std::size_t>(step.kernel)];
          k.launched = true;
          if (!k.writes && k.accesses_known)
            diags_.error(s.kernel.loc,
                         "kernel " + quote(s.kernel.value) +
                             " writes no array: nothing to compute (an array argument "
                             "needs access write or readwrite)");
        }
      }
      m_.body.push_back(step);
      continue;
    }

    bool swap = s.kind == spec::Step::Kind::kSwap;
    std::string verb = swap ? "swap" : "rotate";
    if (swap && s.arrays.size() != 2) {
      form_error(s.loc, "swap takes 2 arrays, got " + std::to_string(s.arrays.size()));
    } else if (!swap && s.arrays.size() < 2) {
      form_error(s.loc, "rotate takes at least 2 arrays, got " + std::to_string(s.arrays.size()));
    }
    int first = -1;
    for (const spec::Text& name : s.arrays) {
      int a = m_.find_array(name.value);
      if (a < 0) {
        std::string table = table_hint(name.value, swap ? "swapped" : "rotated");
        diags_.error(name.loc, !table.empty() ? table
                                              : "array " + quote(name.value) + " is not declared" +
                                                    did_you_mean(name.value, array_names_));
        continue;
      }
      if (std::find(step.arrays.begin(), step.arrays.end(), a) != step.arrays.end()) {
        diags_.error(name.loc, swap ? "swap of array " + quote(name.value) + " with itself"
                                    : "array " + quote(name.value) + " appears twice in rotate");
        continue;
      }
      step.arrays.push_back(a);
      if (first < 0) {
        first = a;
        continue;
      }
      const Array& x = m_.arrays[static_cast<std::size_t>(first)];
      const Array& y = m_.arrays[static_cast<std::size_t>(a)];
      const ArrayState& xs = array_state_[static_cast<std::size_t>(first)];
      const ArrayState& ys = array_state_[static_cast<std::size_t>(a)];
      if (xs.type_ok && ys.type_ok && x.type != y.type) {
        diags_.error(name.loc, "cannot " + verb + " " + quote(x.name) + " (" +
                                   type_info(x.type).name + ") with " + quote(y.name) + " (" +
                                   type_info(y.type).name + "): their types differ");
      } else if (xs.size_ok && ys.size_ok && (x.dims != y.dims || x.size != y.size)) {
        diags_.error(name.loc, "cannot " + verb + " " + quote(x.name) + " (" + size_string(first) +
                                   ") with " + quote(y.name) + " (" + size_string(a) +
                                   "): their sizes differ");
      }
    }
    m_.body.push_back(step);
  }
  if (!any_launch)
    form_error(it.loc, "the time loop launches no kernel: expected at least one launch");
  check_trace_steps();  // validate_traces.cpp
}

void Builder::build_usage() {
  std::size_t n = m_.arrays.size();
  // Flags and halos first; the warnings below only for a spec without errors, since a part
  // dropped for an error would make them wrong.
  std::vector<bool> used(n, false);
  for (std::size_t k = 0; k < m_.kernels.size(); ++k) {
    for (const KernelArg& a : m_.kernels[k].args) {
      if (a.kind != KernelArg::Kind::kArray || a.array < 0) continue;
      std::size_t i = static_cast<std::size_t>(a.array);
      used[i] = true;
      if (!kernel_state_[k].launched) continue;
      Array& arr = m_.arrays[i];
      if (a.access != Access::kWrite) {
        arr.read = true;
        merge_halo(arr.read_halo, a.halo);
      }
      if (a.access != Access::kRead) arr.written = true;
    }
  }

  // Swapped and rotated arrays trade buffers, so the warnings judge a group as a whole (what B
  // is written with, A reads after a swap). The flags and halos stay per array, as model.hpp
  // defines them.
  if (diags_.has_errors()) return;
  for (std::size_t k = 0; k < m_.kernels.size(); ++k)
    if (!kernel_state_[k].launched)
      diags_.warning(m_.kernels[k].loc,
                     "kernel " + quote(m_.kernels[k].name) + " is never launched");
  for (const Step& s : m_.body)
    for (int a : s.arrays) used[static_cast<std::size_t>(a)] = true;
  auto group_has = [&](std::size_t i, bool Array::*flag) {
    for (int a : array_group(m_, static_cast<int>(i)))
      if (m_.arrays[static_cast<std::size_t>(a)].*flag) return true;
    return false;
  };

  for (std::size_t i = 0; i < n; ++i) {
    const Array& arr = m_.arrays[i];
    if (!used[i] && !array_state_[i].copy_source) {
      diags_.warning(arr.loc, "array " + quote(arr.name) + " is never used by a kernel");
    } else if (group_has(i, &Array::written) && !group_has(i, &Array::read) && !arr.save) {
      diags_.warning(arr.loc,
                     "array " + quote(arr.name) +
                         " is written but never read, and save is false: its values are lost");
    } else if (arr.read && !group_has(i, &Array::written) && arr.init.kind == Init::Kind::kNone) {
      diags_.warning(
          arr.loc,
          "array " + quote(arr.name) +
              " is read but never written, and its init is none: its values are undefined");
    }
  }
}

void Builder::build_settings() {
  const spec::Devices& dev = tree_.devices;
  if (dev.present) {
    if (dev.type.present) {
      const std::string& t = dev.type.value;
      if (t == "all")
        m_.devices.type = Devices::Type::kAll;
      else if (t == "gpu")
        m_.devices.type = Devices::Type::kGpu;
      else if (t == "cpu")
        m_.devices.type = Devices::Type::kCpu;
      else {
        std::string hint = did_you_mean(t, {"all", "gpu", "cpu"});
        diags_.error(dev.type.loc, "unknown device type " + quote(t) +
                                       (hint.empty() ? "; expected all, gpu or cpu" : hint));
      }
    }
    bool count_ok = true;
    if (dev.count.present) {
      std::optional<std::int64_t> c = plain_int(dev.count, "device count", 1, {"all"});
      if (c && *c > 1024) {
        diags_.error(dev.count.loc,
                     "device count " + std::to_string(*c) + " is too large (at most 1024)");
        c.reset();
      }
      if (c) m_.devices.count = static_cast<int>(*c);
      count_ok = c.has_value();
    }
    if (dev.weights.present) {
      std::vector<Word> ws = words(dev.weights.value);
      const LineIndex lines(dev.weights.value);
      bool ok = true;
      for (const Word& w : ws) {
        double v = is_decimal_number(w.text) ? std::strtod(w.text.c_str(), nullptr) : 0.0;
        if (!std::isfinite(v) || v <= 0) {
          diags_.error(lines.loc_from(dev.weights.loc, w.pos),
                       "weight must be a positive number, got " + quote(w.text));
          ok = false;
        } else if (v < 1e-6 || v > 1e6) {  // the program's --weights range (program.hpp)
          diags_.error(lines.loc_from(dev.weights.loc, w.pos),
                       "weight " + quote(w.text) +
                           " is out of range: relative device speeds go from 1e-6 to 1e6 (as "
                           "the program's --weights)");
          ok = false;
        }
        m_.devices.weights.push_back(v);
      }
      if (ws.empty()) {
        diags_.error(dev.weights.loc, "weights are empty: expected one positive number per device");
      } else if (ok && count_ok && m_.devices.count > 0 &&
                 ws.size() != static_cast<std::size_t>(m_.devices.count)) {
        diags_.error(dev.weights.loc, std::to_string(ws.size()) +
                                          (ws.size() == 1 ? " weight" : " weights") +
                                          " given for " + std::to_string(m_.devices.count) +
                                          (m_.devices.count == 1 ? " device" : " devices") +
                                          ": expected one weight per device");
      }
    }
  }

  const spec::Exchange& ex = tree_.exchange;
  if (ex.present &&
      require(ex.every, "missing every: expected the number of steps between exchanges")) {
    // A constant expression, as an output's every (guarded by the doctest "exchange every,
    // chunks and steps per pass take constant expressions").
    std::optional<std::int64_t> v = constant_int(ex.every, "exchange every", 1);
    if (v) m_.exchange_every = static_cast<int>(std::min<std::int64_t>(*v, 1 << 30));
  }

  const spec::OutOfCore& ooc = tree_.out_of_core;
  if (ooc.present) {
    m_.out_of_core.enabled = true;
    m_.out_of_core.loc = ooc.loc;
    if (ooc.chunks.present)
      if (std::optional<std::int64_t> v = ooc.chunks.value == "auto"
                                              ? std::optional<std::int64_t>(0)
                                              : constant_int(ooc.chunks, "chunks (or 'auto')", 1))
        m_.out_of_core.chunks = static_cast<int>(std::min<std::int64_t>(*v, 1 << 30));
    if (ooc.steps_per_pass.present)
      if (std::optional<std::int64_t> v =
              ooc.steps_per_pass.value == "auto"
                  ? std::optional<std::int64_t>(0)
                  : constant_int(ooc.steps_per_pass, "steps_per_pass (or 'auto')", 1))
        m_.out_of_core.steps_per_pass = static_cast<int>(std::min<std::int64_t>(*v, 1 << 30));
    if (ooc.region_sharing.present)
      if (std::optional<bool> v = boolean(ooc.region_sharing, "region_sharing"))
        m_.out_of_core.region_sharing = *v;
    if (ooc.device_memory.present) {
      if (std::optional<std::int64_t> v = memory_size(ooc.device_memory))
        m_.out_of_core.device_memory = *v;
    }
  }

  const spec::Distribution& dist = tree_.distribution;
  if (dist.present && require(dist.engine, "missing engine: expected none or mpi")) {
    const std::string& e = dist.engine.value;
    if (e == "mpi")
      m_.mpi = true;
    else if (e != "none") {
      std::string hint = did_you_mean(e, {"none", "mpi"});
      diags_.error(dist.engine.loc, "unknown distribution engine " + quote(e) +
                                        (hint.empty() ? "; expected none or mpi" : hint));
    }
  }
}

std::optional<std::int64_t> Builder::memory_size(const spec::Text& text) {
  const std::string& s = text.value;
  if (s == "auto") return 0;
  std::int64_t count = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), count);
  std::size_t i = static_cast<std::size_t>(end - s.data());
  if (ec == std::errc::result_out_of_range) {
    diags_.error(text.loc, "device_memory " + quote(s) + " is too large");
    return std::nullopt;
  }
  if (ec != std::errc() || s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) {
    diags_.error(
        text.loc,
        "device_memory must be 'auto' or a size such as 8GiB, 512MiB or 1000000 (bytes), got " +
            quote(s));
    return std::nullopt;
  }
  while (i < s.size() && s[i] == ' ') ++i;
  std::string unit = s.substr(i);
  static const std::vector<std::pair<std::string, std::int64_t>> kUnits = {
      {"", 1},
      {"B", 1},
      {"KiB", std::int64_t{1} << 10},
      {"MiB", std::int64_t{1} << 20},
      {"GiB", std::int64_t{1} << 30},
      {"TiB", std::int64_t{1} << 40},
      {"KB", 1000},
      {"MB", 1000 * 1000},
      {"GB", 1000 * 1000 * 1000},
      {"TB", std::int64_t{1000} * 1000 * 1000 * 1000}};
  std::vector<std::string> names;
  for (const auto& [name, factor] : kUnits) {
    if (!name.empty()) names.push_back(name);
    if (unit != name) continue;
    std::int64_t bytes = 0;
    if (__builtin_mul_overflow(count, factor, &bytes)) {
      diags_.error(text.loc, "device_memory " + quote(s) + " is too large");
      return std::nullopt;
    }
    if (bytes == 0) {
      diags_.error(text.loc, "device_memory must be positive, got " + quote(s));
      return std::nullopt;
    }
    return bytes;
  }
  std::string hint = did_you_mean(unit, names);
  diags_.error(loc_in(text, i),
               "unknown unit " + quote(unit) + " in device_memory" +
                   (hint.empty() ? "; expected B, KiB, MiB, GiB, TiB, KB, MB, GB or TB" : hint));
  return std::nullopt;
}

}  // namespace stepgen::model::detail
