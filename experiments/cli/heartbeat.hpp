#pragma once
// A line on stderr while a long command runs ("specdse: specpipe still running, 20 s"), so a run
// that takes minutes (a scenario at a million tokens) never looks hung. Nothing is printed for
// runs shorter than `quiet_s`, nor when stderr is not a terminal (a log or a test's pipe keeps
// only what the command says); the stdout output is untouched (byte-identical either way).
#include <condition_variable>
#include <iosfwd>
#include <mutex>
#include <string>
#include <thread>

namespace experiments {

class Heartbeat {
 public:
  explicit Heartbeat(std::string what, double quiet_s = 5, double every_s = 10);
  // The same, onto `out` whatever it is (tests).
  Heartbeat(std::string what, double quiet_s, double every_s, std::ostream& out);
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

 private:
  void start(double quiet_s, double every_s, std::ostream& out);
  std::string what_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace experiments
