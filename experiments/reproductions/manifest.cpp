#include "experiments/reproductions/manifest.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "experiments/cli/version.hpp"

namespace fs = std::filesystem;

namespace experiments {

std::string yaml_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      out += fmt::format("\\u{:04x}", unsigned(c));
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

namespace {

// `path` relative to `root` when it lies inside it.
bool relative_inside(const fs::path& path, const fs::path& root, std::string& out) {
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

// FNV-1a, 64 bit: a content fingerprint of an input file ("missing" when it cannot be read).
std::string fnv1a64_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "missing";
  constexpr std::uint64_t kOffsetBasis = 14695981039346656037ull, kPrime = 1099511628211ull;
  std::uint64_t h = kOffsetBasis;
  char buf[1 << 14];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      h ^= std::uint64_t(static_cast<unsigned char>(buf[i]));
      h *= kPrime;
    }
  }
  return fmt::format("{:016x}", h);
}

}  // namespace

std::string portable_path(const std::string& path, const std::string& config_dir) {
  std::string rel;
  if (relative_inside(path, SPECDSE_SOURCE_DIR, rel)) return rel;
  if (relative_inside(path, config_dir, rel)) return "<config_dir>/" + rel;
  return fs::path(path).filename().string();
}

std::string manifest_yaml(const ManifestInfo& m) {
  std::string y;
  y += "reproduction: " + yaml_quote(m.reproduction) + "\n";
  y += "title: " + yaml_quote(m.title) + "\n";
  y += "command: " + yaml_quote("specdse reproduce " + m.reproduction + " --engine " + m.engine) + "\n";
  y += "specdse_version: " + yaml_quote(version()) + "\n";
  y += "git_commit: " + yaml_quote(git_commit()) + "\n";
  y += "engine: " + yaml_quote(m.engine) + "\n";
  std::string cfg;
  y += "config_dir: " +
       yaml_quote(relative_inside(m.config_dir, SPECDSE_SOURCE_DIR, cfg) ? cfg : "--config-dir (outside the project)") +
       "\n";
  y += "inputs:\n";
  for (const auto& in : m.inputs) {
    const auto paren = in.find(" (");
    const std::string path = in.substr(0, paren);
    y += "  - path: " + yaml_quote(portable_path(path, m.config_dir)) + "\n";
    if (paren != std::string::npos && in.back() == ')')
      y += "    note: " + yaml_quote(in.substr(paren + 2, in.size() - paren - 3)) + "\n";
    y += "    fnv1a64: " + yaml_quote(fnv1a64_of_file(path)) + "\n";
  }
  y += "outputs:\n";
  for (const auto& out : m.outputs) y += "  - " + yaml_quote(out) + "\n";
  return y;
}

}  // namespace experiments
