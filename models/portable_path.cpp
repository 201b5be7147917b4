#include "models/portable_path.hpp"

#include <filesystem>

namespace fs = std::filesystem;

namespace models {

bool relative_inside(const std::string& path, const std::string& root, std::string& out) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(path, ec);
  if (ec) return false;
  const fs::path r = fs::weakly_canonical(root, ec);
  if (ec) return false;
  const fs::path rel = p.lexically_relative(r);
  if (rel.empty() || *rel.begin() == "..") return false;
  out = rel.generic_string();
  return true;
}

std::string portable_path(const std::string& path, const std::string& config_dir) {
  std::string rel;
  if (relative_inside(path, SPECDSE_SOURCE_DIR, rel)) return rel;
  if (relative_inside(path, config_dir, rel)) return "<config_dir>/" + rel;
  return fs::path(path).filename().string();
}

}  // namespace models
