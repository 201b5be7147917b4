// specdse sweep --shard I/N and `specdse sweep merge`: the shards of a job array, merged, are
// byte-identical to a single run; a shard resumes like any --out; merge refuses missing,
// repeated or foreign shards rather than writing a wrong file.
#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "experiments/sweep/sweep_runner.hpp"
#include "experiments/sweep/sweep_spec.hpp"
#include "models/config_error.hpp"
#include "tests/experiments/cli_run.hpp"
#include "tests/experiments/sweep_test_support.hpp"

namespace fs = std::filesystem;

namespace {

using sweep_test::read;
using sweep_test::write;

fs::path temp_dir(const std::string& name) { return sweep_test::temp_dir("shard_" + name); }

// Exit status of the CLI (its stderr dropped).
int run(const std::string& args) { return cli_test::run(args, false).status; }

// 2 contexts x 5 bandwidths = 10 points: 3 shards get 4, 3 and 3 of them.
const char* kSpec = R"(name: shard_small
x_max: 64
axes:
  hardware: v80
  model: llama-3.1-8b-instruct
  algorithm: longspec-tree
  source_table: t3-4
  context: [128, 1024]
  memory.bandwidth_gbs: {from: 100, to: 10000, count: 5, scale: log}
)";

}  // namespace

TEST_CASE("sweep --shard: merged shards are byte-identical to one run, in any order", "[sweep][shard]") {
  const auto d = temp_dir("merge");
  const auto spec = write(d / "s.yaml", kSpec);
  REQUIRE(run("sweep --quiet --threads 2 --spec " + spec + " --out " + (d / "one.csv").string()) == 0);
  for (int i = 0; i < 3; ++i)
    REQUIRE(run("sweep --quiet --threads 1 --spec " + spec + " --shard " + std::to_string(i) + "/3 --out " +
                (d / ("shard" + std::to_string(i) + ".csv")).string()) == 0);
  // Each shard holds only its own points (index % 3 == i), header first.
  const std::string s1 = sweep_test::body(read(d / "shard1.csv"));
  CHECK(std::count(s1.begin(), s1.end(), '\n') == 1 + 3);
  CHECK(s1.find("\n1,v80,") != std::string::npos);
  CHECK(s1.find("\n4,v80,") != std::string::npos);
  CHECK(s1.find("\n0,v80,") == std::string::npos);
  const std::string merged = (d / "merged.csv").string();
  REQUIRE(run("sweep merge --quiet " + merged + " " + (d / "shard2.csv").string() + " " +
              (d / "shard0.csv").string() + " " + (d / "shard1.csv").string()) == 0);
  CHECK(read(merged) == read(d / "one.csv"));
  // With --spec, merge also checks every point against the spec.
  const std::string merged2 = (d / "merged2.csv").string();
  REQUIRE(run("sweep merge --quiet --spec " + spec + " " + merged2 + " " + (d / "shard0.csv").string() + " " +
              (d / "shard1.csv").string() + " " + (d / "shard2.csv").string()) == 0);
  CHECK(read(merged2) == read(d / "one.csv"));
  // A shard computed under other settings (the same points at another x_max) is not joined.
  std::string other_spec = kSpec;
  other_spec.replace(other_spec.find("x_max: 64"), 9, "x_max: 32");
  const auto other = write(d / "other.yaml", other_spec);
  REQUIRE(run("sweep --quiet --threads 1 --spec " + other + " --shard 1/3 --out " + (d / "other1.csv").string()) == 0);
  const auto mixed = cli_test::run("sweep merge --quiet " + (d / "mixed.csv").string() + " " + (d / "shard0.csv").string() +
                                   " " + (d / "other1.csv").string() + " " + (d / "shard2.csv").string());
  CHECK(mixed.status == 2);
  CHECK_THAT(mixed.output, Catch::Contains("other1.csv: computed under other settings") &&
                               Catch::Contains("sweep_settings: x_max=32"));
  CHECK_FALSE(fs::exists(d / "mixed.csv"));
  fs::remove_all(d);
}

TEST_CASE("sweep --shard: an interrupted shard resumes after its last complete row", "[sweep][shard]") {
  const auto d = temp_dir("resume");
  const auto spec = experiments::load_sweep_spec(write(d / "s.yaml", kSpec));
  const models::ConfigRegistry reg;
  experiments::SweepRunOptions o;
  o.shard_index = 1;
  o.shard_count = 2;
  o.threads = 2;
  o.out_path = (d / "full.csv").string();
  const auto first = experiments::run_sweep(spec, reg, o);
  CHECK(first.total == 5);
  CHECK(first.computed == 5);
  const std::string full = read(o.out_path);
  // Fingerprint, header, two complete rows and part of the third, as a killed job leaves it.
  std::size_t cut = sweep_test::fingerprint(full).size();
  for (int i = 0; i < 3; ++i) cut = full.find('\n', cut) + 1;
  write(d / "partial.csv", full.substr(0, cut) + full.substr(cut, 7));
  o.out_path = (d / "partial.csv").string();
  const auto resumed = experiments::run_sweep(spec, reg, o);
  CHECK(resumed.reused == 2);
  CHECK(resumed.computed == 3);
  CHECK(read(o.out_path) == full);
  // Another shard's file is refused: its first row is not this shard's first point.
  experiments::SweepRunOptions other = o;
  other.shard_index = 0;
  CHECK_THROWS_AS(experiments::run_sweep(spec, reg, other), models::InputError);
  fs::remove_all(d);
}

TEST_CASE("sweep merge refuses a missing, repeated, partial or foreign shard", "[sweep][shard]") {
  const auto d = temp_dir("bad");
  const auto spec = experiments::load_sweep_spec(write(d / "s.yaml", kSpec));
  const models::ConfigRegistry reg;
  std::vector<std::string> shards;
  for (std::size_t i = 0; i < 2; ++i) {
    experiments::SweepRunOptions o;
    o.shard_index = i;
    o.shard_count = 2;
    o.threads = 1;
    o.out_path = (d / ("s" + std::to_string(i) + ".csv")).string();
    experiments::run_sweep(spec, reg, o);
    shards.push_back(o.out_path);
  }
  const std::string out = (d / "m.csv").string();
  // Missing shard 1: the points 1, 3, ... are not there.
  CHECK_THROWS_WITH(experiments::merge_sweep_shards(out, {shards[0]}), Catch::Contains("expected point 1"));
  // Even with only the last point missing, --spec knows how many there are.
  {
    std::string s1 = read(shards[1]);
    s1 = s1.substr(0, s1.rfind('\n', s1.size() - 2) + 1);  // drop point 9
    write(d / "short.csv", s1);
    CHECK_THROWS_AS(experiments::merge_sweep_shards(out, {shards[0], (d / "short.csv").string()}, &spec),
                    models::InputError);
    // A partial last row is an interrupted shard.
    write(d / "cut.csv", read(shards[1]).substr(0, read(shards[1]).size() - 5));
    CHECK_THROWS_WITH(experiments::merge_sweep_shards(out, {shards[0], (d / "cut.csv").string()}),
                      Catch::Contains("partial"));
  }
  CHECK_THROWS_WITH(experiments::merge_sweep_shards(out, {shards[0], shards[1], shards[1]}),
                    Catch::Contains("again"));
  write(d / "foreign.csv", "index,other\n0,1\n");
  CHECK_THROWS_AS(experiments::merge_sweep_shards(out, {shards[0], (d / "foreign.csv").string()}),
                  models::InputError);
  CHECK_FALSE(fs::exists(out));  // nothing written when a check fails
  // The CLI: exit 2 for a bad shard spec, and for --shard without --out.
  CHECK(run("sweep --spec " + (d / "s.yaml").string() + " --shard 2/2 --out " + (d / "x.csv").string()) == 2);
  CHECK(run("sweep --spec " + (d / "s.yaml").string() + " --shard 0/2") == 2);
  CHECK(experiments::merge_sweep_shards(out, shards, &spec) == spec.size());
  fs::remove_all(d);
}

TEST_CASE("sweep merge: shards of another grid, under another spec's settings, into a shard, or not files are refused") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("specdse_test_merge_grid_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto spec = [&](const std::string& name, const std::string& bandwidths, int x_max) {
    const fs::path p = dir / (name + ".yaml");
    std::ofstream(p) << "name: " << name << "\nx_max: " << x_max
                     << "\naxes:\n  hardware: v80\n  model: llama-3.1-8b-instruct\n  algorithm: longspec-tree\n"
                        "  task: govreport\n  source_table: t3-4\n  context: [1024]\n  memory.bandwidth_gbs: ["
                     << bandwidths << "]\n";
    return p.string();
  };
  const std::string a = spec("a", "100, 1000, 3000", 16), b = spec("b", "200, 2000, 6000", 16),
                    a64 = spec("a64", "100, 1000, 3000", 64);
  const std::string d = dir.string();
  for (const auto& [s, shard] : {std::pair<std::string, std::string>{a, "0/2"}, {a, "1/2"}, {b, "1/2"}})
    REQUIRE(cli_test::run("sweep --quiet --spec " + s + " --shard " + shard + " --out " + d + "/" +
                          fs::path(s).stem().string() + shard.substr(0, 1) + ".csv").status == 0);
  // Shards of two grids whose files are the same.
  const auto mixed = cli_test::run("sweep merge " + d + "/m.csv " + d + "/a0.csv " + d + "/b1.csv");
  CHECK(mixed.status == 2);
  CHECK_THAT(mixed.output, Catch::Contains("sweep_points"));
  // A spec whose settings are not the shards'.
  const auto other_spec = cli_test::run("sweep merge --spec " + a64 + " " + d + "/m.csv " + d + "/a0.csv " + d + "/a1.csv");
  CHECK(other_spec.status == 2);
  CHECK_THAT(other_spec.output, Catch::Contains("x_max=64") && Catch::Contains("other settings"));
  // Into one of its own shards.
  const auto into_shard = cli_test::run("sweep merge " + d + "/a0.csv " + d + "/a0.csv " + d + "/a1.csv");
  CHECK(into_shard.status == 2);
  CHECK_THAT(into_shard.output, Catch::Contains("run's own input"));
  // A shard that lost its last row is incomplete, spec or not.
  {
    std::ifstream in(d + "/a1.csv");
    std::stringstream text;
    text << in.rdbuf();
    std::string body = text.str();
    body = body.substr(0, body.rfind('\n', body.size() - 2) + 1);
    std::ofstream(d + "/a1_short.csv") << body;
  }
  CHECK(cli_test::run("sweep merge " + d + "/m.csv " + d + "/a0.csv " + d + "/a1_short.csv").status == 2);
  // A FIFO as a shard is refused at once, not read for ever.
  REQUIRE(::mkfifo((d + "/fifo.csv").c_str(), 0644) == 0);
  const auto fifo = cli_test::run("sweep merge " + d + "/m.csv " + d + "/a0.csv " + d + "/fifo.csv");
  CHECK(fifo.status == 2);
  CHECK_THAT(fifo.output, Catch::Contains("FIFO"));
  // The same shards merge.
  CHECK(cli_test::run("sweep merge --spec " + a + " " + d + "/m.csv " + d + "/a0.csv " + d + "/a1.csv").status == 0);
  fs::remove_all(dir);
}
