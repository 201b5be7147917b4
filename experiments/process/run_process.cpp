#include "experiments/process/run_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

extern char** environ;

namespace experiments {

namespace {

// Closes the file actions whatever happens in between.
struct FileActions {
  posix_spawn_file_actions_t a;
  FileActions() { posix_spawn_file_actions_init(&a); }
  ~FileActions() { posix_spawn_file_actions_destroy(&a); }
};

// Points the child's descriptor `fd` where `s` / `file` say; `pipe_write` is the capture pipe.
void redirect(FileActions& fa, int fd, Stream s, const std::string& file, int pipe_write) {
  if (!file.empty()) {
    posix_spawn_file_actions_addopen(&fa.a, fd, file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    return;
  }
  switch (s) {
    case Stream::inherit: break;
    case Stream::null: posix_spawn_file_actions_addopen(&fa.a, fd, "/dev/null", O_WRONLY, 0); break;
    case Stream::to_stderr: posix_spawn_file_actions_adddup2(&fa.a, STDERR_FILENO, fd); break;
    case Stream::capture: posix_spawn_file_actions_adddup2(&fa.a, pipe_write, fd); break;
  }
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ProcessResult result;
  if (argv.empty()) return result;
  const bool capture = (options.out == Stream::capture && options.out_file.empty()) ||
                       (options.err == Stream::capture && options.err_file.empty());
  int fds[2] = {-1, -1};
  if (capture && ::pipe2(fds, O_CLOEXEC) != 0) return result;
  FileActions fa;
  redirect(fa, STDOUT_FILENO, options.out, options.out_file, fds[1]);
  redirect(fa, STDERR_FILENO, options.err, options.err_file, fds[1]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, args[0], &fa.a, nullptr, args.data(), environ);
  if (capture) {
    ::close(fds[1]);
    if (rc == 0) {
      char buf[4096];
      for (;;) {
        const ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n > 0) result.output.append(buf, std::size_t(n));
        else if (n == 0 || errno != EINTR) break;
      }
    }
    ::close(fds[0]);
  }
  if (rc != 0) return result;  // not started: 127, as a shell says for "command not found"
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return result;
  result.status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 127;
  return result;
}

}  // namespace experiments
