#include <iostream>

#include "cli/driver.hpp"

int main(int argc, char** argv) {
  return stepgen::cli::run(argc, argv, std::cout, std::cerr);
}
