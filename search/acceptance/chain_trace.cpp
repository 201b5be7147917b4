#include "search/acceptance/chain_trace.hpp"
#include "models/input_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "models/config_error.hpp"

namespace search {

using models::InputError;

std::uint64_t SplitMix64::next() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double SplitMix64::uniform() { return double(next() >> 11) * 0x1.0p-53; }

double ChainTrace::mean_matched() const {
  if (iterations.empty()) return 0;
  double s = 0;
  for (const auto& it : iterations) s += it.matched;
  return s / double(iterations.size());
}

namespace {
int parse_small_int(const std::string& source, int line_no, const std::string& word,
                    const char* what) {
  std::size_t used = 0;
  long v = -1;
  try {
    v = std::stol(word, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != word.size() || v < 0 || v > 1000000)
    throw InputError(fmt::format("{}: line {}: expected {}, got '{}'", source, line_no, what, word));
  return int(v);
}
}  // namespace

ChainTrace parse_chain_trace(const std::string& text, const std::string& source) {
  ChainTrace trace;
  trace.source = source;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto hash = line.find('#');
    const bool comment_only = hash != std::string::npos &&
                              line.find_first_not_of(" \t") == hash;
    if (comment_only) continue;
    if (hash != std::string::npos) line.erase(hash);
    const auto bar = line.find('|');
    std::istringstream path_in(line.substr(0, bar));
    ChainIteration it;
    int path_length = 0;
    bool leading = true;
    std::string word;
    while (path_in >> word) {
      const int rank = parse_small_int(source, line_no, word, "a rank >= 0");
      ++path_length;
      if (rank != 0) leading = false;
      if (leading) ++it.matched;
    }
    if (bar != std::string::npos) {
      std::istringstream flags_in(line.substr(bar + 1));
      std::vector<int> flags;
      while (flags_in >> word) {
        const int f = parse_small_int(source, line_no, word, "a cache flag 0 or 1");
        if (f > 1)
          throw InputError(fmt::format("{}: line {}: expected a cache flag 0 or 1, got '{}'", source, line_no, word));
        flags.push_back(f);
      }
      if (int(flags.size()) != path_length)
        throw InputError(fmt::format("{}: line {}: expected one cache flag per path token ({}), got {}",
                                     source, line_no, path_length, flags.size()));
      flags.resize(std::size_t(it.matched));
      it.cached = std::move(flags);
      trace.has_cache_flags = true;
    } else if (trace.has_cache_flags && it.matched > 0) {
      throw InputError(fmt::format("{}: line {}: expected cache flags ('| f1 f2 ..') like the lines before, got none",
                                   source, line_no));
    }
    trace.iterations.push_back(std::move(it));
  }
  if (trace.iterations.empty())
    throw InputError(fmt::format("{}: trace: expected at least one iteration line, got none", source));
  if (trace.has_cache_flags)
    for (std::size_t i = 0; i < trace.iterations.size(); ++i)
      if (trace.iterations[i].matched > 0 && trace.iterations[i].cached.empty())
        throw InputError(fmt::format("{}: trace: expected cache flags on every line with matches, "
                                     "iteration {} has none", source, i + 1));
  return trace;
}

ChainTrace read_chain_trace(const std::string& path) {
  std::ifstream in = models::open_input_file(path, "trace", true);
  if (!in) throw InputError(fmt::format("{}: trace: expected a readable trace file, got none", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_chain_trace(ss.str(), path);
}

std::string format_chain_trace(const ChainTrace& trace, const std::string& header_comment) {
  std::string out;
  if (!header_comment.empty()) out += "# " + header_comment + "\n";
  for (const auto& it : trace.iterations) {
    std::string line;
    for (int i = 0; i < it.matched; ++i) line += i ? " 0" : "0";
    if (trace.has_cache_flags && it.matched > 0) {
      line += " |";
      for (int f : it.cached) line += f ? " 1" : " 0";
    }
    out += line + "\n";
  }
  return out;
}

std::vector<ChainSegment> parse_chain_segments(const std::string& option, const std::string& spec) {
  std::vector<ChainSegment> segments;
  std::istringstream in(spec);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::vector<std::string> parts;
    std::istringstream pin(item);
    std::string p;
    while (std::getline(pin, p, ':')) parts.push_back(p);
    auto bad = [&] {
      return InputError(fmt::format(
          "{}: expected ITERATIONS:ACCURACY[:CACHE_HIT_PROBABILITY] items with 0 < accuracy < 1, got '{}'",
          option, item));
    };
    if (parts.size() < 2 || parts.size() > 3) throw bad();
    ChainSegment s;
    try {
      std::size_t u1 = 0, u2 = 0, u3 = 0;
      s.iterations = std::stoll(parts[0], &u1);
      s.accuracy = std::stod(parts[1], &u2);
      s.cache_hit_probability = parts.size() == 3 ? std::stod(parts[2], &u3) : s.accuracy;
      if (u1 != parts[0].size() || u2 != parts[1].size() || (parts.size() == 3 && u3 != parts[2].size()))
        throw bad();
    } catch (const InputError&) {
      throw;
    } catch (const std::exception&) {
      throw bad();
    }
    if (s.iterations < 1 || s.iterations > 100000000 || !(s.accuracy > 0 && s.accuracy < 1) ||
        !(s.cache_hit_probability >= 0 && s.cache_hit_probability <= 1))
      throw bad();
    segments.push_back(s);
  }
  if (segments.empty()) throw InputError(fmt::format("{}: expected at least one segment, got '{}'", option, spec));
  return segments;
}

ChainTrace generate_chain_trace(const std::vector<ChainSegment>& segments, std::uint64_t seed) {
  SplitMix64 rng(seed);
  ChainTrace trace;
  trace.source = "synthetic";
  trace.has_cache_flags = true;
  for (const auto& s : segments) {
    for (long long i = 0; i < s.iterations; ++i) {
      ChainIteration it;
      // Untruncated geometric: keep matching while the draft's token is accepted. The cap only
      // guards against a pathological loop (a^1000 is below 1e-45 for a <= 0.9).
      while (it.matched < 100000 && rng.uniform() < s.accuracy) {
        ++it.matched;
        it.cached.push_back(rng.uniform() < s.cache_hit_probability ? 1 : 0);
      }
      trace.iterations.push_back(std::move(it));
    }
  }
  return trace;
}

}  // namespace search
