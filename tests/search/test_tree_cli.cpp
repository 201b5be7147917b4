// specdse trace-gen and tree-search from the command line.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

struct TreeCliRun {
  int exit_code = -1;
  std::string output;
};

std::string tree_temp_path(const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp ? tmp : "/tmp") + "/specdse_tree_test_" + std::to_string(::getpid()) + "_" + name;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TreeCliRun run_specdse(const std::string& args) {
  const std::string out = tree_temp_path("cli_out.txt");
  const std::string cmd = std::string("\"") + SPECDSE_SPECDSE_EXE + "\" " + args + " > \"" + out + "\" 2>&1";
  const int status = std::system(cmd.c_str());
  TreeCliRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.output = slurp(out);
  std::remove(out.c_str());
  return r;
}

const char* kProfile = "--acceptance-vector 0.55,0.12,0.06,0.035,0.02,0.012,0.008";

}  // namespace

TEST_CASE("trace-gen: byte-identical trace for the same seed") {
  const auto a = tree_temp_path("a.trace"), b = tree_temp_path("b.trace"), c = tree_temp_path("c.trace");
  const std::string common = std::string("trace-gen ") + kProfile + " --depth-decay 0.95 --lines 3000 ";
  REQUIRE(run_specdse(common + "--seed 9 -o " + a).exit_code == 0);
  REQUIRE(run_specdse(common + "--seed 9 -o " + b).exit_code == 0);
  REQUIRE(run_specdse(common + "--seed 10 -o " + c).exit_code == 0);
  CHECK(slurp(a) == slurp(b));
  CHECK(slurp(a) != slurp(c));
  const auto to_stdout = run_specdse(common + "--seed 9");
  CHECK(to_stdout.exit_code == 0);
  CHECK(to_stdout.output == slurp(a));
  const auto bad = run_specdse("trace-gen --acceptance-vector 0.8,0.5 --lines 10");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("--acceptance-vector"));
  for (const auto& f : {a, b, c}) std::remove(f.c_str());
}

TEST_CASE("tree-search: table of methods, validation, emitted tree, errors with line numbers") {
  const auto train = tree_temp_path("train.trace"), val = tree_temp_path("val.trace");
  REQUIRE(run_specdse(std::string("trace-gen ") + kProfile + " --lines 5000 --seed 1 -o " + train).exit_code == 0);
  REQUIRE(run_specdse(std::string("trace-gen ") + kProfile + " --lines 5000 --seed 2 -o " + val).exit_code == 0);
  const auto csv = run_specdse("tree-search --trace " + train + " --validation " + val + " --max-nodes 12 " +
                               kProfile + " --format csv");
  REQUIRE(csv.exit_code == 0);
  CHECK(csv.output.rfind("method,x,draft_nodes,depth,tree_shape,aat,validation_aat,model_aat\n", 0) == 0);
  for (const char* m : {"prior-score,12,", "width-first,12,", "depth-first,12,", "sequoia-dp,12,"})
    CHECK_THAT(csv.output, Catch::Contains(m));
  // Same inputs, same bytes.
  CHECK(run_specdse("tree-search --trace " + train + " --validation " + val + " --max-nodes 12 " + kProfile +
                    " --format csv").output == csv.output);

  const auto emitted = run_specdse("tree-search --trace " + train + " --max-nodes 12 --emit-tree 6");
  REQUIRE(emitted.exit_code == 0);
  std::istringstream lines(emitted.output);
  std::string line;
  int nodes = 0;
  while (std::getline(lines, line))
    if (!line.empty() && line[0] != '#') ++nodes;
  CHECK(nodes == 5);

  const auto json = run_specdse("tree-search --trace " + train + " --max-nodes 8 --format json --hw u280 "
                                "--model llama-3.1-8b-instruct --algorithm longspec-tree --context 1024");
  REQUIRE(json.exit_code == 0);
  CHECK_THAT(json.output, Catch::Contains("\"p_eff_tokens_per_s\"") && Catch::Contains("hardware-aware") &&
                              Catch::Contains("\"best\""));

  // --x-max is the option's name (as in optimize); --max-nodes still works and gives the same bytes.
  const std::string hw_args = " --hw u280 --model llama-3.1-8b-instruct --algorithm longspec-tree --context 1024";
  const auto limited = run_specdse("tree-search --trace " + train + " --x-max 3 --wide" + hw_args);
  REQUIRE(limited.exit_code == 0);
  CHECK(limited.output == run_specdse("tree-search --trace " + train + " --max-nodes 3 --wide" + hw_args).output);
  // A best x on the largest x searched is flagged (x = 3 on a board where SD pays off).
  CHECK_THAT(limited.output, Catch::Contains("At search limit: the best x is the largest searched (3)"));

  // One trace split in time: 4000 training and 1000 validation iterations.
  const auto split = run_specdse("tree-search --trace " + train + " --validation-fraction 0.2 --max-nodes 6 --format csv");
  REQUIRE(split.exit_code == 0);
  CHECK_THAT(split.output, Catch::Contains("validation_aat"));
  CHECK(run_specdse("tree-search --trace " + train + " --validation-fraction 1.5 --max-nodes 6").exit_code == 2);

  const auto bad = tree_temp_path("bad.trace");
  std::ofstream(bad) << "# header\n0 1\n\n0 one\n";
  const auto err = run_specdse("tree-search --trace " + bad + " --max-nodes 8");
  CHECK(err.exit_code == 2);
  CHECK_THAT(err.output, Catch::Contains(bad + ":4"));
  for (const auto& f : {train, val, bad}) std::remove(f.c_str());
}
