#include "models/version.hpp"

#ifndef SPECDSE_VERSION
#define SPECDSE_VERSION "unknown"
#endif
#ifndef SPECDSE_GIT_COMMIT
#define SPECDSE_GIT_COMMIT "unknown"
#endif

namespace models {

std::string version() { return SPECDSE_VERSION; }
std::string git_commit() { return SPECDSE_GIT_COMMIT; }

}  // namespace models
