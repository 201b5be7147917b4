#pragma once
// One writer per output at a time. Two runs writing the same sweep file or the same reproduce
// folder at once would interleave rows or mix files of two runs; the second one is refused
// instead. The lock is an flock(2) on a small lock file beside the output: the kernel drops it
// when the holding process ends, however it ends (kill -9 included), so a lock is never stale.
// The holder removes the lock file when it lets go; one left by a killed run means nothing by
// itself and is taken over (and then removed) by the next run.
#include <string>

namespace experiments {

class OutputLock {
 public:
  // Locks `lock_file` (creating it and its folder); `output` names what is being written in
  // the messages. models::InputError, one line, when another process holds the lock ("OUTPUT:
  // another specdse run is writing it ...") or the lock file cannot be created (a read-only
  // folder, a path through a regular file): the output could not be written either.
  OutputLock(const std::string& lock_file, const std::string& output);
  // Removes the lock file, then releases the lock (in that order: see output_lock.cpp).
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  // The lock for an output file: DIR/.NAME.lock beside the file the path names (through a
  // symbolic link, its target's: every spelling of one output shares one lock). One per file,
  // so shards of a job array may write side by side in one folder.
  static std::string for_file(const std::string& path);
  // The lock for an output folder: DIR/.specdse.lock.
  static std::string for_folder(const std::string& dir);

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace experiments
