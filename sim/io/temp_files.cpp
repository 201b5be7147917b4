#include "sim/io/temp_files.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "models/config_error.hpp"

namespace sim {

namespace {

// More than the writes one process has in flight at once (threads of a sweep or a reproduction
// write one file each at a time).
constexpr int kSlots = 64;

enum SlotState : int { kFree = 0, kFilling = 1, kReady = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  pid_t owner = 0;
  char path[PATH_MAX] = {};
};

Slot g_slots[kSlots];

extern "C" void remove_temp_files_and_reraise(int sig) {
  const pid_t self = ::getpid();
  for (auto& s : g_slots)
    if (s.state.load(std::memory_order_acquire) == kReady && s.owner == self) ::unlink(s.path);
  // Then die of the same signal, as the caller (a shell, a job runner) expects.
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

TempFileGuard::TempFileGuard(const std::string& path) {
  if (path.size() >= PATH_MAX) return;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kFilling, std::memory_order_acq_rel)) continue;
    g_slots[i].owner = ::getpid();
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].state.store(kReady, std::memory_order_release);
    slot_ = i;
    return;
  }
}

TempFileGuard::~TempFileGuard() {
  if (slot_ >= 0) g_slots[slot_].state.store(kFree, std::memory_order_release);
}

std::string temporary_folder(const std::string& purpose) {
  const char* tmpdir = std::getenv("TMPDIR");
  const std::string named = tmpdir && *tmpdir ? fmt::format("TMPDIR={}", tmpdir) : std::string("/tmp");
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::temp_directory_path(ec);
  // Tried, not inferred from permissions: root passes access() on folders no file can be made in
  // (/proc), and a read-only mount refuses what the mode bits allow.
  std::string trial = (folder / ".specdse-tmp-XXXXXX").string();
  const int fd = ec ? -1 : ::mkstemp(trial.data());
  if (fd < 0)
    throw models::InputError(fmt::format("{}: not a folder this run can write in ({}), needed for {}; set TMPDIR to "
                                         "one", named, ec ? ec.message() : std::strerror(errno), purpose));
  ::close(fd);
  ::unlink(trial.c_str());
  return folder.string();
}

void install_temp_file_cleanup() {
  struct sigaction remove {};
  remove.sa_handler = remove_temp_files_and_reraise;
  sigemptyset(&remove.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    // A signal the caller chose to ignore (nohup's SIGHUP) stays ignored.
    struct sigaction old {};
    ::sigaction(sig, nullptr, &old);
    if (old.sa_handler != SIG_IGN) ::sigaction(sig, &remove, nullptr);
  }
  ::signal(SIGXFSZ, SIG_IGN);
}

}  // namespace sim
