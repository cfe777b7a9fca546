// libFuzzer target: read_yaml on arbitrary bytes.
#include "fuzz_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return stepgen::fuzz::run_one(&stepgen::spec::read_yaml, "fuzz.yaml", data, size);
}
