// SpecPipe's plans beyond the single greedy request (search/scenarios/specpipe): relaxed and top-p
// verification (paper 002 §3.4), ranks replayed from a probability trace, SpecPipe-DB's packed
// requests, multi-batch pipeline parallelism, and EAGLE-3 in the pipeline (its feature payload
// and its acceptance draws) - all without a latency model.
#include <catch2/catch.hpp>

#include "models/config_registry.hpp"

#include <cmath>
#include <numeric>
#include <random>

#include "models/config_error.hpp"
#include "search/trees/positional_trees.hpp"
#include "search/scenarios/specpipe/eagle_pipeline.hpp"
#include "search/scenarios/specpipe/hit_curve.hpp"
#include "search/scenarios/specpipe/pipeline_plan.hpp"
#include "search/scenarios/specpipe/speculative_tree.hpp"

namespace sp = search::specpipe;

namespace {
sp::HitCurve curve_1b() {
  return sp::fit_hit_curves(sp::load_hit_points(std::string(SPECDSE_CONFIG_DIR) + "/acceptance/specpipe_hit_points.csv"))
      .curve("llama-3.2-1b");
}

sp::SpecPipeParams params(int w, int k, long long tokens, sp::Verification v = sp::Verification::greedy) {
  sp::SpecPipeParams p;
  p.stages = 8;
  p.width = w;
  p.candidates = k;
  p.tokens = tokens;
  p.verification = v;
  return p;
}

// A probability trace whose every position has the target's token at `rank` (0-based, -1: unlisted).
search::ProbabilityTrace uniform_trace(int rank, int listed, long long positions) {
  search::ProbabilityTrace t;
  t.source = "test trace";
  for (long long i = 0; i < positions; ++i) {
    search::ProbabilityPosition p;
    p.accepted = rank == 0;
    p.rank = rank;
    for (int j = 0; j < listed; ++j) p.top_probs.push_back(0.5 / (j + 1) / 2.0);
    t.positions.push_back(p);
  }
  return t;
}
}  // namespace

TEST_CASE("specpipe verification: relaxed never stalls while levels hold nodes, even when the draft never hits") {
  const auto ranks = sp::RankModel::fixed(0.0, curve_1b(), 16);
  const auto greedy = sp::plan_specpipe(params(4, 4, 300), ranks);
  const auto relaxed = sp::plan_specpipe(params(4, 4, 300, sp::Verification::relaxed), ranks);
  CHECK(greedy.hit_rate() == 0.0);
  CHECK(relaxed.flushes() == 0);
  CHECK(relaxed.substituted == relaxed.checks);  // every level passed by substitution, none by the target's token
  // One token per step once the pipeline is full, as with hit rate 1.
  CHECK(relaxed.steps.size() == std::size_t(300 + 1 + 7));
  CHECK(greedy.steps.size() > 7 * relaxed.steps.size());
}

TEST_CASE("specpipe verification: top-p accepts more levels than greedy, more with a larger p, and is deterministic") {
  const auto ranks = sp::RankModel::from_curve(curve_1b(), 32);
  CHECK(ranks.nucleus_size(0.5) <= ranks.nucleus_size(0.9));
  CHECK(ranks.nucleus_size(0.01) == 1);
  auto p = params(8, 4, 1500);
  const double g = sp::plan_specpipe(p, ranks).hit_rate();
  p.verification = sp::Verification::top_p;
  p.top_p = 0.5;
  const auto half = sp::plan_specpipe(p, ranks);
  p.top_p = 0.9;
  const auto ninety = sp::plan_specpipe(p, ranks);
  CHECK(half.hit_rate() > g);
  CHECK(ninety.hit_rate() >= half.hit_rate());
  CHECK(ninety.substituted > 0);
  CHECK(sp::plan_specpipe(p, ranks).hits == ninety.hits);
  CHECK_THROWS_AS(sp::parse_verification("sampled"), models::InputError);
  p.top_p = 1.0;
  CHECK_THROWS_AS(sp::plan_specpipe(p, ranks), models::InputError);
}

TEST_CASE("specpipe ranks from a probability trace: rank 0 everywhere always hits, unlisted never, k bounded by the trace") {
  const auto hits = sp::RankModel::from_probability_trace(uniform_trace(0, 8, 50), 8);
  CHECK(sp::plan_specpipe(params(4, 4, 200), hits).hit_rate() == 1.0);
  const auto misses = sp::RankModel::from_probability_trace(uniform_trace(-1, 8, 50), 8);
  CHECK(sp::plan_specpipe(params(4, 4, 200), misses).hit_rate() == 0.0);
  // Always the second candidate: a one-node level never holds it, a wider one often does (the
  // beam drops an all-second path only several levels ahead).
  const auto second = sp::RankModel::from_probability_trace(uniform_trace(1, 8, 50), 8);
  CHECK(sp::plan_specpipe(params(1, 4, 200), second).hit_rate() == 0.0);
  CHECK(sp::plan_specpipe(params(8, 4, 200), second).hit_rate() > 0.5);
  CHECK_THROWS_WITH(sp::RankModel::from_probability_trace(uniform_trace(0, 4, 10), 16),
                    Catch::Contains("lists only 4"));
}

TEST_CASE("specpipe-db: one request is SpecPipe, B requests pack B levels per step and verify independently") {
  const auto ranks = sp::RankModel::from_curve(curve_1b(), 16);
  const auto p = params(16, 8, 200);
  const auto single = sp::plan_specpipe(p, ranks);
  const auto one = sp::plan_specpipe_db(p, 1, ranks);
  REQUIRE(one.steps.size() == single.steps.size());
  for (std::size_t s = 0; s < single.steps.size(); ++s) CHECK(one.steps[s].compute == single.steps[s].compute);
  const auto always = sp::RankModel::fixed(1.0, curve_1b(), 16);
  const auto four = sp::plan_specpipe_db(params(16, 8, 100), 4, always);
  CHECK(four.requests == 4);
  CHECK(four.ragged_batches);
  const auto solo = sp::plan_specpipe(params(16, 8, 100), always);
  // With every level hit, the requests run in lockstep: 4x the tokens of each step, 4 per emission.
  REQUIRE(four.steps.size() == solo.steps.size());
  for (std::size_t s = 0; s < solo.steps.size(); ++s) {
    CHECK(four.steps[s].compute[3] == 4 * solo.steps[s].compute[3]);
    if (solo.steps[s].emitted) CHECK(four.steps[s].emitted == 4);
  }
  CHECK(four.tokens == 4 * solo.tokens);
  // With misses the requests flush at different steps (their draws differ).
  const auto mixed = sp::plan_specpipe_db(params(4, 2, 300), 3, ranks);
  // A step after one request flushed while another hit: stage 0 takes both a level and a refill.
  bool refill_beside_level = false;
  for (const auto& st : mixed.steps)
    refill_beside_level = refill_beside_level || (st.first == sp::FirstInput::draft_previous && st.first_needs_token);
  CHECK(refill_beside_level);
  CHECK(mixed.flushes() > 0);
  CHECK(mixed.hit_rate() > 0.0);
  CHECK_THROWS_AS(sp::plan_specpipe_db(p, 0, ranks), models::InputError);
}

TEST_CASE("multi-batch PP: B = stages keeps every stage busy and each request emits once per pipeline pass") {
  const auto plan = sp::plan_multibatch_pp(8, 8, 20);
  std::size_t full = 0;
  for (const auto& st : plan.steps) {
    int busy = 0;
    for (int c : st.compute) busy += c > 0 ? 1 : 0;
    full += busy == 8 ? 1 : 0;
  }
  CHECK(full + 7 == plan.steps.size());  // all but the fill
  CHECK(plan.tokens == 8 * 21);
  // 16 requests: two per micro-batch; 3 requests: three micro-batches, five stages idle each step.
  CHECK(sp::plan_multibatch_pp(8, 16, 5).steps[10].compute == std::vector<int>(8, 2));
  for (const auto& st : sp::plan_multibatch_pp(8, 3, 5).steps) CHECK(std::accumulate(st.compute.begin(), st.compute.end(), 0) <= 3);
  const auto one = sp::plan_multibatch_pp(8, 1, 10), plain = sp::plan_plain_pp(8, 10);
  CHECK(one.steps.size() == plain.steps.size());
}

TEST_CASE("EAGLE-3 in the pipeline: fused features ride the hops, acceptance draws average the tree's TPC") {
  // 8 stages of 10 layers, features of layers 2, 40 and 77: hops 0-3 carry one extra hidden
  // state (layer 2), hops 4-6 two (layers 2 and 40); layer 77 is computed on the head's stage.
  const std::vector<int> last{9, 19, 29, 39, 49, 59, 69, 79};
  const auto f = sp::hop_payload_factors(last, sp::eagle3_feature_layers(80));
  CHECK(f == std::vector<double>{2, 2, 2, 2, 3, 3, 3});
  CHECK(sp::eagle3_feature_layers(80) == std::vector<int>{2, 40, 77});
  const auto acc = search::paper004_acceptance(models::ConfigRegistry::default_config_dir(), "llama-3.1-70b");
  const auto tree = search::pruned_tree(acc, 16, 6, 4);
  std::mt19937_64 rng(3);
  double sum = 0;
  const int n = 40000;
  for (int i = 0; i < n; ++i) sum += sp::draw_accepted(tree, acc, rng);
  CHECK(1.0 + sum / n == Approx(tree_tpc(acc, tree)).epsilon(0.02));
  sp::EaglePipelineParams p;
  p.tokens = 4000;
  p.hop_payload_factor = f;
  const auto plan = sp::plan_eagle_pipeline(p, tree, acc);
  CHECK(plan.draft_on_last_stage);
  // One iteration per 8 steps, emitting the accepted tokens plus the bonus token.
  long long iterations = 0;
  for (const auto& st : plan.steps) iterations += st.emitted > 0 ? 1 : 0;
  CHECK(double(plan.tokens) / double(iterations) == Approx(tree_tpc(acc, tree)).epsilon(0.03));
  CHECK(plan.steps.size() == std::size_t(8 * iterations));
}

TEST_CASE("specpipe-db: the same inputs give the same plan") {
  const auto ranks = sp::RankModel::from_curve(curve_1b(), 16);
  const auto a = sp::plan_specpipe_db(params(8, 16, 150), 4, ranks);
  const auto b = sp::plan_specpipe_db(params(8, 16, 150), 4, ranks);
  CHECK(a.steps.size() == b.steps.size());
  CHECK(a.hits == b.hits);
}

TEST_CASE("specpipe without dynamic batching: requests take turns at stage 0, a level apiece per step") {
  const auto always = sp::RankModel::fixed(1.0, curve_1b(), 16);
  const auto p = params(16, 8, 100);
  // One request is SpecPipe itself.
  const auto one = sp::plan_specpipe_interleaved(p, 1, always);
  const auto single = sp::plan_specpipe(p, always);
  REQUIRE(one.steps.size() == single.steps.size());
  // Two requests with every level hit: a token per step once full, the requests alternating, so
  // each request emits every second step; no stage ever holds two levels.
  const auto two = sp::plan_specpipe_interleaved(p, 2, always);
  CHECK(two.requests == 2);
  CHECK(two.flushes() == 0);
  std::vector<long long> last(2, -1);
  bool alternate = true;
  for (std::size_t s = 0; s < two.steps.size(); ++s) {
    const auto& st = two.steps[s];
    if (st.emitted == 0) continue;
    REQUIRE(st.emitted_by.size() == 1);
    const int r = st.emitted_by[0];
    if (last[std::size_t(r)] >= 0) alternate = alternate && long(s) - last[std::size_t(r)] == 2;
    last[std::size_t(r)] = long(s);
  }
  CHECK(alternate);
  CHECK(two.tokens == 2 * 101);
  // As many requests as stages: a request's next level is drafted only when its token is verified,
  // so each emits once per pipeline pass, one token per stage and step: plain PP in micro-batches.
  const auto eight = sp::plan_specpipe_interleaved(p, 8, always);
  for (std::size_t s = 8; s < eight.steps.size(); ++s)
    for (int c : eight.steps[s].compute) CHECK(c <= 1);
  CHECK(double(eight.steps.size()) == Approx(8.0 * 101).epsilon(0.02));
  // Misses flush only the missing request's levels.
  const auto mixed = sp::plan_specpipe_interleaved(params(4, 2, 200), 3, sp::RankModel::from_curve(curve_1b(), 16));
  CHECK(mixed.flushes() > 0);
  CHECK(mixed.hit_rate() > 0.0);
}

TEST_CASE("specpipe calibrated confidence: contexts vary, the ranks' marginal stays the hit curve") {
  const auto c = curve_1b();
  const auto ranks = sp::RankModel::from_curve(c, 32);
  REQUIRE(ranks.confidence() == sp::DraftConfidence::calibrated);
  // Over many contexts: the top-1 probability averages H(1), never falls below the rank-2
  // candidate's, and the ranks drawn below them follow H(k) at every k.
  std::mt19937_64 rng(7);
  const int n = 200000;
  double top1_sum = 0, top1_min = 1, top1_max = 0;
  std::vector<int> within(33, 0);
  for (int i = 0; i < n; ++i) {
    sp::TreeNode node;
    node.key = std::uint64_t(i) * 0x9E3779B97F4A7C15ULL + 12345;
    ranks.set_confidence(node);
    top1_sum += node.top1;
    top1_min = std::min(top1_min, node.top1);
    top1_max = std::max(top1_max, node.top1);
    for (int j = 2; j <= 32; ++j) REQUIRE(ranks.child_log_prob(node, j) <= ranks.child_log_prob(node, j - 1) + 1e-12);
    const long long r = ranks.draw_below(rng, i, node);
    for (int k = 1; k <= 32; ++k) within[std::size_t(k)] += r <= k ? 1 : 0;
  }
  CHECK(std::abs(top1_sum / n - c(1)) < 0.005);
  CHECK(top1_max - top1_min > 0.5);  // the confidence does vary over contexts
  for (int k : {1, 2, 4, 8, 16, 32}) {
    INFO("k = " << k);
    CHECK(std::abs(double(within[std::size_t(k)]) / n - c(k)) < 0.006);
  }
  // The same context key gives the same confidence; the constant model gives every node H(1).
  sp::TreeNode a, b;
  a.key = b.key = 42;
  ranks.set_confidence(a);
  ranks.set_confidence(b);
  CHECK(a.top1 == b.top1);
  const auto flat = sp::RankModel::from_curve(c, 32, sp::DraftConfidence::constant);
  flat.set_confidence(a);
  CHECK(a.top1 == Approx(c(1)));
  CHECK(a.log_rest_shift == 0.0);
  CHECK(sp::parse_draft_confidence("constant") == sp::DraftConfidence::constant);
  CHECK_THROWS_AS(sp::parse_draft_confidence("mean"), models::InputError);
}

TEST_CASE("specpipe calibrated confidence: w = 1 still hits at H(1), wider trees hit more, runs are deterministic") {
  const auto c = curve_1b();
  const auto ranks = sp::RankModel::from_curve(c, 32);
  auto p = params(1, 1, 4000);
  const auto one = sp::plan_specpipe(p, ranks);
  const double sd = std::sqrt(c(1) * (1 - c(1)) / double(one.checks));
  CHECK(std::abs(one.hit_rate() - c(1)) < 4 * sd);
  p = params(64, 16, 1500);
  const auto wide = sp::plan_specpipe(p, ranks);
  CHECK(wide.hit_rate() > one.hit_rate() + 0.2);
  CHECK(sp::plan_specpipe(p, ranks).hits == wide.hits);
  // A level never holds more than w nodes under either model.
  for (const auto& st : wide.steps)
    for (int n : st.compute) CHECK(n <= 64);
}

TEST_CASE("specpipe draft quality: with the top-32 hit fixed, a better top-1 hit raises the level hit rate") {
  // The curves of specpipe-fig11's draft-quality sensitivity: through (1, top-1) and (32, 0.99).
  double last = 0;
  for (double top1 : {0.4, 0.55, 0.7, 0.85}) {
    const auto c = sp::HitCurve::through("sensitivity", 1, top1, 32, 0.99);
    REQUIRE(c(1) == Approx(top1));
    REQUIRE(c(32) == Approx(0.99));
    const auto rate = sp::plan_specpipe(params(64, 16, 1500), sp::RankModel::from_curve(c, 32)).hit_rate();
    INFO("top-1 " << top1 << ": level hit rate " << rate);
    CHECK(rate > last + 0.02);
    CHECK(rate > top1);  // a 64-wide level holds more than the draft's first choice
    last = rate;
  }
  // A curve through a hit of 0 or 1, or through one k twice, has no location or slope.
  CHECK_THROWS_AS(sp::HitCurve::through("bad", 1, 1.0, 32, 0.99), models::InputError);
  CHECK_THROWS_AS(sp::HitCurve::through("bad", 8, 0.5, 8, 0.9), models::InputError);
}
