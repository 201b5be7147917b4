#pragma once
// Writing an output file whole or not at all: a temporary file in the same folder, then a rename
// over the target, so a reader (or a run killed half way) never sees half a file.
#include <functional>
#include <ostream>
#include <string>

namespace sim {

// Writes `content` to `path` atomically (temporary file in the same folder, then rename),
// creating parent folders. Through a symbolic link it writes the link's target, and the link
// stays (sim/io/output_path.hpp). A character device (/dev/null) is written in place; a folder,
// FIFO, socket or block device is refused (check_output_target).
void write_file_atomic(const std::string& path, const std::string& content);

// The same, the content streamed by `write` (a file larger than memory: a long trace).
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace sim
