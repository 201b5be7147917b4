// specdse reproduce: every reproduction writes its folder; reproduced numbers stay near the
// paper's where the paper gives them.
#include <catch2/catch.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "experiments/reproductions/reproduction.hpp"
#include "models/config_registry.hpp"
#include "models/software_stack.hpp"
#include "experiments/process/run_process.hpp"

namespace fs = std::filesystem;

namespace {

// A copy: reproduction_table() returns its entries by value.
experiments::Reproduction find_reproduction(const std::string& name) {
  for (const auto& r : experiments::reproduction_table())
    if (r.name == name) return r;
  FAIL("no reproduction " << name);
  throw std::logic_error("unreachable");
}

// Column `name` of row `row` as a number (NaN when empty).
double cell(const experiments::Table& t, std::size_t row, const std::string& name) {
  const auto& cols = t.columns();
  const auto i = std::size_t(std::find(cols.begin(), cols.end(), name) - cols.begin());
  REQUIRE(i < cols.size());
  const auto& c = t.rows().at(row).at(i);
  if (const auto* n = std::get_if<experiments::Number>(&c)) return n->value;
  if (const auto* v = std::get_if<std::int64_t>(&c)) return double(*v);
  const auto& s = std::get<std::string>(c);
  return s.empty() ? std::nan("") : std::stod(s);
}

experiments::ReproductionResult run(const std::string& name, const models::ConfigRegistry& reg) {
  experiments::ReproduceContext ctx;
  ctx.registry = &reg;
  ctx.out_dir = (fs::temp_directory_path() / ("specdse_test_repro_" + name)).string();
  ctx.quiet = true;
  return find_reproduction(name).run(ctx);
}

}  // namespace

TEST_CASE("reproduce all --no-plots writes every reproduction's folder", "[repro]") {
  const auto out = fs::temp_directory_path() / ("specdse_test_repro_all_" + std::to_string(::getpid()));
  fs::remove_all(out);
  experiments::ProcessOptions o;
  o.out = experiments::Stream::null;
  REQUIRE(experiments::run_process({SPECDSE_SPECDSE_EXE, "reproduce", "all", "--no-plots", "--quiet", "--format", "csv",
                                    "--out", out.string()}, o)
              .status == 0);
  std::vector<std::string> expected = {"table1", "table2", "table3", "table4", "fig2",
                                       "fig4",   "fig5",   "fig6",   "regimes"};
  for (const auto& r : experiments::reproduction_table())
    if (std::find(expected.begin(), expected.end(), r.name) == expected.end()) expected.push_back(r.name);
  for (const auto& name : expected) {
    INFO(name);
    CHECK(fs::file_size(out / name / (name + ".csv")) > 0);
    CHECK(fs::file_size(out / name / (name + ".md")) > 0);
    CHECK(fs::file_size(out / name / "manifest.txt") > 0);
  }
  // `all` ran the reproductions in worker processes (every core): a reproduction run in this
  // process gives the same bytes.
  const models::ConfigRegistry reg;
  for (const std::string name : {"table1", "table3", "fig5", "specpipe-table1", "duo-table2"}) {
    INFO(name);
    std::ifstream in(out / name / (name + ".csv"), std::ios::binary);
    std::ostringstream written;
    written << in.rdbuf();
    CHECK(written.str() == run(name, reg).table.to_string(experiments::OutputFormat::csv));
  }
  fs::remove_all(out);
}

TEST_CASE("table4 V80 column stays within 5 % of paper 000 and boards rank by compute-to-bandwidth",
          "[repro]") {
  const models::ConfigRegistry reg;
  const auto res = run("table4", reg);
  const auto& t = res.table;
  int v80_rows = 0;
  for (std::size_t i = 0; i < t.rows().size(); ++i) {
    const double paper = cell(t, i, "paper_best_tokens_per_s");
    if (std::isnan(paper)) continue;
    ++v80_rows;
    CHECK(std::abs(cell(t, i, "best_tokens_per_s") - paper) / paper < 0.05);
    CHECK(std::abs(cell(t, i, "ar_tokens_per_s") - cell(t, i, "paper_ar_tokens_per_s")) /
              cell(t, i, "paper_ar_tokens_per_s") < 0.02);
    CHECK(std::abs(cell(t, i, "best_x") - cell(t, i, "paper_best_x")) <= 2);
  }
  CHECK(v80_rows == 4);
  // Paper 000 §IV-F: a higher compute-to-bandwidth ratio favours SD: U280 < VHK158 < V80 < U250
  // in average speedup (rows are board-major, four contexts per board).
  std::vector<double> avg(4, 0.0);
  for (std::size_t i = 0; i < 16; ++i) avg[i / 4] += cell(t, i, "speedup") / 4;
  CHECK(avg[0] < avg[1]);
  CHECK(avg[1] < avg[2]);
  CHECK(avg[2] < avg[3]);
}

TEST_CASE("fig4: LongSpec average speedups on Vicuna and LongChat stay within 5 % of paper 000",
          "[repro]") {
  // These four targets are multi-head (kv_heads = heads), so the draft's cross-attention reads
  // their KV once per head: the board's GQA read factor is capped at the group size of 1.
  const models::ConfigRegistry reg;
  const auto res = run("fig4", reg);
  const experiments::Table* summary = nullptr;
  for (const auto& [file, table] : res.extra_csvs)
    if (file == "fig4_summary.csv") summary = &table;
  REQUIRE(summary != nullptr);
  int longspec_rows = 0;
  for (std::size_t i = 0; i < summary->rows().size(); ++i) {
    if (std::get<std::string>(summary->rows()[i][0]) != "longspec-tree") continue;
    ++longspec_rows;
    INFO(std::get<std::string>(summary->rows()[i][1]));
    const double paper = cell(*summary, i, "paper_avg_speedup");
    CHECK(std::abs(cell(*summary, i, "avg_speedup") - paper) / paper < 0.05);
  }
  CHECK(longspec_rows == 4);
}

TEST_CASE("table3 and fig6: the prior-score tree search beats width- and depth-first", "[repro]") {
  const models::ConfigRegistry reg;
  const auto t3 = run("table3", reg).table;
  // Rows: AR, then the methods in file order; the prior-score row has the highest speedup.
  double prior = 0, best_other = 0;
  for (std::size_t i = 1; i < t3.rows().size(); ++i) {
    const auto& m = std::get<std::string>(t3.rows()[i][0]);
    const double s = cell(t3, i, "speedup");
    CHECK(std::abs(s - cell(t3, i, "paper_speedup")) / cell(t3, i, "paper_speedup") < 0.06);
    if (m == "prior-score") prior = s;
    else best_other = std::max(best_other, s);
  }
  CHECK(prior > best_other);
  const auto f6 = run("fig6", reg).table;
  for (std::size_t i = 0; i < f6.rows().size(); ++i) {
    const double paper = cell(f6, i, "paper_prior_score_aat_advantage");
    if (!std::isnan(paper)) CHECK(std::abs(cell(f6, i, "prior_score_aat_advantage") - paper) < 0.02);
  }
}

TEST_CASE("fig5: the logarithmic AAT model fits every context with R² near 0.99", "[repro]") {
  const models::ConfigRegistry reg;
  const auto t = run("fig5", reg).table;
  REQUIRE(t.rows().size() >= 6);
  for (std::size_t i = 0; i < t.rows().size(); ++i) {
    CHECK(cell(t, i, "r2") > 0.98);
    CHECK(cell(t, i, "few_r2_on_all_points") > 0.97);
  }
}

TEST_CASE("table2: the unified x loses little against each task's own best x", "[repro]") {
  const models::ConfigRegistry reg;
  const auto t = run("table2", reg).table;
  REQUIRE(t.rows().size() == 5);
  for (std::size_t i = 0; i < 5; ++i) {
    CHECK(cell(t, i, "unified_loss_pct") >= 0);
    CHECK(cell(t, i, "unified_loss_pct") < 3);
    CHECK(cell(t, i, "best_x") >= 10);
    CHECK(cell(t, i, "best_x") <= 16);
  }
}

TEST_CASE("config dir: --config-dir reaches every reader, a reproduction from an edited copy of the configs moves", "[repro]") {
  // Paper 004's Table 1 is read through the registry's folder (positional_acceptance), so an edited
  // copy changes eagle-table2's TPCs; the shipped folder's run is the reference.
  const models::ConfigRegistry shipped;
  const fs::path copy = fs::temp_directory_path() / ("specdse_test_config_copy_" + std::to_string(::getpid()));
  fs::remove_all(copy);
  fs::copy(shipped.dir(), copy, fs::copy_options::recursive);
  const fs::path table1 = copy / "reference" / "paper004_table1.yaml";
  std::stringstream text;
  text << std::ifstream(table1).rdbuf();
  std::string yaml = text.str();
  const std::string row = "{model: llama-3.1-8b-instruct, chain3_tpc: 2.78}";
  REQUIRE(yaml.find(row) != std::string::npos);
  yaml.replace(yaml.find(row), row.size(), "{model: llama-3.1-8b-instruct, chain3_tpc: 2.40}");
  std::ofstream(table1, std::ios::trunc) << yaml;
  const models::ConfigRegistry edited(copy.string());
  const auto a = run("eagle-table2", shipped), b = run("eagle-table2", edited);
  fs::remove_all(copy);
  // The 8B's row moves (its level is solved on the edited TPC); the other models' rows do not.
  const auto& cols = a.table.columns();
  const auto model_col = std::size_t(std::find(cols.begin(), cols.end(), "model") - cols.begin());
  REQUIRE(model_col < cols.size());
  int moved = 0, kept = 0;
  for (std::size_t r = 0; r < a.table.rows().size(); ++r) {
    const auto& model = std::get<std::string>(a.table.rows()[r][model_col]);
    const double ta = cell(a.table, r, "tpc"), tb = cell(b.table, r, "tpc");
    INFO(model << ": " << ta << " -> " << tb);
    if (model == "llama-3.1-8b-instruct") {
      CHECK(tb < ta);
      ++moved;
    } else {
      CHECK(tb == ta);
      ++kept;
    }
  }
  CHECK(moved >= 1);
  CHECK(kept >= 1);
}

TEST_CASE("vllm-serving: time per output token within 10 % of measured vLLM V1 on an H200, plain and with EAGLE-3",
          "[repro]") {
  const models::ConfigRegistry reg;
  const auto res = run("vllm-serving", reg);
  const auto& t = res.table;
  const auto& cols = t.columns();
  const auto col = [&](const std::string& name) {
    return std::size_t(std::find(cols.begin(), cols.end(), name) - cols.begin());
  };
  const auto text_cell = [&](std::size_t row, const std::string& name) {
    return std::get<std::string>(t.rows().at(row).at(col(name)));
  };
  int h200_tpot = 0, vllm054 = 0;
  for (std::size_t i = 0; i < t.rows().size(); ++i) {
    INFO("row " << i << ": " << text_cell(i, "run") << " " << text_cell(i, "method") << " " << text_cell(i, "metric"));
    const double measured = cell(t, i, "measured"), model = cell(t, i, "model");
    CHECK(cell(t, i, "error_pct") == Approx(100 * (model - measured) / measured).epsilon(1e-3));
    if (text_cell(i, "run") == "vllm-2026-h200-mtbench-eagle3" && text_cell(i, "metric") == "tpot_p50_ms") {
      ++h200_tpot;
      CHECK(std::abs(cell(t, i, "error_pct")) < 10);
    }
    if (text_cell(i, "run").rfind("vllm054", 0) == 0 && text_cell(i, "metric") == "tpot_p50_ms") {
      // vLLM 0.5.4 under its generation's stack (one published operating point of its host work):
      // faster than measured (docs/serving.md names the untested causes), within half.
      ++vllm054;
      CHECK(text_cell(i, "stack") == "vllm-0.5");
      CHECK(model < measured);
      CHECK(std::abs(cell(t, i, "error_pct")) < 50);
    }
  }
  CHECK(h200_tpot == 2);  // plain and EAGLE-3
  CHECK(vllm054 == 2);    // 80 and 320 prompts
  // Speculation pays in that run and in the model: EAGLE-3's time per token below plain decoding's.
  double plain = 0, eagle = 0;
  for (std::size_t i = 0; i < t.rows().size(); ++i)
    if (text_cell(i, "run") == "vllm-2026-h200-mtbench-eagle3")
      (text_cell(i, "method") == "no SD" ? plain : eagle) = cell(t, i, "model");
  CHECK(eagle > 0);
  CHECK(eagle < plain);
  // The vllm-0.5 stack's host work is its source's figure: 20 ms between steps at 200 sequences.
  const auto stack = models::load_software_stack(reg.path("stacks", "vllm-0.5"));
  CHECK(stack.step_host_us(200) == Approx(20000));
  CHECK_FALSE(stack.host_overlaps_device);
}

TEST_CASE("specbench-steps: plain serving steps within 5 % of the fitted vLLM 0.10 H100 profile, drafts within 12 %, "
          "its host its stack's", "[repro]") {
  const models::ConfigRegistry reg;
  const auto res = run("specbench-steps", reg);
  const auto& t = res.table;
  REQUIRE(t.rows().size() == 30);  // 5 batches x 3 contexts x (plain, EAGLE-3)
  std::vector<double> plain;
  for (std::size_t i = 0; i < t.rows().size(); ++i) {
    INFO("row " << i);
    const double err = cell(t, i, "step_error_pct");
    if (cell(t, i, "tokens_per_seq") == 1) {
      plain.push_back(std::abs(err));
      CHECK(std::abs(err) < 12);
    } else {
      // The draft: the head passes' GPU time and the proposer's host work per pass (calibrated at
      // batch 1, context 1024), against the fit's draft at batches 1-64.
      const double draft_err = cell(t, i, "draft_error_pct");
      CHECK(draft_err == Approx(100 * (cell(t, i, "draft_ms") / cell(t, i, "fitted_draft_ms") - 1)).margin(0.01));
      CHECK(std::abs(draft_err) < 12);
      if (cell(t, i, "batch") == 1 && cell(t, i, "context") == 1024) CHECK(std::abs(draft_err) < 0.5);
      // Figure 4's measured drafting share where it has the batch: at batch 1 within a point.
      if (cell(t, i, "batch") == 1) CHECK(cell(t, i, "draft_share_pct") == Approx(cell(t, i, "fig4_draft_share_pct")).margin(1));
    }
  }
  std::sort(plain.begin(), plain.end());
  CHECK(plain[plain.size() / 2] < 5);
  // The in-process stack's host work per step is the profile's overhead, launch included.
  const auto stack = models::load_software_stack(reg.path("stacks", "vllm-v1-inprocess"));
  std::ifstream profile(reg.dir() + "/reference/specdecode_bench_llama8b_h100.yaml");
  std::string line, overhead;
  while (std::getline(profile, line))
    if (line.rfind("overhead_per_step_s:", 0) == 0) overhead = line.substr(line.find(':') + 1);
  REQUIRE(!overhead.empty());
  CHECK((stack.step_host_us(1) + stack.graph_launch_host_us) * 1e-6 == Approx(std::stod(overhead)).epsilon(1e-4));
}

TEST_CASE("specpipe-fig11 host sensitivity: a slower host never gives paper 002's single-server order", "[repro]") {
  // Paper 002 has SpecPipe first and PP + EAGLE-3 behind PP-vLLM on one server; the model has
  // EAGLE-3 far ahead. A slower host (every stack's host figures scaled alike) slows the eager
  // methods, not vLLM's CUDA graphs, so EAGLE-3 does fall behind PP-vLLM on a slow enough host,
  // but SpecPipe, on the same eager stack, falls behind both first.
  const models::ConfigRegistry reg;
  const auto res = run("specpipe-fig11", reg);
  const experiments::Table* host = nullptr;
  for (const auto& [file, table] : res.extra_csvs)
    if (file == "specpipe-fig11_host_sensitivity.csv") host = &table;
  REQUIRE(host != nullptr);
  REQUIRE(host->rows().size() >= 6);
  // The factor-1 row is the main table's single-server run.
  double main_eagle = std::nan(""), main_vllm = std::nan("");
  const auto& cols = res.table.columns();
  const auto method = std::size_t(std::find(cols.begin(), cols.end(), "method") - cols.begin());
  const auto system = std::size_t(std::find(cols.begin(), cols.end(), "system") - cols.begin());
  for (std::size_t i = 0; i < res.table.rows().size(); ++i) {
    if (std::get<std::string>(res.table.rows()[i].at(system)) != "specpipe-8x3090-pcie") continue;
    const auto& m = std::get<std::string>(res.table.rows()[i].at(method));
    if (m == "pp+eagle3") main_eagle = cell(res.table, i, "tbt_mean_s");
    if (m == "pp-vllm") main_vllm = cell(res.table, i, "tbt_mean_s");
  }
  CHECK(cell(*host, 0, "host_factor") == 1);
  CHECK(cell(*host, 0, "eagle3_tbt_s") == Approx(main_eagle).epsilon(1e-9));
  CHECK(cell(*host, 0, "pp_vllm_tbt_s") == Approx(main_vllm).epsilon(1e-9));
  bool eagle_behind_somewhere = false;
  for (std::size_t i = 0; i < host->rows().size(); ++i) {
    INFO("host factor " << cell(*host, i, "host_factor"));
    const double spec = cell(*host, i, "specpipe_tbt_s"), eagle = cell(*host, i, "eagle3_tbt_s"),
                 vllm = cell(*host, i, "pp_vllm_tbt_s");
    if (i > 0) {
      // Slower hosts are never faster; vLLM's captured steps barely move.
      CHECK(spec >= cell(*host, i - 1, "specpipe_tbt_s"));
      CHECK(eagle >= cell(*host, i - 1, "eagle3_tbt_s"));
      CHECK(vllm < 1.1 * cell(*host, 0, "pp_vllm_tbt_s"));
    }
    eagle_behind_somewhere = eagle_behind_somewhere || eagle > vllm;
    const bool paper_order = spec < eagle && spec < vllm && eagle > vllm;
    CHECK_FALSE(paper_order);
    CHECK((std::get<std::string>(host->rows()[i].back()) == "yes") == paper_order);
  }
  CHECK(eagle_behind_somewhere);  // the grid reaches the crossing
}
