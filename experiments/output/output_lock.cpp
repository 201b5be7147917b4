#include "experiments/output/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "models/config_error.hpp"

namespace experiments {

OutputLock::OutputLock(const std::string& lock_file, const std::string& output) {
  namespace fs = std::filesystem;
  const fs::path lock(lock_file);
  std::error_code ec;
  if (lock.has_parent_path()) {
    fs::create_directories(lock.parent_path(), ec);
    if (ec)
      throw models::InputError(fmt::format("{}: cannot create the output folder {}: {}", output,
                                           lock.parent_path().string(), ec.message()));
  }
  fd_ = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw models::InputError(fmt::format("{}: cannot write there: {} ({})", output, std::strerror(errno), lock_file));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK)
      throw models::InputError(fmt::format(
          "{}: another specdse run is writing it (lock {}); wait for it to finish or choose another --out", output,
          lock_file));
    throw models::InputError(fmt::format("{}: cannot lock {}: {}", output, lock_file, std::strerror(err)));
  }
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

std::string OutputLock::for_file(const std::string& path) {
  const std::filesystem::path p(path);
  return (p.parent_path() / ("." + p.filename().string() + ".lock")).string();
}

std::string OutputLock::for_folder(const std::string& dir) {
  return (std::filesystem::path(dir) / ".specdse.lock").string();
}

}  // namespace experiments
