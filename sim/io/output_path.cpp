#include "sim/io/output_path.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "models/config_error.hpp"
#include "models/input_file.hpp"

namespace sim {

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

void refuse_output_over_input(const std::string& output, const std::string& input, const std::string& input_flag) {
  std::error_code ec;
  if (!output.empty() && !input.empty() && std::filesystem::equivalent(resolve_output_path(output), input, ec))
    throw models::InputError(fmt::format("{}: is the run's own input ({} {}); write the output elsewhere", output,
                                         input_flag, input));
}

void check_run_outputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  namespace fs = std::filesystem;
  // Where each output lands: its links followed, its folders made absolute (it need not exist).
  auto landing = [](const std::string& path) {
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(resolve_output_path(path), ec);
    return ec ? fs::absolute(path).lexically_normal() : p;
  };
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].path.empty()) continue;
    for (std::size_t j = 0; j < i; ++j)
      if (!outputs[j].path.empty() && landing(outputs[i].path) == landing(outputs[j].path))
        throw models::InputError(fmt::format("{} {}: names the same file as {} {}; give each output its own path",
                                             outputs[i].flag, outputs[i].path, outputs[j].flag, outputs[j].path));
    for (const auto& in : inputs) {
      std::error_code ec;
      if (in.path.empty() || !fs::is_regular_file(in.path, ec)) continue;
      refuse_output_over_input(outputs[i].path, in.path, in.flag);
    }
  }
}

bool check_output_target(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // A path that ends in a separator names a folder, never the file an output is.
  if (!path.empty() && path.back() == '/')
    throw models::InputError(fmt::format("{}: names a folder (ends in '/'), expected a file path", path));
  const fs::path target = resolve_output_path(path);
  const fs::file_status st = fs::status(target, ec);
  if (!fs::exists(st)) {
    // Nothing there yet: the folders it needs must be folders or creatable, which a path through
    // a regular file ("out.csv/x") never is. Said now, not after the work.
    fs::path above = target.parent_path();
    while (!above.empty() && !fs::exists(above, ec) && above != above.parent_path()) above = above.parent_path();
    if (!above.empty() && fs::exists(above, ec) && !fs::is_directory(above, ec))
      throw models::InputError(fmt::format("{}: cannot create the folder {}: Not a directory", path,
                                           target.parent_path().string()));
    return false;
  }
  if (ec || fs::is_regular_file(st)) return false;
  if (fs::is_character_file(st)) return true;
  throw models::InputError(fmt::format("{}: is {}, expected a file path (specdse writes regular files, or a character "
                                       "device such as /dev/null in place)", path, models::file_kind_words(st)));
}

}  // namespace sim
