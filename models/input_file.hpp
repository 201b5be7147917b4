#pragma once
// Opening a file the user named as an input (a config, statistics, a trace, measurements): one
// rule for every reader. The path must name a regular file (following links): a folder, a FIFO
// (whose read would block for ever without a writer), a socket or a device (/dev/zero would be
// read without end) is a one-line models::InputError naming the path and what it is, as is a
// file that is missing or cannot be read, or one larger than kMaxInputFileBytes.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace models {

// No input of specdse's comes near this (the largest shipped acceptance table is ~1 MB; a
// probability trace of 10^6 positions is ~100 MB): a larger file is a wrong path, not an input.
constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t(4) << 30;

// Throws unless `path` names a readable regular file within the size bound; `what` names the
// input in the message ("" for none).
void check_input_file(const std::string& path, const std::string& what = "");

// What a path that is not a regular file is, in words: "a folder", "a FIFO (named pipe)", "a
// socket", "a character device", "a block device" (the input and the output checks say it alike).
std::string file_kind_words(const std::filesystem::file_status& status);

// check_input_file, then the file opened for reading (binary when asked).
std::ifstream open_input_file(const std::string& path, const std::string& what = "", bool binary = false);

}  // namespace models
