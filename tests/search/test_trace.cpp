// Acceptance traces (DESIGN.md contract 3): reader, writer, generator, AAT definition.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "models/config_error.hpp"
#include "search/trees/path_counts.hpp"
#include "search/acceptance/trace.hpp"
#include "search/acceptance/trace_generator.hpp"
#include "search/trees/tree_search.hpp"

using search::RankPath;

namespace {

std::vector<RankPath> read_all(const std::string& text, const std::string& source = "t.trace") {
  std::istringstream in(text);
  search::TraceReader reader(in, source);
  std::vector<RankPath> out;
  RankPath p;
  while (reader.next(p)) out.push_back(p);
  return out;
}

std::string reader_error(const std::string& text) {
  try {
    read_all(text, "bad.trace");
  } catch (const models::InputError& e) {
    return e.what();
  }
  return "";
}

search::PositionalModel realistic_model() {
  search::PositionalModel m;
  m.acceptance = {0.55, 0.12, 0.06, 0.035, 0.02, 0.012, 0.008};
  return m;
}

std::string synthetic_text(const search::PositionalModel& m, std::uint64_t seed, std::int64_t lines) {
  std::ostringstream out;
  search::write_synthetic_trace(out, m, seed, lines);
  return out.str();
}

}  // namespace

TEST_CASE("trace reader: empty lines accept nothing, comment-only lines are not iterations") {
  const auto paths = read_all("# header\n0 1\n\n   \n2\t0  # trailing comment\n  # indented comment\n0 1 2 3\r\n");
  REQUIRE(paths.size() == 5);
  CHECK(paths[0] == RankPath{0, 1});
  CHECK(paths[1].empty());
  CHECK(paths[2].empty());
  CHECK(paths[3] == RankPath{2, 0});
  CHECK(paths[4] == RankPath{0, 1, 2, 3});
}

TEST_CASE("trace reader: malformed lines name the file and the line number") {
  CHECK_THAT(reader_error("0\n0 1\n0 x 1\n"), Catch::Contains("bad.trace:3") && Catch::Contains("'x'"));
  CHECK_THAT(reader_error("# c\n\n-1\n"), Catch::Contains("bad.trace:3") && Catch::Contains("'-1'"));
  CHECK_THAT(reader_error("1.5\n"), Catch::Contains("bad.trace:1") && Catch::Contains("'1.5'"));
  CHECK_THAT(reader_error("0\n0,1\n"), Catch::Contains("bad.trace:2"));
  CHECK_THAT(reader_error("99999999999\n"), Catch::Contains("bad.trace:1"));
  CHECK_THROWS_AS(search::TraceReader("/nonexistent/dir/none.trace"), models::InputError);
  // The error message is one line.
  CHECK(reader_error("0 x\n").find('\n') == std::string::npos);
}

TEST_CASE("trace writer output reads back unchanged") {
  const std::vector<RankPath> paths = {{0, 1}, {}, {3}, {0, 0, 0, 12}};
  std::ostringstream out;
  search::TraceWriter w(out);
  w.comment("two\nline comment");
  for (const auto& p : paths) w.write(p);
  CHECK(read_all(out.str()) == paths);
  CHECK(search::format_rank_path({0, 1, 3}) == "0 1 3");
}

TEST_CASE("AAT of a tree on a trace follows DESIGN contract 3") {
  // Lines: "0 1" "" "0 0 2" "1" "0 1 1"; tree {0, 0 1, 1}.
  const std::string trace = "0 1\n\n0 0 2\n1\n0 1 1\n";
  const auto tree = search::TokenTree::from_rank_paths({{0}, {0, 1}, {1}});
  // Longest prefixes in the tree: 2, 0, 1, 1, 2 -> AAT = 1 + 6/5.
  std::istringstream in(trace);
  search::TraceReader reader(in, "t");
  CHECK(search::tree_aat_streaming(tree, reader) == Approx(1 + 6.0 / 5));
  std::istringstream in2(trace);
  search::TraceReader reader2(in2, "t");
  const auto counts = search::PathCounts::from_reader(reader2);
  CHECK(search::tree_aat(tree, counts) == Approx(1 + 6.0 / 5));
  CHECK(search::tree_aat(search::TokenTree(), counts) == 1.0);  // AAT(1) = 1

  // On a synthetic trace: folded and streamed AAT agree, and 1 <= AAT <= x for every tree.
  const std::string text = synthetic_text(realistic_model(), 7, 5000);
  std::istringstream in3(text);
  search::TraceReader r3(in3, "syn");
  const auto syn = search::PathCounts::from_reader(r3);
  const auto ranking = search::prior_score_ranking(syn, 40);
  for (int n : {0, 1, 5, 17, 40}) {
    const auto t = ranking.tree(n);
    std::istringstream s(text);
    search::TraceReader r(s, "syn");
    const double streamed = search::tree_aat_streaming(t, r);
    CHECK(search::tree_aat(t, syn) == Approx(streamed).epsilon(1e-12));
    CHECK(streamed >= 1.0);
    CHECK(streamed <= t.verification_length());
  }
  std::istringstream empty("# only a comment\n");
  search::TraceReader re(empty, "empty");
  CHECK_THROWS_AS(search::tree_aat_streaming(tree, re), models::InputError);
}

TEST_CASE("trace generator: same seed gives the same trace, another seed another") {
  const auto m = realistic_model();
  CHECK(synthetic_text(m, 42, 2000) == synthetic_text(m, 42, 2000));
  CHECK(synthetic_text(m, 42, 2000) != synthetic_text(m, 43, 2000));
  search::PositionalModel drifting = m;
  drifting.depth_decay = 0.9;
  drifting.drift_to = {0.3, 0.2, 0.1, 0.05, 0.02, 0.01, 0.01};
  drifting.drift_period_lines = 500;
  CHECK(synthetic_text(drifting, 5, 2000) == synthetic_text(drifting, 5, 2000));
  // Streaming generation gives the same paths as the written trace.
  search::TraceGenerator gen(m, 42, 2000);
  const auto paths = read_all(synthetic_text(m, 42, 2000));
  REQUIRE(paths.size() == 2000);
  for (const auto& p : paths) CHECK(gen.next() == p);
}

TEST_CASE("trace generator: rank frequencies follow the positional model, decay and drift") {
  search::PositionalModel m = realistic_model();
  m.depth_decay = 0.8;
  search::TraceGenerator gen(m, 1, 0);
  const int n = 200000;
  std::vector<int> first(8, 0);
  int second_any = 0;
  for (int i = 0; i < n; ++i) {
    const auto p = gen.next();
    if (p.empty()) ++first[7];
    else ++first[std::size_t(p[0])];
    if (p.size() >= 2) ++second_any;
  }
  double sum_p = 0;
  for (std::size_t k = 0; k < m.acceptance.size(); ++k) {
    sum_p += m.acceptance[k];
    const double sigma = std::sqrt(m.acceptance[k] * (1 - m.acceptance[k]) / n);
    CHECK(double(first[k]) / n == Approx(m.acceptance[k]).margin(5 * sigma));
  }
  // Depth 2 is reached with probability sum_p * (sum_p * decay).
  CHECK(double(second_any) / n == Approx(sum_p * sum_p * 0.8).margin(0.005));

  // Linear drift: the last lines follow drift_to.
  search::PositionalModel d = realistic_model();
  d.drift_to = {0.2, 0.2, 0.2, 0.1, 0.1, 0.1, 0.1};
  const int lines = 100000;
  search::TraceGenerator drift(d, 3, lines);
  int rank0_late = 0, late = 0;
  for (int i = 0; i < lines; ++i) {
    const auto p = drift.next();
    if (i >= lines - 10000) {
      ++late;
      rank0_late += !p.empty() && p[0] == 0;
    }
  }
  // Over the last 10 % the vector moves from 0.9 to 1.0 of the way: p_0 ~ 0.2 + 0.35 * 0.05.
  CHECK(double(rank0_late) / late == Approx(0.2 + 0.35 * 0.05).margin(0.015));
}

TEST_CASE("trace generator: invalid models are input errors") {
  search::PositionalModel m;
  m.acceptance = {0.7, 0.4};
  CHECK_THROWS_AS(m.validate(), models::InputError);
  m.acceptance = {0.6, 0.1};
  m.depth_decay = 0;
  CHECK_THROWS_AS(m.validate(), models::InputError);
  m.depth_decay = 1;
  m.drift_to = {0.5};
  CHECK_THROWS_AS(m.validate(), models::InputError);
  CHECK_THROWS_AS(search::parse_acceptance_vector("--acceptance-vector", "0.6,abc"), models::InputError);
  CHECK(search::parse_acceptance_vector("--acceptance-vector", "0.6, 0.1,.05") == std::vector<double>{0.6, 0.1, 0.05});
}

TEST_CASE("train / validation split of one trace is a split in time") {
  const char* tmp = std::getenv("TMPDIR");
  const std::string path = std::string(tmp ? tmp : "/tmp") + "/specdse_trace_split_" + std::to_string(::getpid()) + ".trace";
  std::ofstream(path) << "# five iterations\n0\n0 1\n\n1\n1 1\n";
  const auto [train, validation] = search::PathCounts::split_trace_file(path, 0.4);
  CHECK(train.lines() == 3);
  CHECK(validation.lines() == 2);
  CHECK(train.count(RankPath{0}) == 2);
  CHECK(validation.count(RankPath{1}) == 2);
  CHECK(validation.count(RankPath{0}) == 0);
  CHECK_THROWS_AS(search::PathCounts::split_trace_file(path, 1.0), models::InputError);
  std::remove(path.c_str());
}
