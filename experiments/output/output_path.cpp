#include "experiments/output/output_path.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "models/config_error.hpp"

namespace experiments {

std::string resolve_output_path(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p(path);
  // The kernel's own bound on a chain of links (Linux follows at most 40).
  for (int hops = 0; hops <= 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec)) || ec) return p.string();
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) throw models::InputError(fmt::format("{}: cannot read the link {}: {}", path, p.string(), ec.message()));
    // A relative target is relative to the link's folder.
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  throw models::InputError(fmt::format("{}: too many levels of symbolic links (a loop?)", path));
}

}  // namespace experiments
