// The system's method_stacks: paper 002's PP + EAGLE-3 baseline on EAGLE's own stack
// (configs/stacks/eagle-accelerate.yaml), whose activations between GPUs without peer access are
// copied through the host, and the error for a method SpecPipe does not have.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "models/config_registry.hpp"
#include "models/system_spec.hpp"
#include "search/scenarios/specpipe/specpipe_scenario.hpp"

namespace sp = search::specpipe;

namespace {

const models::ConfigRegistry& reg() {
  static const models::ConfigRegistry r;
  return r;
}

}  // namespace

TEST_CASE("specpipe: the EAGLE-3 baseline runs on the system's method stack, its hops staged through the host") {
  auto setup = sp::make_setup(reg(), "specpipe-8x3090-pcie", "llama-3.1-70b", "llama-3.2-1b", "sim", 1024, 5e-3);
  REQUIRE(setup.system.method_stacks.count(sp::kEagleBaselineMethod));
  CHECK(setup.system.method_stacks.at(sp::kEagleBaselineMethod).name == "eagle-accelerate");
  // The system's own stack sends over the links; the EAGLE stack copies through the host, as
  // RTX 3090s have no peer access.
  {
    const sp::StageTimer own(setup);
    CHECK(own.staged_copy(0, 1) == nullptr);
    sp::TimingSetup eagle = setup;
    eagle.system = models::with_target_stack(setup.system, setup.system.method_stacks.at(sp::kEagleBaselineMethod));
    const sp::StageTimer t(eagle);
    REQUIRE(t.staged_copy(0, 1) != nullptr);
    CHECK(t.activation_hop_s(0, 1, 1e6) == Approx(t.staged_copy(0, 1)->seconds(1e6, t.host_of(0))));
    CHECK(t.activation_hop_s(0, 1, 1e6) > own.activation_hop_s(0, 1, 1e6));
    CHECK(t.staged_copy(0, 0) == nullptr);
  }
  setup.task_names = true;
  std::string why;
  const auto e = sp::run_eagle_baseline(reg(), setup, 60, 1, 1, &why);
  REQUIRE(e.has_value());
  int staged = 0;
  for (const auto& task : e->timed.graph.tasks())
    if (task.name.find("staged through the host") != std::string::npos) {
      ++staged;
      CHECK(e->timed.graph.resources()[std::size_t(task.resource)].kind == sim::ResourceKind::host);
      CHECK(task.bytes > 0);
    }
  CHECK(staged > 0);
}

TEST_CASE("specpipe: method_stacks names only a method that takes a stack, whichever command loads the system") {
  std::ifstream in(reg().path("systems", "specpipe-8x3090-pcie"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = text.find("pp+eagle3:");
  REQUIRE(at != std::string::npos);
  text.replace(at, std::string("pp+eagle3").size(), "pp+medusa");
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("specdse_test_method_stacks_{}", ::getpid());
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "system.yaml").string();
  std::ofstream(path) << text;
  CHECK_THROWS_WITH(sp::make_setup(reg(), path, "llama-3.1-70b", "llama-3.2-1b", "sim", 1024, 5e-3),
                    Catch::Contains("method_stacks.pp+medusa") && Catch::Contains("pp+eagle3"));
  // The system command (and plan) load it the same way: the same error, not "not applicable".
  CHECK_THROWS_WITH(models::load_system(path, reg()), Catch::Contains("method_stacks.pp+medusa"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("specpipe: EAGLE's one-process stack does not run over two servers") {
  const auto setup =
      sp::make_setup(reg(), "specpipe-2srv-3090-4090-eth", "llama-3.1-70b", "llama-3.2-1b", "roofline", 1024, 5e-3);
  REQUIRE(setup.system.method_stacks.at(sp::kEagleBaselineMethod).single_host_process);
  std::string why;
  CHECK_FALSE(sp::run_eagle_baseline(reg(), setup, 60, 1, 1, &why).has_value());
  CHECK_THAT(why, Catch::Contains("one process") && Catch::Contains("stages 3 and 4"));
  // On the same placement under the system's own stack (one process per stage) it runs.
  auto own = setup;
  own.system.method_stacks.clear();
  CHECK(sp::run_eagle_baseline(reg(), own, 60, 1, 1).has_value());
}
