#pragma once
// Shared by the fuzz targets (tests/fuzz/fuzz_*.cpp). A target feeds its input to one parser
// and catches only models::InputError, the project's one error type for bad input: any other
// exception escapes (libFuzzer and the replay runner both report it), as do crashes, hangs and
// sanitizer reports.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "models/config_error.hpp"

namespace fuzz {

inline std::string as_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// The config and CSV loaders take paths, so an input goes through a scratch file: one per
// process (named after its id), under $TMPDIR or /tmp, rewritten for every input and removed
// at exit. `suffix` keeps the extension a loader may expect.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& suffix) {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/specdse_fuzz_" + std::to_string(::getpid()) + suffix;
  }
  ~ScratchFile() { std::remove(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  const std::string& write(const std::uint8_t* data, std::size_t size) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    return path_;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs `parse`; a models::InputError is the expected answer to bad input.
template <class Parse>
int only_input_errors(Parse&& parse) {
  try {
    parse();
  } catch (const models::InputError&) {
  }
  return 0;
}

}  // namespace fuzz
