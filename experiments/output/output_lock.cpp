#include "experiments/output/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "sim/io/output_path.hpp"
#include "models/config_error.hpp"
#include "models/input_file.hpp"

namespace experiments {
namespace {

// Whether the open file `fd` is still the file named `path` (not unlinked, not replaced).
bool still_named(int fd, const std::string& path) {
  struct stat held {}, named {};
  return ::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
         held.st_ino == named.st_ino;
}

}  // namespace

// Removing the lock file must not let two runs in at once. The race it could open: run B opens
// the lock file, run A (the holder) unlinks it and lets go, B's flock then succeeds on the
// unlinked file while run C creates a new file under the name and locks that one; B and C would
// both write. So a lock counts only if, once flocked, the file is still the one under the name;
// otherwise the locker starts again with whatever the name holds now (creating it if needed).
// And a holder unlinks only while it still holds the lock, so the name changes only under a
// holder: anyone who locks the file that is under the name afterwards holds the only lock.
OutputLock::OutputLock(const std::string& lock_file, const std::string& output) : path_(lock_file) {
  namespace fs = std::filesystem;
  const fs::path lock(lock_file);
  std::error_code ec;
  if (lock.has_parent_path()) {
    fs::create_directories(lock.parent_path(), ec);
    if (ec)
      throw models::InputError(fmt::format("{}: cannot create the output folder {}: {}", output,
                                           lock.parent_path().string(), ec.message()));
  }
  // A lock file is a regular file this program made: anything else under its name (a FIFO, a
  // device) is someone's, and the holder's unlink at the end would delete it.
  {
    const fs::file_status st = fs::symlink_status(lock, ec);
    if (fs::exists(st) && !fs::is_regular_file(st))
      throw models::InputError(fmt::format("{}: its lock file {} is {}, not a lock file; move it away", output, lock_file,
                                           models::file_kind_words(st)));
  }
  // Each retry follows a holder's unlink, which happens once per run: a few tries are plenty.
  for (int attempt = 0; attempt < 100; ++attempt) {
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
    if (still_named(fd_, lock_file)) return;
    ::close(fd_);  // the holder we waited on removed it: lock the name's file instead
    fd_ = -1;
  }
  throw models::InputError(fmt::format("{}: cannot lock {}: it keeps being removed and recreated", output, lock_file));
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  // Unlink first, close (so release) second: see the constructor. The check keeps a lock file
  // that someone else put under the name (a user who removed ours by hand) for its owner.
  if (still_named(fd_, path_)) ::unlink(path_.c_str());
  ::close(fd_);  // closing the last descriptor releases the flock
}

std::string OutputLock::for_file(const std::string& path) {
  const std::filesystem::path p(sim::resolve_output_path(path));
  return (p.parent_path() / ("." + p.filename().string() + ".lock")).string();
}

std::string OutputLock::for_folder(const std::string& dir) {
  return (std::filesystem::path(dir) / ".specdse.lock").string();
}

}  // namespace experiments
