// Chain traces and the window policies of paper 001 replayed with engine latencies.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "roofline/analytic_engine.hpp"
#include "search/acceptance/chain_trace.hpp"
#include "search/window/policies.hpp"
#include "test_window_cli_support.hpp"

using namespace search;

namespace {
const PolicyResult& find(const std::vector<PolicyResult>& rs, const std::string& name) {
  auto it = std::find_if(rs.begin(), rs.end(), [&](const auto& r) { return r.policy == name; });
  REQUIRE(it != rs.end());
  return *it;
}

ChainLatency a100_eagle3_latency(int gamma_max) {
  const models::ConfigRegistry reg;
  const auto engine = roofline::make_analytic_engine(reg.hardware("a100-80gb"));
  models::Workload w;
  w.target = reg.model("llama-3.1-8b-instruct");
  w.algorithm = std::make_shared<models::AlgorithmSpec>(reg.algorithm("eagle3-chain"));
  return ChainLatency::from_engine(*engine, w, 1024, gamma_max);
}
}  // namespace

TEST_CASE("chain trace reader: leading zeros, comments, cache flags, errors", "[policies]") {
  const auto t = parse_chain_trace("# header\n0 0 0\n\n0 1 0\n  # indented comment\n0 0 # trailing\n", "t.txt");
  REQUIRE(t.iterations.size() == 4);
  CHECK(t.iterations[0].matched == 3);
  CHECK(t.iterations[1].matched == 0);  // empty line: nothing accepted
  CHECK(t.iterations[2].matched == 1);  // a non-top-1 rank ends the chain's run
  CHECK(t.iterations[3].matched == 2);
  CHECK_FALSE(t.has_cache_flags);

  const auto f = parse_chain_trace("0 0 | 1 0\n\n0 | 0\n", "f.txt");
  REQUIRE(f.has_cache_flags);
  CHECK(f.iterations[0].cached == std::vector<int>{1, 0});
  CHECK(f.iterations[2].cached == std::vector<int>{0});

  for (const char* bad : {"0 x\n", "0 0 | 1\n", "0 | 2\n", "0 -1\n", "0 | 1\n0 0\n"})
    CHECK_THROWS_AS(parse_chain_trace(bad, "bad.txt"), models::InputError);
  try {
    parse_chain_trace("# only comments\n", "empty.txt");
    FAIL("an empty trace must be rejected");
  } catch (const models::InputError& e) {
    CHECK(std::string(e.what()).find("empty.txt") != std::string::npos);
  }
}

TEST_CASE("synthetic chain traces are deterministic and round-trip through the text format", "[policies]") {
  const auto segs = parse_chain_segments("--synthetic", "3000:0.8:0.6");
  const auto a = generate_chain_trace(segs, 7), b = generate_chain_trace(segs, 7);
  const auto text = format_chain_trace(a, "test");
  CHECK(text == format_chain_trace(b, "test"));
  CHECK(a.mean_matched() == Approx(0.8 / 0.2).epsilon(0.08));  // geometric mean a / (1 - a)
  const auto back = parse_chain_trace(text, "roundtrip");
  REQUIRE(back.iterations.size() == a.iterations.size());
  for (std::size_t i = 0; i < a.iterations.size(); ++i) {
    CHECK(back.iterations[i].matched == a.iterations[i].matched);
    CHECK(back.iterations[i].cached == a.iterations[i].cached);
  }
  CHECK_THROWS_AS(parse_chain_segments("--synthetic", "100:1.0"), models::InputError);
  CHECK_THROWS_AS(parse_chain_segments("--synthetic", "0:0.5"), models::InputError);
  CHECK_THROWS_AS(parse_chain_segments("--synthetic", "100"), models::InputError);
}

TEST_CASE("static replay accepts min(k, gamma) and times iterations with the latency table", "[policies]") {
  const auto trace = parse_chain_trace("0 0 0 0 0\n\n0 0\n0\n", "t");
  const auto lat = ChainLatency::constant(0.1, 2.0, 8);
  auto p = make_static_policy(3);
  const auto r = replay_policy(*p, trace, lat);
  CHECK(r.accepted == 3 + 0 + 2 + 1);
  CHECK(r.tokens == r.accepted + 4);
  CHECK(r.drafted == 12);
  CHECK(r.time_s == Approx(4 * (2.0 + 3 * 0.2)));
  CHECK(r.acceptance_rate == Approx(6.0 / 12.0));
  CHECK(r.mean_gamma == 3.0);
  CHECK(r.speedup == Approx(r.tokens_per_s * 2.0));
}

TEST_CASE("FSM and cache-FSM follow paper 001's update rules", "[policies]") {
  PolicyOptions o;
  o.gamma_max = 6;
  o.gamma_init = 3;
  auto fsm = make_fsm_policy(o);
  CHECK(fsm->next_gamma() == 3);
  fsm->observe({3, 3, false, 1.0});  // all accepted: +1
  CHECK(fsm->next_gamma() == 4);
  fsm->observe({4, 1, false, 1.0});  // a rejection: -1
  CHECK(fsm->next_gamma() == 3);
  auto cache = make_cache_fsm_policy(o);
  cache->observe({3, 3, true, 1.0});  // cached and all accepted: +2
  CHECK(cache->next_gamma() == 5);
  cache->observe({5, 2, true, 1.0});  // cached token, not all: +1
  CHECK(cache->next_gamma() == 6);
  cache->observe({6, 6, true, 1.0});  // saturates at gamma_max
  CHECK(cache->next_gamma() == 6);
  cache->observe({6, 0, false, 1.0});  // nothing cached: -1
  CHECK(cache->next_gamma() == 5);
}

TEST_CASE("drifting accuracy: online beats every static window and Q-learning shows paper 001's pattern",
          "[policies]") {
  // 0.9 token accuracy for the first half, 0.5 for the second; latencies from the roofline
  // engine for Llama-3.1-8B + EAGLE-3 chain head on an A100 at L = 1024.
  PolicyOptions o;  // gamma_max 8, h 6, Acc_max 0.95
  const auto lat = a100_eagle3_latency(o.gamma_max);
  for (std::uint64_t seed : {1, 2, 3}) {
    const auto trace = generate_chain_trace(parse_chain_segments("--synthetic", "2000:0.9,2000:0.5"), seed);
    o.q.seed = seed;
    const auto rs = replay_all_policies(trace, lat, o);
    const auto& online = find(rs, "online");
    double best_static = 0;
    for (const auto& r : rs)
      if (r.policy.rfind("static-", 0) == 0) best_static = std::max(best_static, r.tokens_per_s);
    const auto& q_acc = find(rs, "q-learning-acceptance-rate");
    const auto& q_tps = find(rs, "q-learning-tokens-per-s");
    WARN("seed " << seed << ": online " << online.tokens_per_s << " tok/s (acceptance " << online.acceptance_rate
                 << "), best static " << best_static << ", fsm " << find(rs, "fsm").tokens_per_s << ", cache-fsm "
                 << find(rs, "cache-fsm").tokens_per_s << ", q-acceptance " << q_acc.tokens_per_s << " ("
                 << q_acc.acceptance_rate << "), q-tokens " << q_tps.tokens_per_s << " (" << q_tps.acceptance_rate
                 << ")");
    CHECK(online.tokens_per_s > best_static);
    CHECK(q_acc.acceptance_rate > online.acceptance_rate);
    CHECK(q_acc.tokens_per_s < online.tokens_per_s);
    CHECK(q_tps.tokens_per_s < online.tokens_per_s);
  }
}

TEST_CASE("specdse policies CLI: runs on a trace file, rejects empty traces and bad options", "[policies][cli]") {
  using window_test::run_cli;
  const auto trace_path = window_test::temp_path("trace.txt");
  const auto written = window_test::temp_path("written.txt");
  const auto r = run_cli("policies --synthetic 300:0.8 --write-trace " + written +
                         " --cost-ratio 0.05 --format csv");
  REQUIRE(r.exit_code == 0);
  CHECK(cli_test::without_comments(r.output).rfind("policy,iterations,tokens,time_s,tokens_per_s,acceptance_rate,mean_gamma,speedup", 0) == 0);
  const auto from_file = run_cli("policies --trace " + written + " --cost-ratio 0.05 --format csv");
  CHECK(from_file.exit_code == 0);
  // Same trace, same seed: identical rows (the footer names each run's source).
  CHECK(cli_test::without_comments(from_file.output) == cli_test::without_comments(r.output));
  const auto engine = run_cli("policies --trace " + written +
                              " --hw a100-80gb --model llama-3.1-8b-instruct --draft eagle3-chain --context 1024");
  CHECK(engine.exit_code == 0);
  CHECK(engine.output.find("cache-fsm") != std::string::npos);

  window_test::write_text(trace_path, "# no iterations here\n");
  const auto empty = run_cli("policies --trace " + trace_path + " --cost-ratio 0.05");
  CHECK(empty.exit_code == 2);
  CHECK(empty.output.find("expected at least one iteration") != std::string::npos);
  CHECK(run_cli("policies --trace " + written + " --cost-ratio 0.05 --gamma-max 0").exit_code == 2);
  CHECK(run_cli("policies --trace /nonexistent/trace.txt --cost-ratio 0.05").exit_code == 2);
  CHECK(run_cli("policies --synthetic 100:1.5 --cost-ratio 0.05").exit_code == 2);
  CHECK(run_cli("policies --trace " + written + " --cost-ratio 0.05 --acc-max 1.0").exit_code == 2);
  std::remove(trace_path.c_str());
  std::remove(written.c_str());
}
