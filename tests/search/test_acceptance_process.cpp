// The acceptance process (search/acceptance/acceptance_process.hpp): the independent special
// case is the positional model, expectations are exact (checked against the process's own
// sampler), correlation lifts AAT(x) beyond independent saturation, and invariants hold.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "search/acceptance/acceptance_data.hpp"
#include "search/acceptance/acceptance_process.hpp"
#include "search/acceptance/acceptance_statistics.hpp"
#include "search/scenarios/duodecoding/duo_acceptance.hpp"
#include "search/acceptance/paper004_tables.hpp"
#include "search/acceptance/positional_acceptance.hpp"

using namespace search;

namespace {

AcceptanceProcessParams bursty() {
  AcceptanceProcessParams p;
  p.alpha_easy = 0.95;
  p.alpha_hard = 0.3;
  p.easy_share = 0.6;
  p.persistence = 0.8;
  return p;
}

std::vector<RankPath> small_tree() { return {{0}, {1}, {0, 0}, {0, 1}, {1, 0}, {0, 0, 0}}; }

// Mean accepted tokens per iteration of standard speculative decoding, drawn position by
// position from the sampler: walk the tree while the target's rank is one of the node's children.
double sampled_tpc(const AcceptanceProcess& proc, const std::vector<RankPath>& tree, int iterations) {
  AcceptanceSampler s(proc, 8, 7);
  std::set<RankPath> nodes(tree.begin(), tree.end());
  double total = 0;
  for (int i = 0; i < iterations; ++i) {
    RankPath at;
    int tokens = 1;
    for (;;) {
      const ProbabilityPosition pos = s.next(int(at.size()) + 1);
      RankPath child = at;
      child.push_back(pos.rank);
      if (pos.rank < 0 || !nodes.count(child)) break;  // that position's token is the emitted one
      at = child;
      ++tokens;
    }
    total += tokens;
  }
  return total / iterations;
}

}  // namespace

TEST_CASE("Independent acceptance process equals the positional model on chains and trees") {
  const PositionalAcceptance positional(0.8, 0.93, "test");
  const AcceptanceProcess proc = AcceptanceProcess::independent(0.8, DraftConfidence::constant, 0.93);
  for (int n : {0, 1, 3, 5, 7, 12}) CHECK(proc.chain_tpc(n) == Approx(positional.chain_tpc(n)).epsilon(1e-12));
  double positional_tree = 1;
  for (const auto& path : small_tree()) positional_tree += positional.path_probability(path);
  CHECK(proc.tree_tpc(small_tree()) == Approx(positional_tree).epsilon(1e-12));
}

TEST_CASE("Acceptance process invariants: AAT(1) = 1, AAT <= x, more nodes never fewer tokens") {
  const AcceptanceProcess proc(bursty());
  CHECK(proc.chain_tpc(0) == 1.0);
  CHECK(proc.tree_tpc({}) == 1.0);
  double last = 1;
  std::vector<RankPath> chain;
  for (int n = 1; n <= 40; ++n) {
    chain.push_back(RankPath(std::size_t(n), 0));
    const double tpc = proc.tree_tpc(chain);
    CHECK(tpc <= n + 1);
    CHECK(tpc >= last);
    last = tpc;
  }
  const auto start = proc.stationary_start(small_tree());
  CHECK(start[0] + start[1] == Approx(1.0));
  // After rejections the state leans hard: the start is less easy than the stationary share.
  CHECK(start[0] < bursty().easy_share);
}

TEST_CASE("Acceptance process expectations match its own sampler") {
  const AcceptanceProcess proc(bursty());
  const double exact_chain = proc.chain_tpc(6), exact_tree = proc.tree_tpc(small_tree());
  std::vector<RankPath> chain;
  for (int n = 1; n <= 6; ++n) chain.push_back(RankPath(std::size_t(n), 0));
  CHECK(sampled_tpc(proc, chain, 200000) == Approx(exact_chain).epsilon(0.01));
  CHECK(sampled_tpc(proc, small_tree(), 200000) == Approx(exact_tree).epsilon(0.01));
  AcceptanceProcessParams calibrated = bursty();
  calibrated.confidence = DraftConfidence::calibrated;
  const AcceptanceProcess cal(calibrated);
  CHECK(sampled_tpc(cal, small_tree(), 200000) == Approx(cal.tree_tpc(small_tree())).epsilon(0.01));
}

TEST_CASE("Correlated acceptance keeps long chains growing past independent saturation") {
  const AcceptanceProcess proc(bursty());
  const AcceptanceProcess flat = AcceptanceProcess::independent(proc.mean_acceptance());
  // Same mean per-token acceptance; the bursty process gains more from length 8 to 32.
  CHECK(proc.chain_tpc(32) - proc.chain_tpc(8) > flat.chain_tpc(32) - flat.chain_tpc(8));
}

TEST_CASE("Acceptance process rejects bad parameters and trees") {
  AcceptanceProcessParams p = bursty();
  p.alpha_hard = 0.99;  // above alpha_easy: the labels would swap
  CHECK_THROWS_AS(AcceptanceProcess(p), models::InputError);
  p = bursty();
  p.persistence = 1;
  CHECK_THROWS_AS(AcceptanceProcess(p), models::InputError);
  p = bursty();
  p.easy_share = std::nan("");
  CHECK_THROWS_AS(AcceptanceProcess(p), models::InputError);
  const AcceptanceProcess proc(bursty());
  CHECK_THROWS_AS(proc.tree_tpc({{0, 0}}), models::InputError);  // no parent
  CHECK_THROWS_AS(proc.tree_tpc({{0}, {0}}), models::InputError);
  CHECK_THROWS_AS(parse_draft_confidence("confidence", "sure"), models::InputError);
}

// ---- Fitting (search/acceptance/process_fit.hpp, acceptance_statistics.hpp) ----

TEST_CASE("Process fit recovers the parameters behind exact statistics and names what they leave open") {
  AcceptanceProcessParams truth = bursty();
  truth.depth_decay = 0.95;
  const AcceptanceProcess source(truth);
  ProcessFitSpec spec;
  spec.start = truth;
  spec.start.alpha_easy = 0.8;
  spec.start.alpha_hard = 0.5;
  spec.start.easy_share = 0.5;
  spec.free = {"alpha_easy", "alpha_hard", "easy_share"};
  for (int n : {1, 2, 3, 5, 8, 12, 20})
    spec.statistics.push_back({"chain " + std::to_string(n), source.chain_tpc(n), 1.0,
                               [n](const AcceptanceProcess& p) { return p.chain_tpc(n); }});
  for (int k : {1, 2, 4})
    spec.statistics.push_back({"top-" + std::to_string(k), source.top_k_hit(k), 1.0,
                               [k](const AcceptanceProcess& p) { return p.top_k_hit(k); }});
  const ProcessFitResult r = fit_acceptance_process(spec);
  CHECK(r.max_abs_residual < 1e-5);
  CHECK(r.process.params().alpha_easy == Approx(truth.alpha_easy).margin(1e-3));
  CHECK(r.process.params().easy_share == Approx(truth.easy_share).margin(1e-3));
  // One statistic cannot fix three parameters: two directions stay open.
  spec.statistics.resize(1);
  CHECK(fit_acceptance_process(spec).left_open.size() >= 2);
}

TEST_CASE("Shipped DuoDecoding band reproduces all four cells of paper 003 Table 4 within 0.03") {
  const std::string dir = models::ConfigRegistry::default_config_dir();
  const auto table = duodecoding::paper003_table4(dir);
  const ProcessBand band = resolve_process_band("duodecoding-paper003", dir);
  REQUIRE(band.members.size() >= 2);
  CHECK(band.left_open == std::vector<std::string>{"persistence", "lower_rank_share"});
  const StatisticsFile file = read_statistics_file(dir + "/acceptance/statistics/paper003-table4.yaml");
  // Table 4's four cells, fitted; Sequoia's four greedy trees, checked (next test case).
  REQUIRE(file.spec.statistics.size() == 8);
  std::vector<AcceptanceStatistic> table4;
  for (const auto& s : file.spec.statistics)
    if (s.fitted) table4.push_back(s);
  REQUIRE(table4.size() == 4);
  duodecoding::SequencePolicy policy;
  policy.dynamic = true;
  for (const auto& m : band.members) {
    const AcceptanceProcess p(m.params);
    const auto cells = duodecoding::simulated_check_confusion(p, duodecoding::paper003_measured_budget(dir), policy, 15000, 1);
    for (int a = 0; a < 2; ++a)
      for (int many = 0; many < 2; ++many) CHECK(cells[a][many] == Approx(table.confusion[a][many]).margin(0.03));
    // The same cells through the statistics file's own predictions.
    for (const auto& s : table4) CHECK(s.predict(p) == Approx(s.value).margin(0.03));
    // Table 4's accepted share is a check rate: the per-token mean is higher.
    CHECK(p.mean_acceptance() > table.top1_accepted_fraction + 0.03);
  }
}

TEST_CASE("Statistics files: bad kinds, keys and parameters are one-line errors naming them") {
  auto write = [](const std::string& body) {
    const std::string path = "acceptance_statistics_test.yaml";
    std::ofstream(path) << body;
    return path;
  };
  const std::string head = "name: t\nfree: [alpha_easy]\nstatistics:\n";
  CHECK_THROWS_WITH(read_statistics_file(write(head + "  - {kind: chain_tcp, length: 3, value: 2}\n")),
                    Catch::Contains("chain_tpc"));
  CHECK_THROWS_WITH(read_statistics_file(write(head + "  - {kind: chain_tpc, lenght: 3, value: 2}\n")),
                    Catch::Contains("lenght"));
  CHECK_THROWS_WITH(read_statistics_file(write("name: t\nfree: [alpha_esay]\nstatistics:\n  - {kind: mean_acceptance, value: 0.5}\n")),
                    Catch::Contains("alpha_easy"));
  CHECK_THROWS_WITH(read_statistics_file(write(head + "  - {kind: tree_tpc, tree: [\"0 0\"], value: 2}\n")),
                    Catch::Contains("prefix-closed"));
  CHECK_THROWS_AS(read_statistics_file(write(head + "  - {kind: chain_tpc, length: 3, value: .nan}\n")), models::InputError);
  // borrowed: parameters held at start, named with their source; a free one or a misspelt one is refused.
  const std::string stat = "statistics:\n  - {kind: mean_acceptance, value: 0.6}\n";
  const auto file = read_statistics_file(
      write("name: t\nstart: {easy_share: 0.7}\nfree: [alpha_easy]\nborrowed: {easy_share: \"another pair\"}\n" + stat));
  REQUIRE(file.borrowed.size() == 1);
  CHECK(file.borrowed[0] == "easy_share = 0.7 borrowed (another pair)");
  const auto band = fit_statistics(file).band;
  CHECK(band.borrowed == file.borrowed);
  std::ofstream("acceptance_band_test.yaml") << format_process_band(band, "test");
  CHECK(read_process_band("acceptance_band_test.yaml").borrowed == file.borrowed);
  // Names and sources with YAML's specials, quotes and line breaks read back as written.
  ProcessBand odd = band;
  odd.name = "a: b # c";
  odd.fitted_to = "stats \"v2\"\nsecond line: - &x";
  odd.borrowed = {"- [x]", "{y}: 'z'"};
  std::ofstream("acceptance_band_test.yaml") << format_process_band(odd, "a comment\nover two lines");
  const ProcessBand back = read_process_band("acceptance_band_test.yaml");
  CHECK(back.name == odd.name);
  CHECK(back.fitted_to == odd.fitted_to);
  CHECK(back.borrowed == odd.borrowed);
  CHECK(back.members.size() == odd.members.size());
  std::remove("acceptance_band_test.yaml");
  CHECK_THROWS_WITH(read_statistics_file(write("name: t\nfree: [alpha_easy]\nborrowed: {alpha_easy: x}\n" + stat)),
                    Catch::Contains("neither free nor open"));
  CHECK_THROWS_WITH(read_statistics_file(write("name: t\nfree: [alpha_easy]\nborrowed: {easy_shar: x}\n" + stat)),
                    Catch::Contains("easy_share"));
  std::remove("acceptance_statistics_test.yaml");
}

TEST_CASE("Statistics files: a value outside what its statistic can be, a falling curve and a repeated open value are refused") {
  auto write = [](const std::string& body) {
    const std::string path = "acceptance_statistics_domain_test.yaml";
    std::ofstream(path) << body;
    return path;
  };
  const std::string head = "name: t\nfree: [alpha_easy]\nstatistics:\n";
  // Each is a one-line error naming the row's value and what the statistic can be.
  const std::vector<std::pair<std::string, std::string>> outside = {
      {"  - {kind: top_k_hit, k: 4, value: 1.5}\n", "statistics[0].value: expected a share of positions: 0 to 1, got 1.5"},
      {"  - {kind: mean_acceptance, value: -0.2}\n", "expected a probability: 0 to 1, got -0.2"},
      {"  - {kind: chain_tpc, length: 1, value: 5}\n", "expected tokens per call of a chain of 1: 1 to 2, got 5"},
      {"  - {kind: chain_tpc, length: 3, value: 0.5}\n", "1 to 4, got 0.5"},
      {"  - {kind: tree_tpc, tree: [\"0\", \"0 0\"], value: 3.5}\n", "a tree of depth 2: 1 to 3, got 3.5"},
      {"  - {kind: level_tree_tpc, widths: \"4 4\", value: 3.2}\n", "a tree of depth 2: 1 to 3, got 3.2"}};
  for (const auto& [row, message] : outside) {
    INFO(row);
    CHECK_THROWS_WITH(read_statistics_file(write(head + row)), Catch::Contains(message));
  }
  // A chain curve that falls by more than two residuals within the tolerance can absorb (no
  // process's curve falls): refused, naming both rows. Within it (measured noise) it is kept.
  const std::string chains = "  - {kind: chain_tpc, length: 2, value: 2.4}\n  - {kind: chain_tpc, length: 4, value: ";
  CHECK_THROWS_WITH(read_statistics_file(write("tolerance: 0.03\n" + head + chains + "2.2}\n")),
                    Catch::Contains("statistics[1].value: expected chain_tpc not to fall") &&
                        Catch::Contains("statistics[0].value"));
  CHECK_NOTHROW(read_statistics_file(write("tolerance: 0.03\n" + head + chains + "2.35}\n")));
  // A loose tolerance does not let a falling curve through beyond twice itself.
  CHECK_THROWS(read_statistics_file(write("tolerance: 0.05\n" + head + chains + "2.2}\n")));
  // Top-k hits rise with k at one depth.
  CHECK_THROWS_WITH(read_statistics_file(write(head + "  - {kind: top_k_hit, k: 1, value: 0.8}\n"
                                                      "  - {kind: top_k_hit, k: 8, value: 0.6}\n")),
                    Catch::Contains("top_k_hit depth=1"));
  // A value twice in `open` would count one fit twice in the band.
  CHECK_THROWS_WITH(read_statistics_file(write("name: t\nfree: [alpha_easy]\nopen: {persistence: [0.5, 0.7, 0.5]}\n"
                                               "statistics:\n  - {kind: mean_acceptance, value: 0.6}\n")),
                    Catch::Contains("open.persistence") && Catch::Contains("each value once"));
  std::remove("acceptance_statistics_domain_test.yaml");
}

TEST_CASE("Statistics files and bands: inputs that multiply the work are bounded, with the bound named") {
  auto write = [](const std::string& body) {
    const std::string path = "acceptance_statistics_bounds_test.yaml";
    std::ofstream(path) << body;
    return path;
  };
  // 65 open values: 65 fits.
  std::string values;
  for (int i = 0; i < 65; ++i) values += (i ? ", " : "") + std::to_string(0.01 * i);
  CHECK_THROWS_WITH(read_statistics_file(write("name: t\nfree: [alpha_easy]\nopen: {persistence: [" + values +
                                               "]}\nstatistics:\n  - {kind: mean_acceptance, value: 0.6}\n")),
                    Catch::Contains("open.persistence: expected at most 64 grid points in all (each one fit), got 65 points"));
  // Two open parameters: their grid counts, 9 x 8 = 72 fits.
  CHECK_THROWS_WITH(read_statistics_file(write("name: t\nfree: [alpha_easy]\nopen: {persistence: [0.1, 0.2, 0.3, 0.4, "
                                               "0.5, 0.6, 0.7, 0.8, 0.9], lower_rank_share: [0.2, 0.3, 0.4, 0.5, 0.6, "
                                               "0.7, 0.8, 0.9]}\nstatistics:\n  - {kind: mean_acceptance, value: 0.6}\n")),
                    Catch::Contains("open.lower_rank_share: expected at most 64 grid points in all (each one fit), got 72 points"));
  // A simulated level-hit statistic of 10^6 tokens at w = 4096, k = 4096: refused before any fit.
  CHECK_THROWS_WITH(read_statistics_file(write("name: t\nfree: [alpha_easy]\nstatistics:\n"
                                               "  - {kind: specpipe_level_hit, width: 4096, candidates: 4096, stages: 8, "
                                               "tokens: 1000000, value: 0.9}\n")),
                    Catch::Contains("statistics[0].tokens: expected tokens x width x candidates at most") &&
                        Catch::Contains("1000000 x 4096 x 4096"));
  // Paper 002's own statistic is within the bound.
  CHECK_NOTHROW(read_statistics_file(write("name: t\nfree: [alpha_easy]\nstatistics:\n"
                                           "  - {kind: specpipe_level_hit, width: 64, candidates: 16, stages: 8, "
                                           "value: 0.95}\n")));
  // A band of 1025 members: each scenario reading it would run 1025 times.
  const ProcessBand shipped = resolve_process_band("duodecoding-paper003", models::ConfigRegistry::default_config_dir(), "--acceptance");
  ProcessBand big = shipped;
  while (big.members.size() <= 1024) big.members.push_back(shipped.members.front());
  std::ofstream("acceptance_band_bounds_test.yaml") << format_process_band(big, "");
  CHECK_THROWS_WITH(read_process_band("acceptance_band_bounds_test.yaml"),
                    Catch::Contains("members: expected at most 1024 fitted processes"));
  std::remove("acceptance_band_bounds_test.yaml");
  std::remove("acceptance_statistics_bounds_test.yaml");
}

TEST_CASE("Paper 004 Table 1 EAGLE-3 chain TPCs through the process, independent and correlated, within 0.07") {
  const std::string dir = models::ConfigRegistry::default_config_dir();
  const Paper004Table1 table = load_paper004_table1(dir);
  REQUIRE(!table.eagle3.empty());
  for (const auto& row : table.eagle3) {
    INFO(row.model << " " << row.label);
    // Level and per-depth decay, then a bursty variant with the same chain statistics: the
    // chains alone cannot tell correlation from decay (the fit names what is left open).
    ProcessFitSpec spec;
    spec.start.alpha_easy = spec.start.alpha_hard = 0.8;
    spec.free = {"alpha_easy", "depth_decay"};
    for (const auto& p : row.chain)
      spec.statistics.push_back({"chain", p.tpc, 1.0, [n = p.length](const AcceptanceProcess& q) { return q.chain_tpc(n); }});
    const ProcessFitResult independent = fit_acceptance_process(spec);
    for (std::size_t i = 0; i < row.chain.size(); ++i)
      CHECK(independent.predicted[i] == Approx(row.chain[i].tpc).margin(0.07));
    spec.start = independent.process.params();
    spec.start.alpha_hard = 0.3 * spec.start.alpha_easy;
    spec.start.easy_share = 0.8;
    spec.start.persistence = 0.7;
    spec.free = {"alpha_easy", "easy_share", "depth_decay"};
    const ProcessFitResult bursty_fit = fit_acceptance_process(spec);
    for (std::size_t i = 0; i < row.chain.size(); ++i)
      CHECK(bursty_fit.predicted[i] == Approx(row.chain[i].tpc).margin(0.07));
  }
}

TEST_CASE("Paper 000: fitted to chains and small trees, the process predicts the larger trees it never saw") {
  const std::string dir = models::ConfigRegistry::default_config_dir();
  const StatisticsFile file = read_statistics_file(dir + "/acceptance/statistics/paper000-longspec-govreport-1024.yaml");
  const StatisticsFitReport rep = fit_statistics(file);
  REQUIRE(rep.band.members.size() == 1);
  const ProcessFitResult& fit = rep.fits.front();
  CHECK(fit.max_abs_residual <= file.tolerance);
  // Held out: the same table's prior-score trees with x = 17..85 (aat_measurements.csv).
  const auto data = AcceptanceData::load(dir + "/acceptance/aat_measurements.csv");
  AatQuery q;
  q.algorithm = "longspec-tree";
  q.target_model = "llama-3.1-8b-instruct";
  q.task = "govreport";
  q.context = 1024;
  double worst = 0, sum = 0;
  int n = 0;
  for (const auto& row : data.select(q)) {
    if (row.x() <= 16) continue;
    std::vector<int> widths;
    std::istringstream in(row.tree_shape);
    for (int w; in >> w;)
      if (w > 0) widths.push_back(w);
    const double predicted = fit.process.tree_tpc(fit.process.best_tree_with_widths(widths));
    const double err = std::abs(predicted - row.aat) / row.aat;
    INFO("x " << row.x() << " shape " << row.tree_shape << " measured " << row.aat << " predicted " << predicted);
    CHECK(err < 0.06);
    worst = std::max(worst, err), sum += err, ++n;
  }
  REQUIRE(n >= 20);
  CHECK(sum / n < 0.03);
}

TEST_CASE("Statistics files: several open parameters make a grid, the first varying slowest, and the band's central fit is its middle") {
  const std::string path = "acceptance_statistics_grid_test.yaml";
  std::ofstream(path) << "name: t\nfree: [alpha_easy]\nstart: {alpha_easy: 0.6, alpha_hard: 0.6}\n"
                         "open: {persistence: [0.1, 0.5], depth_decay: [1.0, 0.9, 0.8]}\n"
                         "statistics:\n  - {kind: mean_acceptance, value: 0.6}\n";
  const StatisticsFile file = read_statistics_file(path);
  CHECK(file.open_points() == 6);
  const StatisticsFitReport rep = fit_statistics(file);
  REQUIRE(rep.fits.size() == 6);
  const double persistence[] = {0.1, 0.1, 0.1, 0.5, 0.5, 0.5}, decay[] = {1.0, 0.9, 0.8, 1.0, 0.9, 0.8};
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(rep.fits[i].process.params().persistence == persistence[i]);
    CHECK(rep.fits[i].process.params().depth_decay == decay[i]);
  }
  CHECK(rep.band.left_open == std::vector<std::string>{"persistence", "depth_decay"});
  // The central fit: each open parameter's middle value among the members (the upper of two).
  CHECK(rep.band.central().params.persistence == 0.5);
  CHECK(rep.band.central().params.depth_decay == 0.9);
  // With a hole at that point, the nearest member in units of each parameter's spread.
  ProcessBand holed = rep.band;
  holed.members.erase(holed.members.begin() + 4);
  CHECK(holed.central().params.persistence == 0.5);
  CHECK(holed.central().params.depth_decay == 1.0);  // |0.1|/0.2 ties |0.1|/0.2: the first in band order
  // One open parameter: the middle member, as before.
  ProcessBand one = rep.band;
  one.left_open = {"persistence"};
  CHECK(&one.central() == &one.members[3]);
  std::remove(path.c_str());
}
