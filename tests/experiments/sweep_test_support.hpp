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

// A sweep output without the '# key: value' lines that lead it (sweep_fingerprint: what its rows
// were computed under): the header first, then the rows.
inline std::string body(const std::string& text) {
  std::size_t pos = 0;
  while (text.compare(pos, 2, "# ") == 0) {
    const auto eol = text.find('\n', pos);
    if (eol == std::string::npos) break;
    pos = eol + 1;
  }
  return text.substr(pos);
}

// Its leading fingerprint lines.
inline std::string fingerprint(const std::string& text) { return text.substr(0, text.size() - body(text).size()); }

}  // namespace sweep_test
