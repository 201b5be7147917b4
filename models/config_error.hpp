#pragma once
// One error type for every bad input (config file, CLI value, data file). Its message is a
// single line naming the file, the key and what was expected; the CLI prints it and exits 2.
#include <stdexcept>
#include <string>

namespace models {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "FILE: KEY: expected WHAT, got VALUE"
[[noreturn]] void throw_input_error(const std::string& file, const std::string& key,
                                    const std::string& expected, const std::string& got);

}  // namespace models
