#pragma once
// Files for the sweep tests: a fresh temporary folder per test (never the source tree), and
// whole-file write and read.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace sweep_test {

namespace fs = std::filesystem;

inline fs::path temp_dir(const std::string& name) {
  auto d = fs::temp_directory_path() / ("specdse_test_sweep_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

inline std::string write(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
  return p.string();
}

inline std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace sweep_test
