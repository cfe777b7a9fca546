#pragma once
/// \file
/// `stepgen dump --stage spec`: the SpecTree as the reader made it, every value as text with its
/// line:col ("-" for a value the spec does not give).

#include <string>

#include "spec/spec_tree.hpp"

namespace stepgen::spec {

std::string dump_spec(const SpecTree& tree);

}  // namespace stepgen::spec
