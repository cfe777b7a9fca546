#include "emit/emitter.hpp"

namespace stepgen::emit {

std::unique_ptr<Emitter> make_opencl_emitter();

std::unique_ptr<Emitter> make_emitter(const std::string& target) {
  if (target == "opencl") return make_opencl_emitter();
  return nullptr;
}

std::vector<std::string> emitter_names() { return {"opencl"}; }

}  // namespace stepgen::emit
