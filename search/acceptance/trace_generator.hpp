#pragma once
// Seeded synthetic acceptance traces from a positional model: at every accepted node, its
// k-th ranked child is accepted with probability p_k (at most one child is accepted, so
// sum_k p_k <= 1), optionally scaled by decay^(depth - 1) for a child at depth `depth`, and
// optionally drifting over time from `acceptance` to `drift_to` (linearly over the trace, or
// back and forth with a period). Used by tests, examples and the window-policy replays.
//
// The random stream is std::mt19937_64 turned into doubles by a fixed formula (not
// std::uniform_real_distribution, whose algorithm differs between standard libraries), so the
// same model and seed give the same trace everywhere.
#include <functional>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "search/acceptance/trace.hpp"

namespace search {

struct PositionalModel {
  std::vector<double> acceptance;  // p_k for rank k = 0, 1, ...; each in [0, 1], sum <= 1
  double depth_decay = 1.0;        // p_k at depth d (1-based) is p_k * depth_decay^(d - 1); in (0, 1]
  std::vector<double> drift_to;    // empty: no drift; else same length as `acceptance`
  std::int64_t drift_period_lines = 0;  // 0: linear drift over the whole trace; > 0: triangle wave
  int max_depth = 64;              // accepted paths are cut at this depth (>= 1)

  // Throws models::InputError naming `source` and the offending field.
  void validate(const std::string& source = "positional model") const;
  // Acceptance vector at iteration `line` of a trace of `total_lines` (drift applied).
  std::vector<double> acceptance_at(std::int64_t line, std::int64_t total_lines) const;
  // Probability that the node `path` is on the accepted path (product of its ranks' p at their
  // depths, without drift): the positional model's prior score of the node.
  double path_probability(const RankPath& path) const;
  // Expected accepted draft tokens along a path per iteration = E[longest accepted prefix] for
  // the infinite tree (without drift, up to max_depth).
  double expected_accepted_length() const;
};

// "0.6,0.1,0.05" -> {0.6, 0.1, 0.05}; errors name `option`.
std::vector<double> parse_acceptance_vector(const std::string& option, const std::string& text);

class TraceGenerator {
 public:
  // total_lines is needed only for linear drift (to know where the trace ends).
  TraceGenerator(PositionalModel model, std::uint64_t seed, std::int64_t total_lines = 0);

  // The next iteration's accepted rank path.
  void next(RankPath& accepted);
  RankPath next() {
    RankPath p;
    next(p);
    return p;
  }
  std::int64_t lines_generated() const { return line_; }
  const PositionalModel& model() const { return model_; }

 private:
  double uniform();  // [0, 1)
  PositionalModel model_;
  std::mt19937_64 rng_;
  std::int64_t total_lines_;
  std::int64_t line_ = 0;
  std::vector<double> current_;     // acceptance vector in force (drift updates it)
  std::vector<double> depth_scale_; // depth_decay^(d - 1) for d = 1..max_depth
};

// Writes `lines` iterations (with a '#' header naming the model and seed) to `out`.
// `on_path`, when given, sees each path as it is written (a summary without reading the file back).
void write_synthetic_trace(std::ostream& out, const PositionalModel& model, std::uint64_t seed,
                           std::int64_t lines, const std::function<void(const RankPath&)>& on_path = nullptr);

}  // namespace search
