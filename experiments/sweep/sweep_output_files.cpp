// A sweep's output files: resuming from the complete rows of an earlier run's file or journal,
// the journal's name and row checksums, and joining job-array shards into one file (declared in
// sweep_runner.hpp).
#include "experiments/sweep/sweep_runner.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "experiments/output/output_path.hpp"
#include "experiments/output/table.hpp"
#include "experiments/sweep/sweep_rows.hpp"
#include "models/config_error.hpp"
#include "sim/io/csv.hpp"

namespace experiments {

namespace {

constexpr const char* kChecksumColumn = "row_crc32";

// CRC-32 as zlib computes it (reflected polynomial 0xEDB88320), so a journal row can be checked
// by hand (python3 -c 'import zlib; ...'). It catches every change of up to 32 consecutive bits
// and all but 2^-32 of the rest: a changed digit, a NUL byte, a row of another run.
std::uint32_t crc32(const std::string& bytes) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xFFFFFFFFu;
  for (const unsigned char b : bytes) c = table[(c ^ b) & 0xFFu] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

}  // namespace

std::string sweep_journal_header(const SweepSpec& spec) { return sweep_header(spec) + "," + kChecksumColumn; }

std::string sweep_journal_row(const std::string& row) { return fmt::format("{},{:08x}", row, crc32(row)); }

std::vector<std::string> read_resume_rows(const SweepSpec& spec, const std::string& path,
                                          const std::vector<std::size_t>& indices, std::size_t* keep_bytes,
                                          ResumeFile kind, std::string* dropped) {
  std::vector<std::string> lines;
  if (keep_bytes) *keep_bytes = 0;
  if (dropped) dropped->clear();
  if (path.empty() || !std::filesystem::exists(path)) return lines;
  std::string existing;
  {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    existing = ss.str();
  }
  if (existing.empty()) return lines;
  const bool journal = kind == ResumeFile::journal;
  const auto columns = sweep_columns(spec);
  const auto point_cols = point_column_names(spec);
  const std::string plain_header = sim::csv_line(columns);
  const std::string header = journal ? sweep_journal_header(spec) : plain_header;
  const auto eol = existing.find('\n');
  if (eol == std::string::npos || existing.substr(0, eol) != header) {
    // A journal of an older specdse has the output's header and no checksums: its rows cannot
    // be told from changed ones, so they are computed again rather than trusted.
    if (journal && eol != std::string::npos && existing.substr(0, eol) == plain_header) {
      if (dropped)
        *dropped = fmt::format("{}: a journal without row checksums (an older specdse's?): its rows are computed "
                               "again", path);
      return lines;
    }
    // A header cut short by an interrupted run is rewritten; anything else is another file.
    if (eol != std::string::npos || header.compare(0, existing.size(), existing) != 0)
      throw models::InputError(fmt::format(
          "{}: expected the header of sweep {} to resume it, got a different file; remove it or "
          "choose another --out", path, spec.path));
    return lines;
  }
  std::size_t keep = eol + 1, pos = keep;
  while (pos < existing.size()) {
    const auto end = existing.find('\n', pos);
    if (end == std::string::npos) break;  // a partial row from an interrupted run
    std::string line = existing.substr(pos, end - pos);
    const std::size_t row_no = lines.size() + 1;
    // Damage (a changed value, a NUL byte from a crash of the file system) ends the prefix, as a
    // row cut short does: the row is computed again and written over it.
    std::string damage;
    if (journal) {
      const auto comma = line.rfind(',');
      if (comma == std::string::npos || line.substr(comma + 1) != fmt::format("{:08x}", crc32(line.substr(0, comma))))
        damage = "its checksum does not match its contents (changed or damaged since it was written)";
      else
        line.resize(comma);
    } else if (line.find('\0') != std::string::npos) {
      damage = "it holds a NUL byte (damaged since it was written)";
    }
    if (!damage.empty()) {
      if (dropped)
        *dropped = fmt::format("{}: row {}: {}; computing it and the rows after it again", path, row_no, damage);
      break;
    }
    if (lines.size() >= indices.size())
      throw models::InputError(fmt::format("{}: has more rows than sweep {} ({}); remove it or choose "
                                           "another --out", path, spec.path, indices.size()));
    const std::size_t k = indices[lines.size()];
    const std::string expected = csv_row(point_cols, point_cells(spec.point(k))) + ",";
    if (line.compare(0, expected.size(), expected) != 0 || sim::csv_split(line).size() != columns.size())
      throw models::InputError(fmt::format("{}: row {}: expected the point '{}' of sweep {}, got '{}'; "
                                           "remove the file or choose another --out",
                                           path, row_no, expected, spec.path, line));
    lines.push_back(std::move(line));
    pos = end + 1;
    keep = pos;
  }
  if (keep_bytes) *keep_bytes = keep;
  return lines;
}

std::string sweep_journal_path(const std::string& out_path) { return resolve_output_path(out_path) + ".partial"; }

std::size_t merge_sweep_shards(const std::string& out_path, const std::vector<std::string>& shard_paths,
                               const SweepSpec* spec) {
  if (shard_paths.empty()) throw models::InputError("sweep merge: expected at least one shard file, got none");
  std::string header;
  std::map<std::size_t, std::string> rows;  // by point index
  for (const auto& path : shard_paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw models::InputError(fmt::format("{}: cannot read the sweep shard", path));
    std::ostringstream ss;
    ss << in.rdbuf();
    const std::string content = ss.str();
    const auto eol = content.find('\n');
    if (eol == std::string::npos)
      throw models::InputError(fmt::format("{}: expected a sweep CSV with a header line, got none", path));
    const std::string h = content.substr(0, eol);
    if (header.empty()) {
      header = h;
      if (spec && header != sweep_header(*spec))
        throw models::InputError(fmt::format("{}: expected the header of sweep {}, got '{}'", path, spec->path, h));
      if (header.rfind("index,", 0) != 0)
        throw models::InputError(fmt::format("{}: expected a sweep CSV whose first column is index, got '{}'", path, h));
    } else if (h != header) {
      throw models::InputError(fmt::format("{}: expected the header of {}, got '{}'", path, shard_paths.front(), h));
    }
    std::size_t pos = eol + 1, line_no = 1;
    while (pos < content.size()) {
      const auto end = content.find('\n', pos);
      ++line_no;
      // An unterminated last line is a row an interrupted shard was writing: that shard is
      // incomplete, so merging it would lose a point.
      if (end == std::string::npos)
        throw models::InputError(fmt::format("{}: line {}: expected a complete row, got a partial one (the shard "
                                             "was interrupted: run it again to resume it)", path, line_no));
      const std::string line = content.substr(pos, end - pos);
      pos = end + 1;
      const std::string first = line.substr(0, line.find(','));
      std::size_t index = 0;
      try {
        std::size_t used = 0;
        const long long v = std::stoll(first, &used);
        if (used != first.size() || v < 0) throw std::invalid_argument("");
        index = std::size_t(v);
      } catch (const std::exception&) {
        throw models::InputError(fmt::format("{}: line {}: index: expected a point index, got '{}'", path, line_no, first));
      }
      if (!rows.emplace(index, line).second)
        throw models::InputError(fmt::format("{}: line {}: expected each point once over the shards, got point {} "
                                             "again", path, line_no, index));
    }
  }
  const std::size_t n = spec ? spec->size() : (rows.empty() ? 0 : rows.rbegin()->first + 1);
  std::string out = header + "\n";
  std::size_t expect = 0;
  for (const auto& [index, line] : rows) {
    if (index != expect || index >= n)
      throw models::InputError(fmt::format("sweep merge: expected point {} in one of the shards, got {}",
                                           expect, index >= n ? "a point past the sweep's " + std::to_string(n)
                                                              : "none (missing shard or unfinished run?)"));
    if (spec) {
      const auto point_cols = point_column_names(*spec);
      const std::string expected = csv_row(point_cols, point_cells(spec->point(index))) + ",";
      if (line.compare(0, expected.size(), expected) != 0)
        throw models::InputError(fmt::format("sweep merge: point {}: expected '{}' of sweep {}, got '{}'", index,
                                             expected, spec->path, line));
    }
    out += line + "\n";
    ++expect;
  }
  if (expect != n)
    throw models::InputError(fmt::format("sweep merge: expected {} points of sweep {}, got {} (missing shard or "
                                         "unfinished run?)", n, spec ? spec->path : "", expect));
  write_file_atomic(out_path, out);
  return n;
}
}  // namespace experiments
