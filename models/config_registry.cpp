#include "models/config_registry.hpp"
#include "models/input_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "models/closest_name.hpp"
#include "models/config_error.hpp"
#include "models/weight_format.hpp"

namespace fs = std::filesystem;

namespace models {

ConfigRegistry::ConfigRegistry(std::string config_dir) : dir_(std::move(config_dir)) {}

std::string ConfigRegistry::default_config_dir() {
  if (const char* env = std::getenv("SPECDSE_CONFIG_DIR"); env && *env) return env;
  return SPECDSE_CONFIG_DIR;
}

std::vector<std::string> ConfigRegistry::names(const std::string& folder) const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(dir_) / folder, ec))
    if (e.path().extension() == ".yaml") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

// Whether a file exists. A name the file system cannot even look up (too long) is simply not
// there, and the caller reports it as an unknown config; any other failure (no permission, a
// component that is a file) is an error naming the path.
bool exists_quietly(const fs::path& p) {
  std::error_code ec;
  const bool there = fs::exists(p, ec);
  if (!ec) return there;
  if (ec == std::errc::filename_too_long || ec == std::errc::no_such_file_or_directory ||
      ec == std::errc::not_a_directory)
    return false;
  throw InputError(fmt::format("{}: cannot look it up: {}", p.string().substr(0, 200), ec.message()));
}

// A name as error messages show it: at most 80 characters (fuzzed or mistyped names can be
// kilobytes long).
std::string shown(const std::string& name) {
  constexpr std::size_t kMaxShown = 80;
  return name.size() <= kMaxShown ? name : name.substr(0, kMaxShown) + "...";
}

// A config folder's name as one item of it: "models" -> "model"; "hardware" stays.
std::string singular(const std::string& folder) {
  if (folder.size() > 1 && folder.back() == 's') return folder.substr(0, folder.size() - 1);
  return folder;
}

// How a user adds a config the folder lacks, for the unknown-name error (the recipes are in
// docs/extending.md).
std::string how_to_add(const std::string& dir, const std::string& folder, const std::string& name) {
  if (folder == "hardware")
    return fmt::format("; to add a board, GPU or CPU, copy the closest one of its kind to {} and edit its "
                       "figures, or give the copy's path (--hw my-board.yaml) (docs/extending.md)",
                       (fs::path(dir) / folder / (shown(name) + ".yaml")).string());
  if (folder == "models")
    return fmt::format("; to add a model from its Hugging Face config.json: specdse import-model config.json --name {} "
                       "--out configs/models/{}.yaml", shown(name), shown(name));
  return fmt::format("; to add one, copy one of these to {} (docs/extending.md)",
                     (fs::path(dir) / folder / (shown(name) + ".yaml")).string());
}

}  // namespace

std::string ConfigRegistry::path(const std::string& folder, const std::string& name) const {
  const fs::path p = fs::path(dir_) / folder / (name + ".yaml");
  if (!exists_quietly(p)) {
    // Allow a path to a YAML file as well as a name.
    if (exists_quietly(name) && fs::path(name).extension() == ".yaml") return name;
    // Something is there but it is no file (a folder, a FIFO, /dev/zero): say what it is.
    if (name.find('/') != std::string::npos) {
      std::error_code ec;
      const fs::file_status st = fs::status(name, ec);
      if (!ec && fs::exists(st) && !fs::is_regular_file(st))
        throw InputError(fmt::format("{}: is {}, expected a {} config (a YAML file) or its name", shown(name),
                                     file_kind_words(st), singular(folder)));
    }
    // Name what the user gave: a path-like argument is reported as that file, not as a config
    // name with ".yaml" appended ("nope.yaml.yaml").
    if (fs::path(name).extension() == ".yaml" || name.find('/') != std::string::npos)
      throw InputError(fmt::format("unknown {} '{}': no such file, and no config of that name in {}; available: {}",
                                   singular(folder), shown(name), (fs::path(dir_) / folder).string(), fmt::join(names(folder), ", ")));
    throw InputError(fmt::format("unknown {} '{}'{}; no {}.yaml in {}; available: {}{}", singular(folder), shown(name),
                                 did_you_mean(name, names(folder)), shown(name), (fs::path(dir_) / folder).string(),
                                 fmt::join(names(folder), ", "), how_to_add(dir_, folder, name)));
  }
  return p.string();
}

HardwareSpec ConfigRegistry::hardware(const std::string& name) const {
  const std::string file = path("hardware", name);
  HardwareSpec hw = load_hardware(file);
  hw.name = label("hardware", file, hw.name);
  return hw;
}

std::string ConfigRegistry::label(const std::string& folder, const std::string& file, const std::string& declared) const {
  const fs::path shipped = fs::path(dir_) / folder / (declared + ".yaml");
  std::error_code ec;
  if (!exists_quietly(shipped) || fs::equivalent(file, shipped, ec)) return declared;
  const std::string stem = fs::path(file).stem().string();
  return exists_quietly(fs::path(dir_) / folder / (stem + ".yaml")) ? file : stem;
}

namespace {

// "llama-68m@q5_k_m" -> {"llama-68m", "q5_k_m"}; no '@' -> {name, ""}.
std::pair<std::string, std::string> split_format(const std::string& name) {
  const auto at = name.rfind('@');
  if (at == std::string::npos) return {name, ""};
  return {name.substr(0, at), name.substr(at + 1)};
}

}  // namespace

ModelSpec ConfigRegistry::model(const std::string& name) const {
  const auto [base, format] = split_format(name);
  // Check the format before loading so a bad suffix is reported even for a known model.
  const std::string fmt_name =
      format.empty() ? "" : weight_format(format, fmt::format("model '{}'", name)).name;
  const std::string file = path("models", base);
  ModelSpec m = load_model(file);
  m.name = label("models", file, m.name);
  if (!fmt_name.empty()) m.weight_format = fmt_name;
  return m;
}

bool ConfigRegistry::has_model(const std::string& name) const {
  return exists_quietly(fs::path(dir_) / "models" / (split_format(name).first + ".yaml"));
}

bool ConfigRegistry::has_algorithm(const std::string& name) const {
  return exists_quietly(fs::path(dir_) / "algorithms" / (name + ".yaml"));
}

AlgorithmSpec ConfigRegistry::algorithm(const std::string& name) const {
  if (!has_algorithm(name) && has_model(name)) return standalone_chain_algorithm(model(name));
  if (!has_algorithm(name) && fs::path(name).extension() != ".yaml" && name.find('/') == std::string::npos) {
    // Neither an algorithm nor a model (a standalone chain draft): the closest of both.
    std::vector<std::string> known = names("algorithms");
    const auto models = names("models");
    known.insert(known.end(), models.begin(), models.end());
    throw InputError(fmt::format("unknown algorithm '{}'{}; no {}.yaml in {} and no model of that name; "
                                 "algorithms: {}, or any model as a standalone chain draft",
                                 shown(name), did_you_mean(name, known), shown(name),
                                 (fs::path(dir_) / "algorithms").string(), fmt::join(names("algorithms"), ", ")));
  }
  AlgorithmSpec a = load_algorithm(path("algorithms", name));
  if (!a.draft.model_name.empty()) a.draft.model = model(a.draft.model_name);
  return a;
}

}  // namespace models
