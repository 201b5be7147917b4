#include "models/input_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "models/config_error.hpp"

namespace models {

std::string file_kind_words(const std::filesystem::file_status& st) {
  namespace fs = std::filesystem;
  return fs::is_directory(st)        ? "a folder"
         : fs::is_fifo(st)           ? "a FIFO (named pipe)"
         : fs::is_socket(st)         ? "a socket"
         : fs::is_character_file(st) ? "a character device"
         : fs::is_block_file(st)     ? "a block device"
                                     : "not a regular file";
}

void check_input_file(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  const std::string name = what.empty() ? path : fmt::format("{} ({})", path, what);
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw InputError(fmt::format("{}: cannot open: no such file", name));
  if (!fs::is_regular_file(st))
    throw InputError(fmt::format("{}: is {}, expected a regular file", name, file_kind_words(st)));
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > kMaxInputFileBytes)
    throw InputError(fmt::format("{}: {} bytes, more than any input of specdse's ({} GiB at most): a wrong file?", name,
                                 size, kMaxInputFileBytes >> 30));
}

std::ifstream open_input_file(const std::string& path, const std::string& what, bool binary) {
  check_input_file(path, what);
  std::ifstream in(path, binary ? std::ios::in | std::ios::binary : std::ios::in);
  const std::string name = what.empty() ? path : fmt::format("{} ({})", path, what);
  if (!in) throw InputError(fmt::format("{}: cannot open file: {}", name, std::strerror(errno)));
  // A file that opens but cannot be read (/proc/self/mem: EIO at offset 0): said now, naming it.
  // libstdc++'s filebuf throws from its first read where the system call fails.
  try {
    in.peek();
  } catch (const std::ios_base::failure& e) {
    throw InputError(fmt::format("{}: cannot read: {}", name, std::strerror(errno ? errno : EIO)));
  }
  if (in.bad()) throw InputError(fmt::format("{}: cannot read: {}", name, std::strerror(errno ? errno : EIO)));
  in.clear();  // an empty file's peek set eof: its reader decides what empty means
  return in;
}

}  // namespace models
