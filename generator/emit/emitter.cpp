#include "emit/emitter.hpp"

namespace stepgen::emit {

std::unique_ptr<Emitter> make_opencl_emitter();
std::unique_ptr<Emitter> make_cuda_emitter();

std::unique_ptr<Emitter> make_emitter(const std::string& target) {
  if (target == "opencl") return make_opencl_emitter();
  if (target == "cuda") return make_cuda_emitter();
  return nullptr;
}

std::vector<std::string> emitter_names() {
  return {"cuda", "opencl"};
}

}  // namespace stepgen::emit
