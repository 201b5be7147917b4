// DuoDecoding's logical side (paper 003): the multi-sequence rule on hand-made probabilities,
// the probability-trace format and its calibrated generator, and the iteration plans of
// DuoDecoding / SpS / AD over hand-made acceptance streams.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <numeric>

#include "models/config_error.hpp"
#include "search/acceptance/chain_trace.hpp"
#include "search/acceptance/probability_trace.hpp"
#include "search/scenarios/duodecoding/duo_plan.hpp"
#include "search/scenarios/duodecoding/position_stream.hpp"
#include "search/scenarios/duodecoding/sequence_rule.hpp"

using namespace search;
using namespace search::duodecoding;

namespace {

ProbabilityPosition pos(bool accepted, int rank, std::vector<double> probs = {0.6, 0.2}) {
  ProbabilityPosition p;
  p.accepted = accepted;
  p.rank = rank;
  p.top_probs = std::move(probs);
  return p;
}

PositionStream stream_of(std::vector<ProbabilityPosition> v) {
  return PositionStream::from_positions(std::move(v), true, "hand-made");
}

}  // namespace

TEST_CASE("Dynamic multi-sequence rule: first-position tokens above p(1,1) * p(2,1) open sequences") {
  // theta = 0.5 * 0.5 = 0.25: 0.5 and 0.3 exceed it, 0.15 and 0.05 do not.
  CHECK(dynamic_sequence_count({0.5, 0.3, 0.15, 0.05}, 0.5, 8) == 2);
  // A confident draft: theta = 0.81, only its best token.
  CHECK(dynamic_sequence_count({0.9, 0.05, 0.03}, 0.9, 8) == 1);
  // An unsure second position lowers theta to 0.08: all four candidates, unless capped.
  CHECK(dynamic_sequence_count({0.4, 0.3, 0.2, 0.1}, 0.2, 8) == 4);
  CHECK(dynamic_sequence_count({0.4, 0.3, 0.2, 0.1}, 0.2, 3) == 3);
  // Strictly above: a candidate equal to theta does not open a sequence.
  CHECK(dynamic_sequence_count({0.5, 0.25}, 0.5, 8) == 1);
  // p(2,1) = 1 puts theta at p(1,1): still the best sequence.
  CHECK(dynamic_sequence_count({0.7, 0.2}, 1.0, 8) == 1);
  CHECK(sequence_threshold(0.6, 0.5) == Approx(0.3));
  CHECK_THROWS_AS(dynamic_sequence_count({}, 0.5, 4), models::InputError);
}

TEST_CASE("Sequences share the budget: one pass gives every first token, later passes extend them best first") {
  for (int budget : {1, 2, 5, 21, 24})
    for (int n : {1, 2, 3, 4}) {
      const auto len = sequence_lengths(budget, n);
      REQUIRE(int(len.size()) == n);
      CHECK(std::accumulate(len.begin(), len.end(), 0) == budget + n - 1);
      CHECK(*std::max_element(len.begin(), len.end()) - *std::min_element(len.begin(), len.end()) <= 1);
      CHECK(std::is_sorted(len.rbegin(), len.rend()));  // the best sequence is never shorter
    }
  CHECK(sequence_lengths(24, 1) == std::vector<int>{24});
  CHECK_THROWS_AS(sequence_lengths(0, 1), models::InputError);
}

TEST_CASE("Probability traces round-trip and reject malformed lines with file and line") {
  ProbabilityTrace t;
  t.positions = {pos(true, 0, {0.75, 0.125, 0.0625}), pos(false, 2, {0.5, 0.25, 0.125}), pos(false, -1, {0.4, 0.3})};
  const std::string text = format_probability_trace(t, "hand-made");
  const ProbabilityTrace back = parse_probability_trace(text, "mem");
  REQUIRE(back.positions.size() == 3);
  CHECK(back.positions[1].rank == 2);
  CHECK(back.positions[0].top_probs == t.positions[0].top_probs);
  CHECK(back.acceptance_rate() == Approx(1.0 / 3));
  const std::string h = std::string(kProbabilityTraceHeader) + "\n";
  auto err = [&](const std::string& body) {
    try {
      parse_probability_trace(h + body, "f.txt");
    } catch (const models::InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(err("1 0 0.5 0.2\n1 1 0.5 0.2\n"), Catch::Contains("f.txt: line 3"));  // accepted needs rank 0
  CHECK_THAT(err("0 0 0.5 0.2\n"), Catch::Contains("RANK != 0"));
  CHECK_THAT(err("0 1 0.2 0.5\n"), Catch::Contains("non-increasing"));
  CHECK_THAT(err("0 1 0.7 0.6\n"), Catch::Contains("summing to at most 1"));
  CHECK_THAT(err("0 3 0.5 0.2\n"), Catch::Contains("RANK < 2"));
  CHECK_THAT(err("1 0 0.5\n"), Catch::Contains("ACCEPTED RANK P1 P2"));
  CHECK_THROWS_AS(parse_probability_trace("1 0 0.5 0.2\n", "nohdr"), models::InputError);
  CHECK_THROWS_AS(parse_probability_trace(h, "empty"), models::InputError);
}

TEST_CASE("The calibrated generator accepts with probability p1 and has mean acceptance alpha") {
  for (double alpha : {0.435, 0.8}) {
    ProbabilityGeneratorOptions o;
    o.alpha = alpha;
    o.positions = 200000;
    o.seed = 11;
    const auto t = generate_probability_trace(o);
    // Binomial standard error at 200k positions is ~0.0011; 0.006 is over 5 of them.
    CHECK(t.acceptance_rate() == Approx(alpha).margin(0.006));
    // Calibration: within a p1 bin the acceptance rate is the bin's mean p1.
    // Bins with fewer than 1000 positions are skipped (standard error above 0.016).
    int bins = 0;
    for (double lo : {0.1, 0.4, 0.7, 0.85}) {
      double sum_p = 0, acc = 0, n = 0;
      for (const auto& p : t.positions)
        if (p.top_probs[0] >= lo && p.top_probs[0] < lo + 0.1) sum_p += p.top_probs[0], acc += p.accepted, n += 1;
      if (n < 1000) continue;
      ++bins;
      CHECK(acc / n == Approx(sum_p / n).margin(0.03));
    }
    CHECK(bins >= 3);
    for (const auto& p : t.positions) {
      REQUIRE(std::is_sorted(p.top_probs.rbegin(), p.top_probs.rend()));
      REQUIRE(std::accumulate(p.top_probs.begin(), p.top_probs.end(), 0.0) <= 1.0 + 1e-12);
      REQUIRE((p.accepted == (p.rank == 0)));
    }
  }
  // Same seed, same trace (byte for byte once formatted); another seed differs.
  ProbabilityGeneratorOptions o;
  o.positions = 500;
  const auto a = format_probability_trace(generate_probability_trace(o), "");
  CHECK(a == format_probability_trace(generate_probability_trace(o), ""));
  o.seed = 2;
  CHECK(a != format_probability_trace(generate_probability_trace(o), ""));
}

TEST_CASE("DuoDecoding plan: pending tokens verified first, a rejection restarts both sides") {
  SequencePolicy one;
  SECTION("every draft token accepted: after the first iteration each verifies the whole budget") {
    std::vector<ProbabilityPosition> all(200, pos(true, 0));
    const Plan p = plan_duo(stream_of(all), 5, one, 50);
    REQUIRE(p.iterations.size() >= 3);
    CHECK(p.iterations[0].x == 1);
    CHECK(p.iterations[0].gained == 1);
    for (std::size_t i = 1; i < p.iterations.size(); ++i) {
      CHECK(p.iterations[i].x == 5);       // the previous draft's 4 pending tokens + the last token
      CHECK(p.iterations[i].gained == 5);  // 4 pending + the new draft's first token
    }
  }
  SECTION("no draft token accepted: one token per iteration, the target never sees pending tokens") {
    std::vector<ProbabilityPosition> none(100, pos(false, -1));
    const Plan p = plan_duo(stream_of(none), 8, one, 40);
    CHECK(p.iterations.size() == 40);
    for (const auto& it : p.iterations) CHECK((it.x == 1 && it.gained == 1 && it.draft_passes == 8));
  }
  SECTION("a rejection among the pending tokens appends the resampled token and restarts") {
    // First draft token accepted (pending 3), then 1 accepted, 1 rejected.
    std::vector<ProbabilityPosition> v{pos(true, 0), pos(true, 0), pos(false, -1)};
    v.resize(60, pos(false, -1));
    const Plan p = plan_duo(stream_of(v), 4, one, 5);
    CHECK(p.iterations[1].x == 4);
    CHECK(p.iterations[1].gained == 2);  // the accepted one and the resampled one
    CHECK(p.iterations[2].x == 1);       // restart from the verified prefix
  }
  SECTION("a second sequence catches the target's rank-1 token") {
    SequencePolicy two;
    two.static_sequences = 2;
    std::vector<ProbabilityPosition> v{pos(false, 1)};
    v.resize(60, pos(true, 0));
    const Plan p = plan_duo(stream_of(v), 7, two, 20);
    // Budget 7 over 2 sequences: 2 first tokens + 6 passes = lengths 4 and 4, so the rank-1
    // sequence leaves 3 pending.
    CHECK(p.iterations[1].x == 4);
    CHECK(p.iterations[0].draft_tokens == 8);
    CHECK(p.confusion[0][1] == 1);  // top-1 rejected, more than one sequence
  }
  SECTION("every appended token consumes exactly one position of the text") {
    for (double alpha : {0.3, 0.9}) {
      auto s = PositionStream::calibrated(alpha, 4, 3);
      SequencePolicy dyn;
      dyn.dynamic = true;
      for (const Plan& p : {plan_duo(s, 12, dyn, 3000), plan_sps(s, 4, 3000)}) {
        long long gained = 0;
        for (const auto& it : p.iterations) gained += it.gained;
        CHECK(gained == p.tokens);
        PositionStream replay = s;
        // Replaying the consumed count leaves the same stream position as the plan's: the plan
        // consumed p.tokens records (checked through a fresh copy's cursor).
        ProbabilityPosition r;
        for (long long i = 0; i < p.tokens; ++i) REQUIRE(replay.next(r));
        CHECK(replay.consumed() == p.tokens);
      }
    }
  }
  CHECK_THROWS_AS(plan_duo(stream_of({pos(true, 0)}), 0, one, 5), models::InputError);
}

TEST_CASE("SpS plan: accepted tokens plus one per iteration, bonus when the whole window holds") {
  std::vector<ProbabilityPosition> all(100, pos(true, 0));
  const Plan p = plan_sps(stream_of(all), 4, 20);
  for (const auto& it : p.iterations) CHECK((it.x == 5 && it.gained == 5));
  std::vector<ProbabilityPosition> v{pos(true, 0), pos(false, 1)};
  v.resize(50, pos(false, -1));
  const Plan q = plan_sps(stream_of(v), 4, 3);
  CHECK(q.iterations[0].gained == 2);
  const Plan ad = plan_ad(7);
  CHECK(ad.iterations.size() == 7);
  CHECK(ad.tokens == 7);
}

TEST_CASE("A chain trace replays as positions: path ranks, then a rejection at the end of each line") {
  const std::string path = "duo_chain_trace_test.txt";
  {
    std::ofstream f(path);
    f << "# test\n0 0\n\n0 2\n";
  }
  auto s = chain_trace_stream(path);
  std::remove(path.c_str());
  std::vector<int> ranks;
  ProbabilityPosition r;
  while (s.next(r)) ranks.push_back(r.rank);
  CHECK(ranks == std::vector<int>{0, 0, -1, -1, 0, 2, -1});
  CHECK_FALSE(s.has_probabilities());
  SequencePolicy dyn;
  dyn.dynamic = true;
  CHECK_THROWS_WITH(plan_duo(s, 4, dyn, 10), Catch::Contains("no draft probabilities"));
  // A finite trace ends the run instead of inventing positions.
  const Plan p = plan_duo(s, 2, SequencePolicy{}, 1000);
  CHECK(p.source_exhausted);
  CHECK(p.tokens <= 7);
}
