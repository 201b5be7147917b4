#pragma once
// A serving workload preset (configs/serving/NAME.yaml, written by
// scripts/derive_serving_workload.py from measured per-request traces): the prompt and output
// length distributions as quantile tables, and per drafting method the per-position yield of a
// speculative step (accepted + bonus tokens with an unbounded draft) as a first-order Markov
// chain over consecutive output positions. Every request of a simulated run draws its lengths
// and its yields from it (serving_simulation.hpp).
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace search::serving {

// A position-level Markov chain of yields 1..N (N = marginal.size(); yield N stands for N or more).
struct YieldChain {
  std::vector<double> first;                     // the first decode position's yield
  std::vector<double> marginal;                  // over every position (for checks and docs)
  std::vector<std::vector<double>> transitions;  // row y-1: the next position's yield given y
  double mean_yield = 0;                         // measured, uncapped (for checks)
  // n-gram: a position of yield 1 proposed a draft (and verified it) with this probability,
  // else nothing (the step verifies one token); 1 for a drafter that always proposes.
  double match_probability = 1;
  // The draft tokens a step proposed when the yields were measured (0: an unbounded draft, whose
  // yields hold for any chain); a chain of more draft tokens is refused.
  int measured_draft_tokens = 0;
};

struct ServingWorkload {
  std::string name, source, target, file;
  int requests = 0;  // requests the statistics were measured on
  std::vector<double> quantiles;                  // levels in [0, 1], ascending, 0 and 1 included
  std::vector<double> prompt_tokens, output_tokens;  // the length at each level
  std::map<std::string, YieldChain> acceptance;   // by method: "eagle3", "ngram"
};

// A preset by name (configs/serving/NAME.yaml) or path; InputError naming the file and key for a
// bad one (lists of the wrong length, probabilities that do not sum to 1, unknown keys).
ServingWorkload load_serving_workload(const std::string& name_or_path, const std::string& config_dir);

// The length at level u in [0, 1) by linear interpolation of the quantile table, at least 1.
long long sample_length(const std::vector<double>& quantiles, const std::vector<double>& lengths, double u);

// A uniform draw in [0, 1) from 53 bits of the generator: the same sequence on every platform
// (std::uniform_real_distribution's is implementation-defined).
inline double uniform01(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }

// An index drawn from discrete probabilities `p` (summing to 1) with one uniform draw.
int draw_index(const std::vector<double>& p, double u);

}  // namespace search::serving
