#pragma once
// Temporary files the process is writing (an atomic write's hidden `.NAME.PID.N.tmp` before its
// rename into place): a signal that would stop the process (INT, TERM, HUP, QUIT) removes them
// first, so none outlives a run stopped with Ctrl-C or `kill`. SIGXFSZ (a file-size limit,
// `ulimit -f`) is ignored instead of killing the process: the write then fails with EFBIG, and
// the writer reports it in one line and removes its temporary file as for any failed write.
// (SIGKILL cannot be caught: its temporaries are hidden and end in .tmp, never taken for output.)
#include <string>

namespace sim {

// Registers `path` for removal on a fatal signal while the guard lives. Async-signal-safe on the
// handler's side: a fixed table of slots, each owned by the process that filled it (a forked
// worker killed by a signal removes only its own files, not its parent's).
class TempFileGuard {
 public:
  explicit TempFileGuard(const std::string& path);
  ~TempFileGuard();
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;

 private:
  int slot_ = -1;  // -1: the table was full (the file is still removed on every failure path)
};

// The folder for a run's own temporary files (std::filesystem::temp_directory_path: TMPDIR, else
// /tmp), checked to be a folder this process can write in; models::InputError naming TMPDIR and
// `purpose` otherwise (it is the user's environment, not an internal failure).
std::string temporary_folder(const std::string& purpose);

// Installs the handlers; once, from the command line's main (the Python module leaves the
// interpreter's signal handling alone).
void install_temp_file_cleanup();

}  // namespace sim
