#pragma once
// Chain acceptance traces (DESIGN.md trace format, read for a chain draft): one draft-verify
// iteration per line, the accepted rank path; `#` starts a comment. For a chain draft only the
// leading zeros matter: a line of k zeros means the draft's top-1 token matched the target k
// times before the first mismatch, *untruncated* (recorded with a window large enough never to
// cut it off), so the trace can be replayed under any window gamma: accepted = min(k, gamma).
// A path with a non-zero rank counts the zeros before it. Optionally `| f1 f2 ..` after the path
// gives, per path token, 1 if that token already occurred in the prompt or output (the token
// cache of paper 001's cache-enabled FSM).
#include <cstdint>
#include <string>
#include <vector>

namespace search {

struct ChainIteration {
  int matched = 0;          // k: top-1 matches before the first mismatch
  std::vector<int> cached;  // per matched token: 1 if already in the cache (empty without flags)
};

struct ChainTrace {
  std::string source;  // file name or "synthetic"
  std::vector<ChainIteration> iterations;
  bool has_cache_flags = false;
  double mean_matched() const;
};

// Throws models::InputError naming the file and line on a malformed line, and on a trace with
// no iterations.
ChainTrace read_chain_trace(const std::string& path);
ChainTrace parse_chain_trace(const std::string& text, const std::string& source);
std::string format_chain_trace(const ChainTrace& trace, const std::string& header_comment);

// A stretch of iterations with fixed token accuracy: k ~ Geometric (P(k) = a^k (1 - a)), and
// each matched token is a cache hit with probability cache_hit_probability.
struct ChainSegment {
  long long iterations = 0;
  double accuracy = 0.5;
  double cache_hit_probability = 0.5;
};
// "2000:0.9,2000:0.5" or with cache-hit probabilities "2000:0.9:0.8,2000:0.5:0.3" (default: the
// accuracy). Errors name `option`.
std::vector<ChainSegment> parse_chain_segments(const std::string& option, const std::string& spec);
// Deterministic for a seed (own uniform/geometric sampling, not std:: distributions, whose
// output differs between standard libraries).
ChainTrace generate_chain_trace(const std::vector<ChainSegment>& segments, std::uint64_t seed);

// A small deterministic generator shared by the synthetic trace and Q-learning exploration.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  double uniform();  // [0, 1)
 private:
  std::uint64_t state_;
};

}  // namespace search
