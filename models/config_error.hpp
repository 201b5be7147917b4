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

// A design that does not fit (device memory, KV slots): a result with a status, not a bad input.
// A one-line message starting "infeasible: ..." with the numbers; the CLI still exits 2 where a
// command cannot go on without it, and `plan` lists the candidate as infeasible (its type, not
// its text, says so).
class InfeasibleError : public InputError {
 public:
  using InputError::InputError;
};

// "FILE: KEY: expected WHAT, got VALUE"
[[noreturn]] void throw_input_error(const std::string& file, const std::string& key,
                                    const std::string& expected, const std::string& got);

}  // namespace models
