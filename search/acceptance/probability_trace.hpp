#pragma once
// Probability traces: per drafted position, whether the target accepted the draft's token, the
// rank of the target's token among the draft's candidates, and the draft's own top-k
// probabilities at that position. Chain traces (DESIGN.md contract 3) say how far the draft's
// top-1 chain matched; they carry no draft confidence, which DuoDecoding's dynamic
// multi-sequence rule (paper 003 §3.2) needs. This format adds it.
//
// Format (text, one drafted position per line, in generation order along the text the target
// produced; '#' starts a comment to the end of the line):
//
//   # specdse probability-trace v1        <- required first line (identifies the format)
//   ACCEPTED RANK P1 P2 [P3 ...]
//
//   ACCEPTED  1 if the draft's top-1 token at this position was accepted, else 0.
//   RANK      rank (0-based) of the target's token among the draft's candidates at this
//             position, in the draft's probability order; -1 when it is not among the
//             candidates whose probabilities are listed. ACCEPTED = 1 requires RANK = 0 (a
//             greedy draft proposes its top-1 token); ACCEPTED = 0 requires RANK != 0.
//   P1 P2 ..  the draft's probabilities of its k >= 2 best tokens, non-increasing, each in
//             [0, 1], summing to at most 1.
//
// Positions follow the text the target produced, so a trace can be replayed under any draft
// window: a window simply reads as many consecutive positions as it drafts. A position's
// successor is the next line.
#include <cstdint>
#include <string>
#include <vector>

namespace search {

struct ProbabilityPosition {
  bool accepted = false;
  int rank = -1;                 // target token's rank among the draft candidates, -1: not listed
  std::vector<double> top_probs; // draft's top-k probabilities, k >= 2, non-increasing
};

struct ProbabilityTrace {
  std::string source;  // file name or "synthetic"
  std::vector<ProbabilityPosition> positions;
  double acceptance_rate() const;  // fraction of positions accepted
};

// The first line of every probability trace.
extern const char* const kProbabilityTraceHeader;

// True when `text` starts with the probability-trace header line.
bool is_probability_trace_text(const std::string& text);
// Throws models::InputError naming the source and line on a malformed line, a missing header
// and a trace with no positions.
ProbabilityTrace parse_probability_trace(const std::string& text, const std::string& source);
ProbabilityTrace read_probability_trace(const std::string& path);
// Writes the format above (probabilities with 6 significant digits); `comment` lines become
// '#' lines after the header.
std::string format_probability_trace(const ProbabilityTrace& trace, const std::string& comment);

// A seeded synthetic trace whose draft is *calibrated*: at every position the top-1
// probability p1 is drawn first and the draft's token is accepted with probability exactly p1,
// which is the assumption paper 003 §3.2 makes when it uses draft probabilities as a proxy for
// acceptance. p1 = U^((1 - alpha) / alpha) with U uniform on [0, 1): a Beta(alpha / (1 - alpha), 1)
// variable whose mean is alpha, so the expected acceptance rate is alpha. The other listed
// probabilities break the remaining mass by uniform stick-breaking (p_j = U_j * (1 - sum of the
// previous)), capped to stay non-increasing. On a rejection the target's token is rank j >= 1
// with probability p_j / (1 - p1) (calibrated again) and unlisted (-1) with the rest.
struct ProbabilityGeneratorOptions {
  double alpha = 0.7;       // mean acceptance, in (0, 1)
  int top_k = 4;            // probabilities listed per position (>= 2)
  long long positions = 10000;
  std::uint64_t seed = 1;
};
ProbabilityTrace generate_probability_trace(const ProbabilityGeneratorOptions& options);

// One calibrated position from the generator above; `uniform` returns numbers in [0, 1).
class SplitMix64;
ProbabilityPosition draw_calibrated_position(double alpha, int top_k, SplitMix64& rng);

}  // namespace search
