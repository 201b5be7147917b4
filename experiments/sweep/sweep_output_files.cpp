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
#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/system_spec.hpp"
#include "models/version.hpp"
#include "sim/io/output_path.hpp"
#include "experiments/output/table.hpp"
#include "experiments/sweep/sweep_rows.hpp"
#include "models/config_error.hpp"
#include "models/input_file.hpp"
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

namespace {

// The bytes of a regular file (empty when it cannot be read: the loaders report that, with a
// better message, when the sweep runs).
std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A config folder's files, each by its name and content, in name order: one CRC for the folder.
std::uint32_t folder_crc(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_regular_file(ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  std::string all;
  for (const auto& n : names) all += n + '\0' + file_bytes((dir / n).string()) + '\0';
  return crc32(all);
}

// The leading '# ' lines of `text` (each with its newline) and where the rest starts.
std::pair<std::string, std::size_t> leading_comment_lines(const std::string& text) {
  std::size_t pos = 0;
  while (text.compare(pos, 2, "# ") == 0) {
    const auto eol = text.find('\n', pos);
    if (eol == std::string::npos) break;
    pos = eol + 1;
  }
  return {text.substr(0, pos), pos};
}

std::vector<std::string> split_lines(const std::string& block) {
  std::vector<std::string> out;
  std::istringstream in(block);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The first line of `expected` that `found` lacks or holds otherwise, in words; empty when equal.
std::string first_difference(const std::string& found, const std::string& expected, const char* there = "there",
                             const char* now = "now") {
  const auto f = split_lines(found), e = split_lines(expected);
  auto key = [](const std::string& line) { return line.substr(0, line.find(": ")); };
  for (const auto& line : e) {
    const auto it = std::find_if(f.begin(), f.end(), [&](const std::string& l) { return key(l) == key(line); });
    if (it == f.end()) return fmt::format("'{}' {}, absent {}", line.substr(2), now, there);
    if (*it != line) return fmt::format("'{}' {}, '{}' {}", it->substr(2), there, line.substr(2), now);
  }
  for (const auto& line : f)
    if (std::none_of(e.begin(), e.end(), [&](const std::string& l) { return key(l) == key(line); }))
      return fmt::format("'{}' {}, absent {}", line.substr(2), there, now);
  return "";
}

}  // namespace

std::string sweep_points_line(const SweepSpec& spec) {
  // Every point's axes (not its engine: that is its own line), so a resume or a merge of shards
  // of another grid is refused even where the grid's files are the same.
  std::string points;
  for (std::size_t i = 0; i < spec.size(); ++i) {
    const SweepPoint p = spec.point(i);
    points += fmt::format("{}|{}|{}|{}|{}|{}|{}", p.hardware, p.model, p.algorithm, p.task, p.source_table, p.context,
                          p.batch);
    for (const auto& [k, v] : p.hardware_overrides) points += fmt::format("|{}={}", k, v);
    for (const auto& [k, v] : p.draft_placement) points += fmt::format("|{}={}", k, v);
    points += "\n";
  }
  return fmt::format("# sweep_points: {} crc {:08x}\n", spec.size(), crc32(points));
}

std::string sweep_settings_line(const SweepSpec& spec) {
  return fmt::format("# sweep_settings: x_max={} x_search={}\n", spec.x_max, spec.every_x ? "every_x" : "optimum");
}

std::string sweep_fingerprint(const SweepSpec& spec, const models::ConfigRegistry& reg, std::size_t shard_index,
                              std::size_t shard_count) {
  namespace fs = std::filesystem;
  std::string out = sweep_settings_line(spec);
  out += fmt::format("# sweep_build: specdse {} (git {})\n", models::version(), models::git_commit());
  if (shard_count > 1) out += fmt::format("# sweep_shard: {}/{}\n", shard_index, shard_count);
  out += sweep_points_line(spec);
  out += fmt::format("# sweep_engine: {}\n", spec.engine);
  // Every input file the points name, once, by its path in the config folder (or as given).
  std::set<std::string> files, systems;
  bool whole_hardware = false;
  auto add = [&](const std::string& folder, std::string name) {
    if (name.empty()) return;
    name = name.substr(0, name.find('@'));  // a quantised variant reads its base model's file
    try {
      files.insert(reg.path(folder, name));
    } catch (const std::exception&) {
      // Not a config of this folder (a draft model named as the algorithm): the loaders decide.
    }
  };
  for (std::size_t i = 0; i < spec.size(); ++i) {
    const SweepPoint p = spec.point(i);
    add("hardware", p.hardware);
    add("models", p.model);
    add("algorithms", p.algorithm);
    add("models", p.algorithm);
    for (const auto& [axis, value] : p.draft_placement) {
      if (axis == "draft_hw") add("hardware", value);
      if (axis == "draft_link") add("links", value);
      if (axis == "system") {
        add("systems", value);
        systems.insert(value);
      }
    }
  }
  // A system's devices name boards of their own (and its draft may too): each board's file, so a
  // resume under an edited board is refused. A system that does not load is the loaders' error
  // later; then every board counts, the hardware folder whole.
  for (const auto& name : systems) {
    try {
      for (const auto& d : models::load_system(reg.path("systems", name), reg).devices)
        if (!d.hardware.source_file.empty()) files.insert(d.hardware.source_file);
    } catch (const std::exception&) {
      whole_hardware = true;
    }
  }
  files.insert(reg.dir() + "/acceptance/aat_measurements.csv");
  const fs::path dir = reg.dir();
  auto name_of = [&](const std::string& path) {
    std::error_code ec;
    const fs::path rel = fs::relative(path, dir, ec);
    return !ec && !rel.empty() && rel.native().rfind("..", 0) != 0 ? rel.generic_string() : path;
  };
  for (const auto& f : files) out += fmt::format("# input {}: {:08x}\n", name_of(f), crc32(file_bytes(f)));
  // Folders the configs name entries of (a board's stack, a system's links and hosts): whole.
  for (const char* folder : {"stacks", "links", "hosts"})
    if (fs::is_directory(dir / folder)) out += fmt::format("# input {}/: {:08x}\n", folder, folder_crc(dir / folder));
  if (whole_hardware && fs::is_directory(dir / "hardware"))
    out += fmt::format("# input hardware/: {:08x}\n", folder_crc(dir / "hardware"));
  return out;
}

std::string sweep_journal_header(const SweepSpec& spec) { return sweep_header(spec) + "," + kChecksumColumn; }

std::string sweep_journal_row(const std::string& row) { return fmt::format("{},{:08x}", row, crc32(row)); }

std::vector<std::string> read_resume_rows(const SweepSpec& spec, const std::string& path,
                                          const std::vector<std::size_t>& indices, std::size_t* keep_bytes,
                                          ResumeFile kind, std::string* dropped, const std::string& fingerprint) {
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
  // The facts the rows were computed under lead the file.
  const auto [found_fp, body] = leading_comment_lines(existing);
  bool unrecorded = false;  // this spec's file without a fingerprint (an older specdse's)
  if (!fingerprint.empty()) {
    // Cut short inside the fingerprint by an interrupted run: written again, nothing kept.
    if (fingerprint.compare(0, existing.size(), existing) == 0) return lines;
    unrecorded = found_fp.empty();
    if (!unrecorded && found_fp != fingerprint) {
      const std::string why = first_difference(found_fp, fingerprint);
      throw models::InputError(fmt::format("{}: its rows were computed under other settings, inputs or build ({}); "
                                           "remove it{} or choose another --out",
                                           path, why.empty() ? "the fingerprint differs" : why,
                                           journal ? "" : " (and " + path + ".partial, if any)"));
    }
  }
  existing = existing.substr(body);
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
  // This spec's file, but nothing says what its rows were computed under: computed again.
  if (unrecorded) {
    if (dropped)
      *dropped = fmt::format("{}: no record of the settings, inputs and build its rows were computed under (an older "
                             "specdse's?): its rows are computed again", path);
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
  if (keep_bytes) *keep_bytes = keep + body;
  return lines;
}

std::string sweep_journal_path(const std::string& out_path) { return sim::resolve_output_path(out_path) + ".partial"; }

bool sweep_journal_exists(const std::string& out_path) {
  const std::string journal = sweep_journal_path(out_path);
  std::error_code ec;
  const auto st = std::filesystem::symlink_status(journal, ec);
  if (!std::filesystem::exists(st)) return false;
  // A FIFO there would block the read for ever, a device stream without end.
  if (!std::filesystem::is_regular_file(st))
    throw models::InputError(fmt::format("{}: its journal {} is {}, not a sweep journal; move it away", out_path,
                                         journal, models::file_kind_words(st)));
  return true;
}

std::size_t merge_sweep_shards(const std::string& out_path, const std::vector<std::string>& shard_paths,
                               const SweepSpec* spec) {
  if (shard_paths.empty()) throw models::InputError("sweep merge: expected at least one shard file, got none");
  // The merged file is none of its shards (writing it would destroy one before it is read).
  std::vector<sim::NamedPath> shards;
  for (const auto& path : shard_paths) shards.push_back({"shard", path});
  sim::check_run_outputs({{"sweep merge", out_path}}, shards);
  std::string header, facts;
  std::map<std::size_t, std::string> rows;  // by point index
  for (const auto& path : shard_paths) {
    // A shard is a file a sweep wrote: a FIFO would block the read, a device stream without end.
    {
      std::error_code ec;
      const auto st = std::filesystem::status(path, ec);
      if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
        throw models::InputError(fmt::format("{}: is {}, expected a sweep shard file", path, models::file_kind_words(st)));
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw models::InputError(fmt::format("{}: cannot read the sweep shard", path));
    std::ostringstream ss;
    ss << in.rdbuf();
    const auto [fp, body] = leading_comment_lines(ss.str());
    const std::string content = ss.str().substr(body);
    // What the shard was computed under, less its shard: the same for every shard.
    std::string shard_facts;
    for (const auto& line : split_lines(fp))
      if (line.rfind("# sweep_shard: ", 0) != 0) shard_facts += line + "\n";
    if (path == shard_paths.front()) {
      facts = shard_facts;
    } else if (shard_facts != facts) {
      throw models::InputError(fmt::format("{}: computed under other settings, inputs or build than {} ({}); merge "
                                           "shards of one run", path, shard_paths.front(),
                                           first_difference(shard_facts, facts, "in this shard", "in the first")));
    }
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
  // The grid the shards were run on: the spec given must be it (its settings and its points), and
  // without one the shards' own record of the grid says how many points make it whole.
  std::size_t n = rows.empty() ? 0 : rows.rbegin()->first + 1;
  if (spec) {
    for (const std::string& line : {sweep_settings_line(*spec), sweep_points_line(*spec)})
      if (facts.find(line) == std::string::npos)
        throw models::InputError(fmt::format("{}: computed under other settings or points than sweep {} (it has '{}')",
                                             shard_paths.front(), spec->path, line.substr(2, line.size() - 3)));
    n = spec->size();
  } else if (const auto at = facts.find("# sweep_points: "); at != std::string::npos) {
    try {
      n = std::size_t(std::stoull(facts.substr(at + 16)));
    } catch (const std::exception&) {
      throw models::InputError(fmt::format("{}: sweep_points: expected a point count", shard_paths.front()));
    }
  }
  std::string out = facts + header + "\n";
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
