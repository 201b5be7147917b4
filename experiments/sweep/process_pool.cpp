#include "experiments/sweep/process_pool.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <exception>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <new>
#include <stdexcept>
#include <vector>

#include "models/config_error.hpp"

namespace experiments {
namespace {

// Set in a worker process: a worker never forks workers of its own (a sweep inside a
// reproduction would otherwise fork all-cores grandchildren per worker).
bool in_worker_process = false;

bool write_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= std::size_t(w);
  }
  return true;
}

bool read_all(int fd, void* data, std::size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;  // end of file: the other side closed or died
    p += r;
    n -= std::size_t(r);
  }
  return true;
}

// What a worker sends back per point: its index, how it ended and the text (the result, or
// the error message).
enum class Outcome : std::uint64_t { ok = 0, input_error = 1, error = 2, out_of_memory = 3 };
struct RecordHeader {
  std::uint64_t index = 0;
  Outcome outcome = Outcome::ok;
  std::uint64_t size = 0;
};

// The child's loop: read a point index, compute it, send the record; end at end of input.
// It leaves by _exit, never by returning or exit(): it must not run the parent's atexit
// handlers, destructors or flush the parent's buffered output a second time.
[[noreturn]] void worker_main(int task_fd, int result_fd, const std::function<std::string(std::size_t)>& compute) {
  in_worker_process = true;
  for (;;) {
    std::uint64_t k = 0;
    if (!read_all(task_fd, &k, sizeof k)) _exit(0);
    RecordHeader h;
    h.index = k;
    std::string text;
    try {
      text = compute(std::size_t(k));
    } catch (const models::InputError& e) {
      h.outcome = Outcome::input_error;
      text = e.what();
    } catch (const std::bad_alloc&) {
      h.outcome = Outcome::out_of_memory;
    } catch (const std::exception& e) {
      h.outcome = Outcome::error;
      text = e.what();
    } catch (...) {
      h.outcome = Outcome::error;
      text = "unknown error in a sweep worker process";
    }
    h.size = text.size();
    if (!write_all(result_fd, &h, sizeof h) || !write_all(result_fd, text.data(), text.size())) _exit(1);
  }
}

struct Worker {
  pid_t pid = -1;
  int task = -1;    // parent writes point indices
  int result = -1;  // parent reads records
  bool busy = false;
};

// Writes to a worker's pipe with SIGPIPE ignored for the call only: a worker that died closed
// its end, and that must be an error here, not a fatal signal; elsewhere (the caller printing
// to a closed stdout, say) SIGPIPE keeps its usual meaning.
bool write_to_worker(int fd, const void* data, std::size_t n) {
  struct sigaction ignore {}, saved {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, &saved);
  const bool ok = write_all(fd, data, n);
  sigaction(SIGPIPE, &saved, nullptr);
  return ok;
}

pid_t wait_for(pid_t pid, int* status) {
  pid_t r;
  do r = ::waitpid(pid, status, 0);
  while (r < 0 && errno == EINTR);
  return r;
}

// Stops and reaps every worker still running and closes the pipes, whether the pool ends
// normally or by an exception.
class Pool {
 public:
  explicit Pool(unsigned n) : workers_(n) {}
  ~Pool() {
    for (Worker& w : workers_) {
      close_fd(w.task);
      close_fd(w.result);
      if (w.pid > 0 && !finished_) ::kill(w.pid, SIGKILL);
      if (w.pid > 0) wait_for(w.pid, nullptr);
    }
  }
  std::vector<Worker>& workers() { return workers_; }
  static void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  // Normal end: every worker saw end of input; reap them and check they exited cleanly.
  void finish() {
    for (Worker& w : workers_) {
      close_fd(w.task);
      close_fd(w.result);
      int status = 0;
      if (w.pid > 0 && wait_for(w.pid, &status) == w.pid) {
        w.pid = -1;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
          throw std::runtime_error(fmt::format("a sweep worker process ended abnormally ({})", describe(status)));
      }
    }
    finished_ = true;
  }
  static std::string describe(int status) {
    if (WIFSIGNALED(status)) return fmt::format("signal {}: {}", WTERMSIG(status), ::strsignal(WTERMSIG(status)));
    if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
    return "unknown status";
  }

 private:
  std::vector<Worker> workers_;
  bool finished_ = false;
};

}  // namespace

bool fork_is_safe() {
  if (in_worker_process) return false;
#ifdef __linux__
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8)) == 1;
#endif
  return false;
}

void run_in_worker_processes(std::size_t n, unsigned workers_wanted,
                             const std::function<std::string(std::size_t)>& compute,
                             const std::function<void(std::size_t, const std::string&)>& on_result,
                             const std::vector<std::size_t>& hand_out_order) {
  if (n == 0) return;
  if (!hand_out_order.empty()) {
    std::vector<char> seen(n, 0);
    bool permutation = hand_out_order.size() == n;
    for (std::size_t k : hand_out_order) permutation = permutation && k < n && !seen[k]++;
    if (!permutation) throw std::logic_error("run_in_worker_processes: hand_out_order is not a permutation of 0..n-1");
  }
  const unsigned count = unsigned(std::max<std::size_t>(1, std::min<std::size_t>(workers_wanted, n)));
  Pool pool(count);
  auto& workers = pool.workers();
  // Buffered output written before the fork would otherwise sit in every child's copy too.
  std::fflush(nullptr);
  std::cout.flush();
  std::cerr.flush();
  [[maybe_unused]] const pid_t parent = ::getpid();  // for the worker's check below
  for (unsigned c = 0; c < count; ++c) {
    int task[2], result[2];
    if (::pipe2(task, O_CLOEXEC) != 0)
      throw std::runtime_error(fmt::format("cannot create a pipe for a sweep worker: {}", std::strerror(errno)));
    if (::pipe2(result, O_CLOEXEC) != 0) {
      const int e = errno;
      ::close(task[0]), ::close(task[1]);
      throw std::runtime_error(fmt::format("cannot create a pipe for a sweep worker: {}", std::strerror(e)));
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(task[0]), ::close(task[1]), ::close(result[0]), ::close(result[1]);
      throw std::runtime_error(fmt::format("cannot start a sweep worker process: {}", std::strerror(errno)));
    }
    if (pid == 0) {
      // A worker dies with its parent. It holds copies of the parent's descriptors, the
      // output's lock among them, so a worker left computing after the parent was killed
      // (kill -9 runs no clean-up) would keep the lock for as long as its point takes (minutes
      // on sim-clocked) and refuse the resume. The parent is single-threaded here (fork_is_safe),
      // so the thread whose end the kernel watches is the parent's only one; a parent that died
      // before the prctl is caught by the getppid check.
#ifdef __linux__
      if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) _exit(1);
#endif
      // The child holds copies of the earlier workers' parent-side ends: close them, or those
      // workers would never see the end of their input.
      for (unsigned j = 0; j < c; ++j) {
        ::close(workers[j].task);
        ::close(workers[j].result);
      }
      ::close(task[1]);
      ::close(result[0]);
      worker_main(task[0], result[1], compute);
    }
    ::close(task[0]);
    ::close(result[1]);
    workers[c].pid = pid;
    workers[c].task = task[1];
    workers[c].result = result[0];
  }

  std::size_t next = 0;
  auto hand_out = [&](Worker& w) {
    if (next < n) {
      const std::uint64_t k = hand_out_order.empty() ? next : hand_out_order[next];
      ++next;
      if (!write_to_worker(w.task, &k, sizeof k))
        throw std::runtime_error("a sweep worker process stopped taking points");
      w.busy = true;
    } else {
      Pool::close_fd(w.task);  // end of input: the worker exits
      w.busy = false;
    }
  };
  for (Worker& w : workers) hand_out(w);

  // Results come in completion order and leave in index order.
  std::map<std::size_t, std::string> arrived;
  std::size_t next_out = 0;
  std::vector<pollfd> fds;
  std::vector<Worker*> polled;
  for (;;) {
    fds.clear();
    polled.clear();
    for (Worker& w : workers)
      if (w.busy) {
        fds.push_back({w.result, POLLIN, 0});
        polled.push_back(&w);
      }
    if (fds.empty()) break;
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("waiting for the sweep worker processes: {}", std::strerror(errno)));
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))) continue;
      Worker& w = *polled[i];
      RecordHeader h;
      std::string text;
      bool ok = read_all(w.result, &h, sizeof h);
      if (ok) {
        text.resize(std::size_t(h.size));
        ok = read_all(w.result, text.data(), text.size());
      }
      if (!ok) {
        int status = 0;
        const bool reaped = wait_for(w.pid, &status) == w.pid;
        w.pid = -1;
        throw std::runtime_error(fmt::format("a sweep worker process died ({})",
                                             reaped ? Pool::describe(status) : "its status is unknown"));
      }
      if (h.outcome == Outcome::input_error) throw models::InputError(text);
      if (h.outcome == Outcome::out_of_memory) throw std::bad_alloc();
      if (h.outcome == Outcome::error) throw std::runtime_error(text);
      arrived.emplace(std::size_t(h.index), std::move(text));
      for (auto it = arrived.find(next_out); it != arrived.end(); it = arrived.find(next_out)) {
        on_result(next_out++, it->second);
        arrived.erase(it);
      }
      hand_out(w);
    }
  }
  pool.finish();
}

}  // namespace experiments
