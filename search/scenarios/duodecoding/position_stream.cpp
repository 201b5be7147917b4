#include "search/scenarios/duodecoding/position_stream.hpp"
#include "models/input_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "models/config_error.hpp"
#include "search/acceptance/trace.hpp"

namespace search::duodecoding {

PositionStream PositionStream::from_positions(std::vector<ProbabilityPosition> positions, bool has_probabilities,
                                              std::string source) {
  if (positions.empty()) throw models::InputError(fmt::format("{}: expected at least one position, got none", source));
  PositionStream s;
  s.source_ = std::move(source);
  s.has_probabilities_ = has_probabilities;
  std::size_t accepted = 0;
  for (const auto& p : positions) accepted += p.accepted ? 1 : 0;
  s.acceptance_estimate_ = double(accepted) / double(positions.size());
  s.records_ = std::make_shared<const std::vector<ProbabilityPosition>>(std::move(positions));
  return s;
}

PositionStream PositionStream::calibrated(double alpha, int top_k, std::uint64_t seed) {
  if (!(alpha > 0.0 && alpha < 1.0))
    throw models::InputError(fmt::format("--alpha: expected a per-token acceptance in (0, 1), got {}", alpha));
  if (top_k < 2) throw models::InputError(fmt::format("top_k: expected >= 2, got {}", top_k));
  PositionStream s;
  s.source_ = fmt::format("calibrated generator alpha={} seed={}", alpha, seed);
  s.has_probabilities_ = true;
  s.generated_ = true;
  s.alpha_ = alpha;
  s.top_k_ = top_k;
  s.rng_ = SplitMix64(seed);
  s.acceptance_estimate_ = alpha;
  return s;
}

PositionStream PositionStream::from_process(const AcceptanceProcess& process, int top_k, std::uint64_t seed) {
  PositionStream s;
  s.source_ = fmt::format("acceptance process ({}) seed={}", process.params().describe(), seed);
  s.has_probabilities_ = true;
  s.generated_ = true;
  s.top_k_ = top_k;
  s.sampler_.emplace(process, top_k, seed);
  s.acceptance_estimate_ = process.mean_acceptance();
  return s;
}

const ProbabilityPosition* PositionStream::peek(std::size_t ahead) {
  if (generated_) {
    while (ahead_.size() <= ahead)
      ahead_.push_back(sampler_ ? sampler_->next() : draw_calibrated_position(alpha_, top_k_, rng_));
    return &ahead_[ahead];
  }
  const std::size_t i = cursor_ + ahead;
  return i < records_->size() ? &(*records_)[i] : nullptr;
}

bool PositionStream::next(ProbabilityPosition& out) {
  const ProbabilityPosition* p = peek(0);
  if (!p) return false;
  out = *p;
  if (generated_)
    ahead_.pop_front();
  else
    ++cursor_;
  ++consumed_;
  return true;
}

PositionStream chain_trace_stream(const std::string& path) {
  std::vector<ProbabilityPosition> records;
  RankPath accepted;
  TraceReader reader(path);
  while (reader.next(accepted)) {
    for (int r : accepted) {
      ProbabilityPosition p;
      p.accepted = r == 0;
      p.rank = r;
      records.push_back(p);
    }
    // The line ends at the first position the draft did not cover (the trace is untruncated,
    // chain_trace.hpp): a rejection whose target token is not among the recorded candidates.
    ProbabilityPosition miss;
    miss.accepted = false;
    miss.rank = -1;
    records.push_back(miss);
  }
  return PositionStream::from_positions(std::move(records), false, path);
}

PositionStream acceptance_stream_from_file(const std::string& path) {
  std::ifstream in = models::open_input_file(path, "acceptance trace");
  if (!in) throw models::InputError(fmt::format("{}: cannot open the acceptance trace", path));
  std::ostringstream s;
  s << in.rdbuf();
  const std::string text = s.str();
  if (is_probability_trace_text(text)) {
    ProbabilityTrace t = parse_probability_trace(text, path);
    return PositionStream::from_positions(std::move(t.positions), true, path);
  }
  return chain_trace_stream(path);
}

}  // namespace search::duodecoding
