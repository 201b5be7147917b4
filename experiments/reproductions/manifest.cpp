#include "experiments/reproductions/manifest.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>

#include "models/version.hpp"

namespace fs = std::filesystem;

namespace experiments {

std::string yaml_quote(const std::string& s) {
  YAML::Emitter e;
  e << YAML::DoubleQuoted << s;
  return e.c_str();
}

namespace {


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


std::string manifest_yaml(const ManifestInfo& m) {
  // Every scalar double-quoted: a title with ':' or '#' or a path like "yes" stays a string.
  YAML::Emitter y;
  auto entry = [&](const char* key, const std::string& value) {
    y << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
  };
  y << YAML::BeginMap;
  entry("reproduction", m.reproduction);
  entry("title", m.title);
  entry("command", "specdse reproduce " + m.reproduction + " --engine " + m.engine);
  entry("specdse_version", models::version());
  entry("git_commit", models::git_commit());
  entry("engine", m.engine);
  std::string cfg;
  entry("config_dir", models::relative_inside(m.config_dir, SPECDSE_SOURCE_DIR, cfg) ? cfg : "--config-dir (outside the project)");
  y << YAML::Key << "inputs" << YAML::Value << YAML::BeginSeq;
  std::set<std::string> listed;  // reproductions over several systems or models share their files
  for (const auto& in : m.inputs) {
    if (!listed.insert(in).second) continue;
    const auto paren = in.find(" (");
    const std::string path = in.substr(0, paren);
    y << YAML::BeginMap;
    entry("path", portable_path(path, m.config_dir));
    if (paren != std::string::npos && in.back() == ')') entry("note", in.substr(paren + 2, in.size() - paren - 3));
    entry("fnv1a64", fnv1a64_of_file(path));
    y << YAML::EndMap;
  }
  y << YAML::EndSeq;
  y << YAML::Key << "outputs" << YAML::Value << YAML::BeginSeq;
  for (const auto& out : m.outputs) y << YAML::DoubleQuoted << out;
  y << YAML::EndSeq << YAML::EndMap;
  return std::string(y.c_str()) + "\n";
}

bool manifest_unchanged(const std::string& existing, const std::string& fresh) {
  // Line by line, skipping the commit line (written by manifest_yaml as `git_commit: "..."`).
  auto without_commit = [](const std::string& text) {
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      const std::string line = text.substr(start, end - start);
      if (line.rfind("git_commit:", 0) != 0) out += line + "\n";
      start = end + 1;
    }
    return out;
  };
  return without_commit(existing) == without_commit(fresh);
}

}  // namespace experiments
