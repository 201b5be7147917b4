#pragma once
// The acceptance source of the DuoDecoding scenario: one record per position of the text the
// target produces, in order (search/acceptance/probability_trace.hpp): was the draft's top-1
// token accepted there, which rank the target's token had among the draft's candidates, and
// (when known) the draft's top-k probabilities. Every produced token consumes one record, so
// AD, SpS and DuoDecoding replayed from the same stream see the same text; drafts built on a
// prefix that is later rejected consume nothing (they are never verified).
//
// Sources: a probability trace (file), a chain / tree acceptance trace (DESIGN.md contract 3:
// each path element r becomes a record with rank r, accepted when r = 0, and the end of the line
// a rejection with rank -1; no probabilities), or the calibrated seeded generator of
// probability_trace.hpp (endless, mean acceptance alpha).
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "search/acceptance/acceptance_process.hpp"
#include "search/acceptance/chain_trace.hpp"
#include "search/acceptance/probability_trace.hpp"

namespace search::duodecoding {

class PositionStream {
 public:
  // A finite stream over recorded positions.
  static PositionStream from_positions(std::vector<ProbabilityPosition> positions, bool has_probabilities,
                                       std::string source);
  // The endless calibrated generator (probability_trace.hpp) with mean acceptance alpha.
  static PositionStream calibrated(double alpha, int top_k, std::uint64_t seed);
  // The endless acceptance process (acceptance_process.hpp) drawn position by position at depth
  // 1 (DuoDecoding's positions are read along the text, not per draft depth).
  static PositionStream from_process(const AcceptanceProcess& process, int top_k, std::uint64_t seed);

  // The record `ahead` positions past the cursor (0: the next one), or null past the end.
  const ProbabilityPosition* peek(std::size_t ahead);
  // Consumes the next record; false at the end.
  bool next(ProbabilityPosition& out);
  long long consumed() const { return consumed_; }

  bool has_probabilities() const { return has_probabilities_; }
  bool endless() const { return generated_; }
  const std::string& source() const { return source_; }
  // Per-token acceptance the stream was built with (alpha) or measured on (a trace's rate): the
  // accuracy SpS's window choice uses (paper 001 objective (1)).
  double acceptance_estimate() const { return acceptance_estimate_; }

 private:
  std::string source_;
  bool has_probabilities_ = false;
  bool generated_ = false;
  double acceptance_estimate_ = 0;
  // Finite: shared records and a cursor (copies replay independently).
  std::shared_ptr<const std::vector<ProbabilityPosition>> records_;
  std::size_t cursor_ = 0;
  // Endless: the generator's state and the records drawn but not yet consumed.
  double alpha_ = 0;
  int top_k_ = 0;
  SplitMix64 rng_{0};
  std::optional<AcceptanceSampler> sampler_;  // set: draws come from the process (copied by value so that copies replay)
  std::deque<ProbabilityPosition> ahead_;
  long long consumed_ = 0;
};

// Records of a chain / tree acceptance trace file (see above).
PositionStream chain_trace_stream(const std::string& path);
// A probability trace or a chain trace, told apart by the probability-trace header line.
PositionStream acceptance_stream_from_file(const std::string& path);

}  // namespace search::duodecoding
