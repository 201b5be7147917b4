#pragma once
// The project version and the git commit the build was configured from (CMakeLists.txt sets
// both on version.cpp; the commit is "unknown" outside a git checkout).
#include <string>

namespace models {

std::string version();
std::string git_commit();

}  // namespace models
