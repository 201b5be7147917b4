// specdse sweep: spec expansion, determinism across thread counts, resume after an
// interruption, malformed specs (InputError, CLI exit 2).
#include <catch2/catch.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "experiments/sweep/sweep_runner.hpp"
#include "experiments/process/run_process.hpp"
#include "experiments/sweep/sweep_spec.hpp"
#include "tests/experiments/cli_run.hpp"
#include "tests/experiments/sweep_test_support.hpp"
#include "models/config_error.hpp"

namespace fs = std::filesystem;
using experiments::load_sweep_spec;

namespace {

using sweep_test::body;
using sweep_test::read;
using sweep_test::temp_dir;
using sweep_test::write;

const char* kSpec = R"(name: small
x_max: 64
axes:
  hardware: v80
  model: llama-3.1-8b-instruct
  algorithm: longspec-tree
  source_table: t3-4
  context: [128, 1024]
  memory.bandwidth_gbs: {from: 100, to: 10000, count: 3, scale: log}
  compute.mm_mode.k: [8, 16]
)";

}  // namespace

TEST_CASE("sweep spec expands to the Cartesian product, last axis fastest", "[sweep]") {
  const auto d = temp_dir("expand");
  const auto spec = load_sweep_spec(write(d / "s.yaml", kSpec));
  REQUIRE(spec.size() == 2 * 3 * 2);
  REQUIRE(spec.hardware_keys() == std::vector<std::string>{"memory.bandwidth_gbs", "compute.mm_mode.k"});
  const auto p0 = spec.point(0);
  CHECK(p0.hardware == "v80");
  CHECK(p0.context == 128);
  CHECK(p0.batch == 1);
  CHECK(p0.task == "govreport");
  CHECK(p0.hardware_overrides[0].second == "100");
  CHECK(p0.hardware_overrides[1].second == "8");
  const auto p1 = spec.point(1);
  CHECK(p1.hardware_overrides[1].second == "16");
  CHECK(p1.hardware_overrides[0].second == "100");
  const auto p3 = spec.point(3);
  CHECK(p3.hardware_overrides[0].second == "1000");  // log midpoint of 100 .. 10000
  const auto last = spec.point(11);
  CHECK(last.context == 1024);
  CHECK(last.hardware_overrides[0].second == "10000");
  CHECK(last.hardware_overrides[1].second == "16");
  fs::remove_all(d);
}

TEST_CASE("sweep output bytes do not depend on the thread count", "[sweep]") {
  const auto d = temp_dir("threads");
  const auto spec = load_sweep_spec(write(d / "s.yaml", kSpec));
  const models::ConfigRegistry reg;
  experiments::SweepRunOptions o1, o4;
  o1.out_path = (d / "one.csv").string();
  o1.threads = 1;
  o4.out_path = (d / "four.csv").string();
  o4.threads = 4;
  const auto s1 = experiments::run_sweep(spec, reg, o1);
  const auto s4 = experiments::run_sweep(spec, reg, o4);
  CHECK(s1.computed == spec.size());
  CHECK(s4.threads == 4);
  const auto a = read(o1.out_path), b = read(o4.out_path);
  CHECK(a == b);
  // What the rows were computed under, then the header and one line per point, in index order.
  CHECK_THAT(a, Catch::StartsWith("# sweep_settings: x_max=") && Catch::Contains("\n# input hardware/v80.yaml: "));
  const std::string rows = body(a);
  CHECK(std::count(rows.begin(), rows.end(), '\n') == long(spec.size() + 1));
  CHECK(a.find("\n0,v80,") != std::string::npos);
  CHECK(a.find("\n11,v80,") != std::string::npos);
  CHECK(a.find("\n0,v80,") < a.find("\n11,v80,"));
  // A different bandwidth changes the result: the override reached the hardware.
  std::istringstream lines(a);
  std::string header, r0, r2;
  std::getline(lines, header);
  std::getline(lines, r0);
  std::getline(lines, r2);
  std::getline(lines, r2);
  CHECK(r0.substr(r0.find(",8,") + 3) != r2.substr(r2.find(",8,") + 3));
  fs::remove_all(d);
}

TEST_CASE("an interrupted sweep resumes after its last complete row", "[sweep]") {
  const auto d = temp_dir("resume");
  const auto spec = load_sweep_spec(write(d / "s.yaml", kSpec));
  const models::ConfigRegistry reg;
  experiments::SweepRunOptions o;
  o.out_path = (d / "full.csv").string();
  o.threads = 2;
  experiments::run_sweep(spec, reg, o);
  const std::string full = read(o.out_path);
  // Keep the fingerprint, the header, three complete rows and half of the fourth, as a killed run
  // leaves it.
  std::size_t cut = full.size() - body(full).size();
  for (int i = 0; i < 4; ++i) cut = full.find('\n', cut) + 1;
  const std::string partial = full.substr(0, cut) + full.substr(cut, 9);
  write(d / "partial.csv", partial);
  o.out_path = (d / "partial.csv").string();
  const auto stats = experiments::run_sweep(spec, reg, o);
  CHECK(stats.reused == 3);
  CHECK(stats.computed == spec.size() - 3);
  CHECK(read(o.out_path) == full);
  // A finished file is left as it is.
  const auto again = experiments::run_sweep(spec, reg, o);
  CHECK(again.reused == spec.size());
  CHECK(again.computed == 0);
  CHECK(read(o.out_path) == full);
  // A file from another spec is refused rather than mixed in.
  write(d / "other.csv", "index,something_else\n0,1\n");
  o.out_path = (d / "other.csv").string();
  CHECK_THROWS_AS(experiments::run_sweep(spec, reg, o), models::InputError);
  fs::remove_all(d);
}

TEST_CASE("sweep rows name their engine, --engine's when it replaces the spec's, and a resume under another is refused",
          "[sweep]") {
  const auto d = temp_dir("engine");
  const std::string spec = write(d / "s.yaml", "name: e\nengine: roofline\naxes:\n  hardware: v80\n  model: "
                                                "llama-3.1-8b-instruct\n  algorithm: longspec-tree\n  context: [1024]\n");
  const std::string out = (d / "out.csv").string();
  const auto first = cli_test::run("sweep --quiet --spec " + spec + " --out " + out, false);
  REQUIRE(first.status == 0);
  CHECK(body(read(out)).rfind("index,hardware,model,algorithm,task,context,batch,engine,", 0) == 0);
  CHECK_THAT(read(out), Catch::Contains(",1024,1,roofline,"));
  // Another engine on the same output is not mixed in.
  const auto other = cli_test::run("sweep --quiet --spec " + spec + " --out " + out + " --engine sim");
  CHECK(other.status == 2);
  // The file's record of its engine differs from this run's: refused, naming both.
  CHECK_THAT(other.output, Catch::Contains("'sweep_engine: roofline' there, 'sweep_engine: sim' now") &&
                               Catch::Contains("or choose another --out"));
  const auto printed = cli_test::run("sweep --quiet --spec " + spec + " --engine sim", false);
  REQUIRE(printed.status == 0);
  CHECK_THAT(printed.output, Catch::Contains(",1024,1,sim,"));
  fs::remove_all(d);
}

TEST_CASE("malformed sweep specs are InputErrors naming file and key", "[sweep]") {
  const auto d = temp_dir("bad");
  auto fails_with = [&](const std::string& text, const std::string& key) {
    const auto path = write(d / "bad.yaml", text);
    try {
      load_sweep_spec(path);
      FAIL("no error for: " << text);
    } catch (const models::InputError& e) {
      const std::string msg = e.what();
      CHECK(msg.find(path) != std::string::npos);
      CHECK(msg.find(key) != std::string::npos);
    }
  };
  fails_with("axes: {model: a, algorithm: b, context: 1}\n", "axes.hardware");
  fails_with("axes: {hardware: v80, model: a, algorithm: b, context: [1, -5]}\n", "axes.context");
  fails_with("axes: {hardware: v80, model: a, algorithm: b, context: 1, memory.bandwidth_gbs: [fast]}\n",
             "axes.memory.bandwidth_gbs");
  fails_with("axes: {hardware: v80, model: a, algorithm: b, context: 1, clock_mhz: {from: 1, to: 2}}\n",
             "count");
  fails_with("axes: {hardware: v80, model: a, algorithm: b, context: []}\n", "axes.context");
  fails_with("speed: 3\naxes: {hardware: v80, model: a, algorithm: b, context: 1}\n", "speed");
  fails_with("axes: [1, 2\n", "YAML");
  fails_with("x_search: fastest\naxes: {hardware: v80, model: a, algorithm: b, context: 1}\n", "x_search");

  // A hardware key that the board's YAML does not have fails before any work is done.
  const auto spec = load_sweep_spec(write(d / "key.yaml",
                                          "axes: {hardware: v80, model: llama-3.1-8b-instruct, algorithm: "
                                          "longspec-tree, context: 1024, memory.no_such_key: [1]}\n"));
  const models::ConfigRegistry reg;
  CHECK_THROWS_AS(experiments::run_sweep(spec, reg, {}), models::InputError);

  // The CLI reports it on one line and exits 2.
  experiments::ProcessOptions quiet;
  quiet.out = quiet.err = experiments::Stream::null;
  CHECK(experiments::run_process({SPECDSE_SPECDSE_EXE, "sweep", "--quiet", "--spec", (d / "bad.yaml").string()}, quiet)
            .status == 2);
  fs::remove_all(d);
}

TEST_CASE("the shipped compute-to-bandwidth sweep shows all three regimes of paper 000", "[sweep]") {
  const models::ConfigRegistry reg;
  const auto spec = load_sweep_spec(reg.dir() + "/sweeps/compute_bandwidth_ratio.yaml");
  experiments::Table rows({});
  experiments::run_sweep(spec, reg, {}, &rows);
  const auto& cols = rows.columns();
  const auto col = std::find(cols.begin(), cols.end(), "sd_case") - cols.begin();
  std::set<std::string> cases;
  for (const auto& r : rows.rows()) cases.insert(std::get<std::string>(r[col]));
  CHECK(cases == std::set<std::string>{"sd_never_helps", "interior_optimum", "optimum_at_saturation"});
}

TEST_CASE("sweep: a point that does not fit the device's memory is a row with a status, not a time", "[sweep]") {
  const auto d = temp_dir("infeasible");
  const auto spec = load_sweep_spec(write(d / "s.yaml", R"(name: fit
x_max: 32
axes:
  hardware: rtx3090
  model: llama-3.1-8b-instruct
  algorithm: longspec-tree
  source_table: t3-4
  context: [1024, 16384]
  batch: [1, 64]
)"));
  const models::ConfigRegistry reg;
  experiments::SweepRunOptions o;
  o.out_path = (d / "fit.csv").string();
  o.threads = 2;
  experiments::run_sweep(spec, reg, o);
  std::istringstream lines(body(read(o.out_path)));
  std::string line;
  std::getline(lines, line);
  CHECK(line.substr(line.rfind(',') + 1) == "status");
  int ok = 0, infeasible = 0;
  while (std::getline(lines, line)) {
    const std::string status = line.substr(line.rfind(',') + 1);
    if (status == "ok") ++ok;
    if (status.rfind("infeasible: needs", 0) == 0) {
      ++infeasible;
      CHECK(line.find(",,") != std::string::npos);  // no throughput for an infeasible point
      CHECK(line.find("nan") == std::string::npos);
    }
  }
  // Batch 64 at 16K context needs ~130 GiB of KV cache on a 24 GiB card; batch 1 fits.
  CHECK(infeasible >= 1);
  CHECK(ok >= 2);
  fs::remove_all(d);
}

TEST_CASE("sweep: SystemC engine sweeps run on several threads with the same bytes", "[sweep]") {
  const auto d = temp_dir("sim_threads");
  const auto spec = load_sweep_spec(write(d / "s.yaml", R"(name: sim
engine: sim
x_max: 16
axes:
  hardware: [v80, h100-sxm]
  model: llama-3.1-8b-instruct
  algorithm: longspec-tree
  source_table: t3-4
  context: [128, 1024]
)"));
  const models::ConfigRegistry reg;
  experiments::SweepRunOptions o1, o2;
  o1.out_path = (d / "one.csv").string();
  o1.threads = 1;
  o2.out_path = (d / "two.csv").string();
  o2.threads = 2;
  experiments::run_sweep(spec, reg, o1);
  const auto s2 = experiments::run_sweep(spec, reg, o2);
  CHECK(s2.threads == 2);
  CHECK(read(o1.out_path) == read(o2.out_path));
  fs::remove_all(d);
}

TEST_CASE("sweep: x_search optimum gives the every-x rows with ridge_x and regime left empty", "[sweep]") {
  const auto d = temp_dir("x_search");
  const std::string axes = R"(engine: sim
axes:
  hardware: [v80, u250]
  model: llama-3.1-8b-instruct
  algorithm: longspec-tree
  source_table: t3-4
  context: [1024, 16384]
)";
  const auto every = load_sweep_spec(write(d / "every.yaml", "name: s\n" + axes));
  const auto optimum = load_sweep_spec(write(d / "optimum.yaml", "name: s\nx_search: optimum\n" + axes));
  CHECK(every.every_x);
  CHECK_FALSE(optimum.every_x);
  const models::ConfigRegistry reg;
  experiments::SweepRunOptions o1, o2;
  o1.out_path = (d / "every.csv").string();
  o2.out_path = (d / "optimum.csv").string();
  experiments::run_sweep(every, reg, o1);
  experiments::run_sweep(optimum, reg, o2);
  // Blank the ridge_x and regime cells of the every-x rows: then the tables are equal.
  auto every_rows = cli_test::csv(read(o1.out_path));
  const auto optimum_rows = cli_test::csv(read(o2.out_path));
  REQUIRE(every_rows.size() == 5);  // header and 4 points
  REQUIRE(optimum_rows.size() == every_rows.size());
  CHECK(every_rows[0] == optimum_rows[0]);
  const std::size_t ridge = cli_test::column(every_rows[0], "ridge_x"), regime = cli_test::column(every_rows[0], "regime");
  for (std::size_t i = 1; i < every_rows.size(); ++i) {
    auto& a = every_rows[i];
    const auto& b = optimum_rows[i];
    REQUIRE(a.size() == b.size());
    REQUIRE(a.size() > std::max(ridge, regime));
    CHECK_FALSE(a[ridge].empty());
    CHECK(b[ridge].empty());
    CHECK(b[regime].empty());
    a[ridge].clear();
    a[regime].clear();
    CHECK(a == b);
  }
  fs::remove_all(d);
}
