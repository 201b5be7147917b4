#include "sim/io/temp_files.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstring>

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
