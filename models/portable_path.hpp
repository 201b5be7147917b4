#pragma once
// Paths as a shared report names them: never an absolute path of this machine.
#include <string>

namespace models {

// Whether `path` lies inside `root` (both made canonical where they exist); `out` then holds the
// relative path with '/' separators.
bool relative_inside(const std::string& path, const std::string& root, std::string& out);

// `path` relative to the project root when it lies in it, else relative to `config_dir` as
// "<config_dir>/..." when it lies there, else its file name only (never an absolute path).
std::string portable_path(const std::string& path, const std::string& config_dir);

}  // namespace models
