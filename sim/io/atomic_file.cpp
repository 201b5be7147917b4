#include "sim/io/atomic_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "models/config_error.hpp"
#include "sim/io/output_path.hpp"
#include "sim/io/temp_files.hpp"

namespace sim {

void write_file_atomic(const std::string& path, const std::string& content) {
  write_file_atomic(path, [&](std::ostream& out) { out << content; });
}

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  // Through a symbolic link, the target is replaced: renaming onto the link itself would turn
  // it into a regular file and leave the file it named stale.
  const fs::path p(resolve_output_path(path));
  if (check_output_target(path)) {
    // A character device (/dev/null, a terminal): written in place, never renamed over.
    std::ofstream out(p, std::ios::binary);
    if (out) write(out);
    if (out) out.flush();
    if (!out) throw models::InputError(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
    return;
  }
  std::error_code ec;
  if (p.has_parent_path()) {
    fs::create_directories(p.parent_path(), ec);
    if (ec)
      throw models::InputError(
          fmt::format("{}: cannot create the folder {}: {}", path, p.parent_path().string(), ec.message()));
  }
  // A temporary name of its own per process and call, so two writers never share one; hidden,
  // and ending in .tmp, so a run killed before the rename leaves nothing that looks like output.
  static std::atomic<unsigned> counter{0};
  const fs::path tmp = p.parent_path() / fmt::format(".{}.{}.{}.tmp", p.filename().string(), ::getpid(), counter++);
  const TempFileGuard removed_on_signal(tmp.string());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw models::InputError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
    try {
      write(out);
    } catch (...) {
      out.close();
      fs::remove(tmp, ec);
      throw;
    }
    out.flush();
    if (!out) {
      const int err = errno;
      out.close();
      fs::remove(tmp, ec);
      throw models::InputError(fmt::format("{}: write failed: {}", path, std::strerror(err)));
    }
  }
  fs::rename(tmp, p, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(tmp, ec);
    throw models::InputError(fmt::format("{}: cannot rename into place: {}", path, why));
  }
}

}  // namespace sim
