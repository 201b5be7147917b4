// Golden kernels: the split tree attention (mask-free prefix + masked suffix merged by
// log-sum-exp, paper 004 §3.1) equals naive attention with an explicit tree mask; the threaded
// linear layer equals a plain Eigen product; the golden CLI refuses bad input.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "sim/golden/golden_kernels.hpp"
#include "sim/golden/golden_suite.hpp"

using namespace sim;

namespace {
double relative_error(const RowMatrix& a, const RowMatrix& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1e-30f, b.cwiseAbs().maxCoeff());
}
std::string temp_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "specdse_test_golden";
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}
}  // namespace

TEST_CASE("golden: split tree attention agrees with masked attention to 1e-5 on random trees") {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 40; ++trial) {
    const int x = std::uniform_int_distribution<int>(1, 64)(rng);
    const int cached = std::uniform_int_distribution<int>(0, 700)(rng);
    const int d = trial % 2 ? 64 : 128;
    const auto parent = random_tree(x, rng);
    const RowMatrix q = random_matrix(x, d, rng), kc = random_matrix(cached, d, rng),
                    vc = random_matrix(cached, d, rng), kn = random_matrix(x, d, rng), vn = random_matrix(x, d, rng);
    const RowMatrix naive = tree_attention_masked(q, kc, vc, kn, vn, parent);
    const RowMatrix split = tree_attention_split(q, kc, vc, kn, vn, parent);
    INFO("trial " << trial << ": x " << x << ", cached " << cached);
    CHECK(relative_error(split, naive) < 1e-5);
  }
}

TEST_CASE("golden: the tree mask is the ancestor relation and decode attention is its x = 1 case") {
  const std::vector<int> parent = {-1, 0, 0, 1, 3};
  CHECK(is_ancestor_or_self(parent, 0, 4));
  CHECK(is_ancestor_or_self(parent, 3, 4));
  CHECK(!is_ancestor_or_self(parent, 2, 4));
  CHECK(!is_ancestor_or_self(parent, 4, 3));
  std::mt19937_64 rng(5);
  const RowMatrix q = random_matrix(1, 64, rng), k = random_matrix(300, 64, rng), v = random_matrix(300, 64, rng);
  const RowMatrix k_new = k.bottomRows(1), v_new = v.bottomRows(1);
  const RowMatrix k_old = k.topRows(299), v_old = v.topRows(299);
  CHECK(relative_error(tree_attention_split(q, k_old, v_old, k_new, v_new, {-1}), attend(q, k, v).out) < 1e-5);
}

TEST_CASE("golden: the threaded linear layer equals Eigen's product for GEMV and GEMM shapes") {
  std::mt19937_64 rng(9);
  ThreadTeam team(3);
  for (std::int64_t m : {1, 3, 17}) {
    const RowMatrix x = random_matrix(m, 200, rng), w = random_matrix(333, 200, rng);
    RowMatrix y;
    linear(x, w, y, team);
    const RowMatrix ref = x * w.transpose();
    CHECK(relative_error(y, ref) < 1e-5);
  }
}

TEST_CASE("golden: projection shapes come from the model configs") {
  const auto m = models::ConfigRegistry().model("llama-3.2-1b");
  const auto shapes = projection_shapes({m}, {1, 64});
  REQUIRE(shapes.size() == 8);
  CHECK(shapes[0].kernel == "gemv");
  CHECK(shapes[0].n == 32 * 64 + 2 * 8 * 64);
  CHECK(shapes[0].k == 2048);
  CHECK(shapes[5].n == 2 * 8192);
}

TEST_CASE("golden: GPU measurements are compared with the GPU model, bad CSVs are refused") {
  const auto hw = models::ConfigRegistry().hardware("h100-sxm");
  const auto good = temp_file("good.csv", "kernel,m,n,k,measured_s\ngemv,1,4096,4096,2.0e-5\n"
                                          "tree_attention_h32_kv8,16,4096,128,3.0e-5\n");
  const auto rows = compare_gpu_measurements(good, hw);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].predicted_s > 0);
  CHECK(rows[1].predicted_s > 0);
  CHECK_THROWS_AS(compare_gpu_measurements(temp_file("hdr.csv", "a,b\n1,2\n"), hw), models::InputError);
  CHECK_THROWS_AS(compare_gpu_measurements(temp_file("neg.csv", "kernel,m,n,k,measured_s\ngemm,4,8,8,-1\n"), hw),
                  models::InputError);
  CHECK_THROWS_AS(compare_gpu_measurements(temp_file("kind.csv", "kernel,m,n,k,measured_s\nconv,4,8,8,1\n"), hw),
                  models::InputError);
  CHECK_THROWS_AS(compare_gpu_measurements("/nonexistent/specdse.csv", hw), models::InputError);
}

TEST_CASE("golden: the CLI exits 2 on bad input and runs a tiny CPU golden set") {
  const std::string exe = SPECDSE_SPECDSE_EXE;
  CHECK(WEXITSTATUS(std::system((exe + " golden --hw h100-sxm > /dev/null 2>&1").c_str())) == 2);
  CHECK(WEXITSTATUS(std::system((exe + " golden --hw u280 > /dev/null 2>&1").c_str())) == 2);
  const auto host = temp_file("host.yaml",
                              "name: host\nkind: cpu\ncores: 2\nclock_ghz: 2\nsimd_flops_per_cycle: 16\n"
                              "l2_kib_per_core: 512\nl3_mib: 8\nmemory: {bandwidth_gbs: 10}\n"
                              "calibration: {compute_efficiency: 0.3, memory_efficiency: 1.0}\n");
  const auto out = (std::filesystem::temp_directory_path() / "specdse_test_golden" / "out.csv").string();
  const std::string cmd = exe + " golden --hw " + host + " --models llama-68m --tokens 1,4 --contexts 64 "
                          "--repeats 1 --warmup 0 --no-flush --format csv > " + out + " 2>/dev/null";
  REQUIRE(WEXITSTATUS(std::system(cmd.c_str())) == 0);
  std::ifstream in(out);
  std::string header;
  std::getline(in, header);
  CHECK(header == "hw,kernel,source,m,n,k,measured_s,measured_median_s,predicted_s,error_pct");
  int lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  CHECK(lines == 8 + 2);
}

TEST_CASE("golden: the CUDA golden binary is built wherever CMake found a CUDA compiler") {
  const std::string build = SPECDSE_TEST_BINARY_DIR;
  std::ifstream cache(build + "/CMakeCache.txt");
  bool cuda_configured = false;
  for (std::string line; std::getline(cache, line);)
    if (line.rfind("CMAKE_CUDA_COMPILER:", 0) == 0 && line.find("NOTFOUND") == std::string::npos &&
        line.back() != '=')
      cuda_configured = true;
  if (!cuda_configured) {
    WARN("no CUDA compiler configured in " << build << ": CUDA golden kernels not built");
    return;
  }
  CHECK(std::filesystem::exists(build + "/cuda/specdse_cuda_golden"));
}
