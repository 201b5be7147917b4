// Golden regression of `reproduce ... --engine sim`: speed work on the SystemC
// engines (the FPGA model's layer fast-forward) must leave every output byte unchanged. A fast,
// representative subset: Table I (V80) and Table IV (four boards) on the FPGA model, and
// SpecPipe Fig. 9 (the GPU model's tile steps through the SpecPipe stage timer).
// The golden CSVs in tests/golden/sim_*.csv were first written by the engine before that work
// (`specdse reproduce NAME --engine sim --no-plots`, commit 2df80af) and are compared byte for
// byte; they are regenerated only for an intended change of results, said so in the commit:
// sim_table1 / sim_table4 for the FPGA memory mapping (40a5360, written by the fast-forwarding
// engine; its cycle-exactness against simulating every layer is checked instruction by
// instruction by "Layer fast-forward reproduces every instruction's cycles ..." in
// test_fpga_sim.cpp), sim_specpipe-fig9 for the GPU plain-decode kernel; sim_table1 /
// sim_table4 again when an op's compute cycles were split over its chunks with the remainder at
// the end instead of spread evenly (the same totals; times moved by at most 1.4e-6 relative,
// no best x changed), so that the chunks repeat and the fast-forward can skip them.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Runs `specdse reproduce NAME --engine sim` into a fresh folder under the build tree and
// compares each listed CSV with tests/golden/sim_<file>.
void check_golden(const std::string& name, const std::vector<std::string>& csvs) {
  const fs::path out = fs::path(SPECDSE_TEST_BINARY_DIR) / "test_sim_golden" / name;
  fs::remove_all(out);
  const std::string cmd = std::string(SPECDSE_SPECDSE_EXE) + " reproduce " + name +
                          " --engine sim --no-plots --quiet --out " + out.string() + " --format csv > /dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  for (const std::string& csv : csvs) {
    const fs::path golden = fs::path(SPECDSE_SOURCE_DIR) / "tests/golden" / ("sim_" + csv);
    INFO(csv << " vs " << golden.string());
    const std::string expected = read_file(golden);
    REQUIRE(!expected.empty());
    CHECK(read_file(out / name / csv) == expected);
  }
}

}  // namespace

TEST_CASE("reproduce table1 --engine sim matches its golden CSV byte for byte") {
  check_golden("table1", {"table1.csv"});
}

TEST_CASE("reproduce table4 --engine sim matches its golden CSV byte for byte") {
  check_golden("table4", {"table4.csv"});
}

TEST_CASE("reproduce specpipe-fig9 --engine sim matches its golden CSVs byte for byte") {
  check_golden("specpipe-fig9", {"specpipe-fig9.csv", "specpipe-fig9_steps.csv"});
}
