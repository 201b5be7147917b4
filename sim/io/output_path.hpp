#pragma once
// Which file an output path names. An output given through a symbolic link is written through
// it: the link stays a link and its target gets the content (as a shell's `>` does), and every
// spelling of one file shares one lock and one sweep journal.
#include <string>
#include <vector>

namespace sim {

// `path` with the symbolic links of its last component followed to the file they name (the
// target need not exist yet); `path` itself when it is not a link. Links in the folders above
// are left as they are: they lead to the same folder, so to the same lock file's inode.
// models::InputError, one line, for a loop of links.
std::string resolve_output_path(const std::string& path);

// What an output path may name, checked before anything is written: nothing yet, a regular file
// (replaced atomically), or a character device such as /dev/null or a terminal (written in place:
// replacing it would delete the device node). A folder, a FIFO, a socket or a block device is
// refused with a one-line models::InputError naming the path and what it is. Returns whether the
// (resolved) target is a character device.
bool check_output_target(const std::string& path);

// Refuses (one line, before any work) an output path that names the same file as `input`, one
// of the run's own inputs: writing it would destroy what the run reads.
void refuse_output_over_input(const std::string& output, const std::string& input, const std::string& input_flag);

// A path a run reads or writes, with the flag that named it (for the error).
struct NamedPath {
  std::string flag, path;
};
// Before any work: refuses (one line) two of a run's outputs that name one file (the second would
// replace the first), and an output that names one of its inputs (any input string that names an
// existing file: a flag's value that is not a path never matches). Empty paths are skipped.
void check_run_outputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

}  // namespace sim
