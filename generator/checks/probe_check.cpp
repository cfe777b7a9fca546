// `stepgen check --probe` (checks/probe_check.hpp): each OpenCL kernel built on PoCL and run by
// rt::probe_kernel over a small box, its arguments bound as the generated program binds them.
#include "checks/probe_check.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "model/overlap.hpp"
#include "plan/plan.hpp"
#include "stepgen/description/init.hpp"
#include "stepgen/exec/probe.hpp"

#ifdef STEPGEN_HAVE_OPENCL
#include "checks/opencl_device.hpp"
#endif

namespace stepgen::model {

#ifndef STEPGEN_HAVE_OPENCL

void probe_check(const Model& m, Diagnostics& diags, std::ostream&) {
  if (!m.kernels.empty())
    diags.warning(m.kernels.front().loc, "kernels not probed: stepgen was built without OpenCL");
}

#else

namespace {

/// Releases an OpenCL object at the end of a scope.
template <typename T, cl_int (*Release)(T)>
struct Held {
  T handle = nullptr;
  Held() = default;
  explicit Held(T h) : handle(h) {}
  Held(const Held&) = delete;
  Held& operator=(const Held&) = delete;
  ~Held() {
    if (handle) Release(handle);
  }
};
using ClProgram = Held<cl_program, clReleaseProgram>;
using ClKernel = Held<cl_kernel, clReleaseKernel>;
using ClMem = Held<cl_mem, clReleaseMemObject>;
using ClQueue = Held<cl_command_queue, clReleaseCommandQueue>;

/// An OpenCL call that failed, named, for the probe's warning.
struct ClFailure {
  std::string what;
};
/// What the probe found wrong with a kernel while running it (an error, not "not probed").
struct KernelFailure {
  std::string what;
};

void check(cl_int status, const std::string& call) {
  if (status != CL_SUCCESS) throw ClFailure{call + " failed (" + std::to_string(status) + ")"};
}

/// The probe's ProbeKernel for kernel `k`, as the generated programs' tables give it.
rt::ProbeKernel probe_kernel_of(const Model& m, const Kernel& k) {
  rt::ProbeKernel p;
  p.name = k.name.c_str();
  for (const KernelArg& a : k.args)
    if (a.kind == KernelArg::Kind::kArray)
      p.args.emplace_back(a.array,
                          a.access == Access::kRead    ? rt::ArgAccess::kRead
                          : a.access == Access::kWrite ? rt::ArgAccess::kWrite
                                                       : rt::ArgAccess::kReadWrite,
                          to_rt_halo(a.halo, m.dims));
  for (int d = 0; d < 3; ++d) p.follows[static_cast<std::size_t>(d)] = follows_extent(m, k, d);
  p.views = view_obstacle(m, k).empty();
  for (int d = 0; d < 3; ++d) p.shift[static_cast<std::size_t>(d)] = cells_per_item(m, k, d);
  p.uses_step = scalars_use_step(k);
  p.steps = m.steps;
  return p;
}

/// `fn` called with a value of the C++ type of `t` (the type tag only).
template <typename F>
void with_type(ScalarType t, F&& fn) {
  switch (t) {
    case ScalarType::kFloat:
      return fn(float{});
    case ScalarType::kDouble:
      return fn(double{});
    case ScalarType::kInt:
      return fn(std::int32_t{});
    case ScalarType::kUint:
      return fn(std::uint32_t{});
    case ScalarType::kLong:
      return fn(std::int64_t{});
    case ScalarType::kUlong:
      return fn(std::uint64_t{});
    case ScalarType::kShort:
      return fn(std::int16_t{});
    case ScalarType::kUshort:
      return fn(std::uint16_t{});
    case ScalarType::kChar:
      return fn(std::int8_t{});
    case ScalarType::kUchar:
      return fn(std::uint8_t{});
  }
}

/// The values of every table, as the generated program makes them (host_tables()): a kernel
/// may index a table by a computed index, so the probe runs it with the real values.
std::vector<std::vector<unsigned char> > table_values(const Model& m) {
  std::vector<std::vector<unsigned char> > out;
  for (const model::Table& t : m.tables) {
    const auto count = static_cast<std::size_t>(t.elements());
    std::vector<unsigned char> bytes(count * static_cast<std::size_t>(type_info(t.type).bytes));
    with_type(t.type, [&](auto tag) {
      using T = decltype(tag);
      T* v = reinterpret_cast<T*>(bytes.data());
      if (t.init.kind == Init::Kind::kRandom) {
        for (std::size_t i = 0; i < count; ++i) v[i] = rt::random_value<T>(t.init.seed, i);
      } else if (t.init.kind == Init::Kind::kValue) {
        const T x = type_info(t.type).is_float
                        ? static_cast<T>(std::strtod(t.init.value.c_str(), nullptr))
                        : static_cast<T>(std::strtoll(t.init.value.c_str(), nullptr, 10));
        std::fill(v, v + count, x);
      } else if (t.init.kind == Init::Kind::kCopy && t.init.source >= 0) {
        bytes = out[static_cast<std::size_t>(t.init.source)];
      } else if (t.init.kind == Init::Kind::kFile) {
        std::ifstream in(m.spec_dir.empty() || t.init.path.front() == '/'
                             ? t.init.path
                             : m.spec_dir + "/" + t.init.path,
                         std::ios::binary);
        in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      }
    });
    out.push_back(std::move(bytes));
  }
  return out;
}

/// Runs kernel `k` (built in `program`) once over `box` with `values`, as the generated program
/// would on a part whose buffer is `box`: scalars and global sizes from the spec's expressions.
/// With `guard`, each buffer is followed by the probe's guard zone (rt::probe_guard_planes of
/// `grid`), checked after the run: a kernel writing past its buffer is a KernelFailure naming it.
void run_once(const Model& m, const Kernel& k, cl_program program, cl_command_queue queue,
              std::vector<rt::HostArray>& values, const rt::Box& box,
              std::vector<std::vector<unsigned char> >& tables, const rt::Box* guard,
              std::int64_t step) {
  const OpenclDevice& dev = opencl_device();
  cl_int err = CL_SUCCESS;
  ClKernel kernel(clCreateKernel(program, k.name.c_str(), &err));
  check(err, "clCreateKernel(" + k.name + ")");
  std::vector<std::unique_ptr<ClMem> > buffers;
  std::vector<std::vector<unsigned char> > guards;
  for (std::size_t id = 0; id < values.size(); ++id) {
    const std::size_t size = values[id].bytes.size();
    std::size_t extra = 0;
    bool writes = false;
    for (const KernelArg& a : k.args)
      writes = writes || (a.kind == KernelArg::Kind::kArray && a.array == static_cast<int>(id) &&
                          a.access != Access::kRead);
    if (guard && writes) {
      const rt::Index planes = rt::probe_guard_planes(*guard, box, values[id].element_bytes);
      extra = static_cast<std::size_t>(planes * (box.volume() / box.extent(box.dims - 1))) *
              values[id].element_bytes;
      guards.emplace_back(extra);
      for (std::size_t j = 0; j < extra; ++j) guards.back()[j] = rt::probe_guard_byte(j);
    } else {
      guards.emplace_back();  // none after an array the kernel does not write
    }
    buffers.push_back(std::make_unique<ClMem>(
        clCreateBuffer(dev.context, CL_MEM_READ_WRITE, size + extra, nullptr, &err)));
    check(err, "clCreateBuffer(" + m.arrays[id].name + ")");
    check(clEnqueueWriteBuffer(queue, buffers.back()->handle, CL_TRUE, 0, size,
                               values[id].bytes.data(), 0, nullptr, nullptr),
          "clEnqueueWriteBuffer(" + m.arrays[id].name + ")");
    if (extra > 0)
      check(clEnqueueWriteBuffer(queue, buffers.back()->handle, CL_TRUE, size, extra,
                                 guards.back().data(), 0, nullptr, nullptr),
            "clEnqueueWriteBuffer(" + m.arrays[id].name + "'s guard)");
  }
  std::vector<std::unique_ptr<ClMem> > table_buffers;
  for (std::size_t id = 0; id < tables.size(); ++id) {
    table_buffers.push_back(
        std::make_unique<ClMem>(clCreateBuffer(dev.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                               tables[id].size(), tables[id].data(), &err)));
    check(err, "clCreateBuffer(table " + m.tables[id].name + ")");
  }
  EvalEnv env;
  env.extent = [&](int, int d) { return box.extent(d); };
  env.offset = [&](int, int d) { return box.lo[static_cast<std::size_t>(d)]; };
  env.global_extent = [&](int, int d) { return m.domain[static_cast<std::size_t>(d)]; };
  env.step = step;
  auto value_of = [&](const Expr& e) {
    std::string why;
    std::optional<Value> v = eval(e, m.constant_values, &env, &why);
    if (!v) throw ClFailure{"an expression of kernel '" + k.name + "' cannot be evaluated: " + why};
    return *v;
  };
  for (std::size_t i = 0; i < k.args.size(); ++i) {
    const KernelArg& a = k.args[i];
    const auto index = static_cast<cl_uint>(i);
    if (a.kind == KernelArg::Kind::kArray) {
      cl_mem mem = buffers[static_cast<std::size_t>(a.array)]->handle;
      check(clSetKernelArg(kernel.handle, index, sizeof mem, &mem), "clSetKernelArg");
      continue;
    }
    if (a.kind == KernelArg::Kind::kTable) {
      cl_mem mem = table_buffers[static_cast<std::size_t>(a.table)]->handle;
      check(clSetKernelArg(kernel.handle, index, sizeof mem, &mem), "clSetKernelArg");
      continue;
    }
    const TypeInfo& t = type_info(a.scalar_type);
    const Value v = value_of(a.value);
    unsigned char bytes[8] = {};
    if (t.is_float && t.bytes == 4) {
      const float f = static_cast<float>(v.as_double());
      std::memcpy(bytes, &f, 4);
    } else if (t.is_float) {
      const double f = v.as_double();
      std::memcpy(bytes, &f, 8);
    } else {
      const std::int64_t x = v.is_float ? static_cast<std::int64_t>(v.f) : v.i;
      std::memcpy(bytes, &x, 8);  // little-endian: the low bytes are the narrower type's
    }
    check(clSetKernelArg(kernel.handle, index, static_cast<std::size_t>(t.bytes), bytes),
          "clSetKernelArg");
  }
  std::vector<std::size_t> global, local;
  for (const Expr& g : k.global) global.push_back(static_cast<std::size_t>(value_of(g).i));
  for (std::int64_t l : k.local) local.push_back(static_cast<std::size_t>(l));
  for (std::size_t d = 0; d < global.size(); ++d)
    if (global[d] == 0) return;  // nothing to run
  check(clEnqueueNDRangeKernel(queue, kernel.handle, static_cast<cl_uint>(global.size()), nullptr,
                               global.data(), local.empty() ? nullptr : local.data(), 0, nullptr,
                               nullptr),
        "clEnqueueNDRangeKernel(" + k.name + ")");
  for (std::size_t id = 0; id < values.size(); ++id)
    check(clEnqueueReadBuffer(queue, buffers[id]->handle, CL_TRUE, 0, values[id].bytes.size(),
                              values[id].bytes.data(), 0, nullptr, nullptr),
          "clEnqueueReadBuffer(" + m.arrays[id].name + ")");
  for (std::size_t id = 0; id < guards.size(); ++id) {
    if (guards[id].empty()) continue;
    std::vector<unsigned char> after(guards[id].size());
    check(clEnqueueReadBuffer(queue, buffers[id]->handle, CL_TRUE, values[id].bytes.size(),
                              after.size(), after.data(), 0, nullptr, nullptr),
          "clEnqueueReadBuffer(" + m.arrays[id].name + "'s guard)");
    const std::string why =
        rt::probe_guard_error(k.name.c_str(), m.arrays[id].name, box, values[id].element_bytes,
                              after.data(), after.size());
    if (!why.empty()) throw KernelFailure{why};
  }
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

void probe_check(const Model& m, Diagnostics& diags, std::ostream& notes) {
  const OpenclDevice& dev = opencl_device();
  if (!dev.device) {
    if (!m.kernels.empty()) diags.warning(m.kernels.front().loc, "kernels not probed: " + dev.why);
    return;
  }
  std::vector<rt::ProbeElement> elements;
  for (const Array& a : m.arrays)
    elements.push_back(
        {a.name, static_cast<std::size_t>(type_info(a.type).bytes), type_info(a.type).is_float});
  const rt::Box grid = rt::Box::from_extent(m.dims, {m.domain[0], m.domain[1], m.domain[2]});
  // One program of every OpenCL kernel file, joined in the spec's order, each under a #line of
  // its name, as the generated program builds them: two files defining the same helper fail
  // here, at their own lines, not at the program's start-up naming PoCL's temporary file
  // (guarded by tests/e2e/joined_test.sh).
  std::shared_ptr<ClProgram> program;
  {
    std::string text = "#pragma OPENCL FP_CONTRACT OFF\n";
    std::vector<std::string> files;
    const Kernel* first = nullptr;
    for (const Kernel& k : m.kernels) {
      if (k.language != Language::kOpenCL ||
          std::find(files.begin(), files.end(), k.source) != files.end())
        continue;
      if (!first) first = &k;
      files.push_back(k.source);
      text += "#line 1 \"" + k.source + "\"\n" +
              read_text(m.spec_dir.empty() ? k.source : m.spec_dir + "/" + k.source) + "\n";
    }
    if (first) {
      const char* src = text.c_str();
      cl_int err = CL_SUCCESS;
      program = std::make_shared<ClProgram>(
          clCreateProgramWithSource(dev.context, 1, &src, nullptr, &err));
      if (err != CL_SUCCESS) {
        diags.warning(first->loc, "kernels not probed: clCreateProgramWithSource failed (" +
                                      std::to_string(err) + ")");
        return;
      }
      if (clBuildProgram(program->handle, 1, &dev.device, "", nullptr, nullptr) != CL_SUCCESS) {
        std::size_t size = 0;
        clGetProgramBuildInfo(program->handle, dev.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
        std::string log(size, '\0');
        if (size > 0)
          clGetProgramBuildInfo(program->handle, dev.device, CL_PROGRAM_BUILD_LOG, size, log.data(),
                                nullptr);
        while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
        // The first lines: the compiler's first errors, at the files' own lines.
        std::size_t cut = 0;
        for (int lines = 0; lines < 12 && cut != std::string::npos; ++lines)
          cut = log.find('\n', cut == 0 ? 0 : cut + 1);
        if (cut != std::string::npos) log = log.substr(0, cut) + "\n...";
        diags.error(first->loc,
                    "the OpenCL kernel files do not build as the program builds them "
                    "(one program, the files joined in the spec's order: " +
                        std::to_string(files.size()) + " file" + (files.size() == 1 ? "" : "s") +
                        "):\n" + log);
        return;
      }
    }
  }
  std::vector<std::vector<unsigned char> > tables = table_values(m);
  for (const Kernel& k : m.kernels) {
    if (k.language != Language::kOpenCL) {
      notes << "probe: kernel '" << k.name
            << "' not probed at check time (CUDA: the program probes it at start-up)\n";
      continue;
    }
    try {
      cl_int err = CL_SUCCESS;
      ClQueue queue(clCreateCommandQueue(dev.context, dev.device, 0, &err));
      check(err, "clCreateCommandQueue");
      const rt::ProbeKernel pk = probe_kernel_of(m, k);
      bool guarded = false;  // the kernel's first run has guard zones after its buffers
      const rt::KernelProbe p = rt::probe_kernel(
          pk, grid, elements,
          [&](std::vector<rt::HostArray>& values, const rt::Box& box, std::int64_t step) {
            run_once(m, k, program->handle, queue.handle, values, box, tables,
                     guarded ? nullptr : &grid, step);
            guarded = true;
          });
      // At the first <arg> that reads the array (its halo), else at the kernel.
      auto at = [&k](const std::vector<int>& arrays, std::size_t i) {
        if (i < arrays.size())
          for (const KernelArg& a : k.args)
            if (a.kind == KernelArg::Kind::kArray && a.array == arrays[i] &&
                a.access != Access::kWrite)
              return a.loc;
        return k.loc;
      };
      for (std::size_t i = 0; i < p.errors.size(); ++i)
        diags.error(at(p.error_arrays, i), p.errors[i]);
      for (std::size_t i = 0; i < p.warnings.size(); ++i)
        diags.warning(at(p.warning_arrays, i), p.warnings[i]);
      if (!p.probed) {
        notes << "probe: kernel '" << k.name << "' not probed: " << p.why << "\n";
        continue;
      }
      notes << "probe: kernel '" << k.name << "' on " << p.box.str() << " (" << dev.name
            << "): rim "
            << (p.wrote && p.rim_known ? rt::probe_sides(m.dims, p.rim_lo, p.rim_hi) : "-")
            << (p.why.empty() ? "" : "; no views: " + p.why) << "\n";
      if (p.steps.size() > 1 || p.ints_zero)
        notes << "probe: kernel '" << k.name << "' probed"
              << (p.ints_zero ? " with its integer arrays at 0" : "") << " at " << p.steps.size()
              << " step" << (p.steps.size() == 1 ? "" : "s") << " (" << rt::probe_step_list(p.steps)
              << "), " << p.runs << " runs\n";
    } catch (const ClFailure& f) {
      diags.warning(k.loc, "kernel '" + k.name + "' not probed: " + f.what);
    } catch (const KernelFailure& f) {
      diags.error(k.loc, f.what);
    }
  }
}

#endif

}  // namespace stepgen::model
