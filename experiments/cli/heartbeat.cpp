#include "experiments/cli/heartbeat.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <iostream>

namespace experiments {

Heartbeat::Heartbeat(std::string what, double quiet_s, double every_s) : what_(std::move(what)) {
  if (::isatty(STDERR_FILENO)) start(quiet_s, every_s, std::cerr);
}

Heartbeat::Heartbeat(std::string what, double quiet_s, double every_s, std::ostream& out) : what_(std::move(what)) {
  start(quiet_s, every_s, out);
}

void Heartbeat::start(double quiet_s, double every_s, std::ostream& out) {
  thread_ = std::thread([this, quiet_s, every_s, &out] {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    auto next = start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(quiet_s));
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_until(lock, next, [this] { return done_; })) {
      const double elapsed = std::chrono::duration<double>(clock::now() - start).count();
      out << fmt::format("specdse: {} still running, {:.0f} s\n", what_, elapsed) << std::flush;
      next += std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(every_s));
    }
  });
}

Heartbeat::~Heartbeat() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

}  // namespace experiments
