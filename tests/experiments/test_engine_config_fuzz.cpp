// Fuzzed configs through the engines (a property test beside the parsers' libFuzzer targets,
// which stop at the loader): every numeric key of every shipped board set to a seeded draw over
// 30 orders of magnitude or to a hostile value (0, negative, 2^31, 2^32 + 1, 1e300, 1e-300, NaN,
// inf). Each case must end one of two ways: the loader or the engine refuses it with an
// InputError on one line, or the engine returns a finite, positive time. Never a NaN, a negative
// (wrapped) or saturated time, another exception type or a hang (the suite's timeout).
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "experiments/cli/workload_setup.hpp"
#include "experiments/sweep/sweep_runner.hpp"
#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/engine_registry.hpp"
#include "models/latency_engine.hpp"

namespace {

// Dotted paths of the numeric leaves of a YAML map.
void numeric_keys(const YAML::Node& n, const std::string& prefix, std::vector<std::string>& out) {
  if (!n.IsMap()) return;
  for (const auto& kv : n) {
    const std::string key = prefix.empty() ? kv.first.as<std::string>() : prefix + "." + kv.first.as<std::string>();
    if (kv.second.IsMap()) {
      numeric_keys(kv.second, key, out);
    } else if (kv.second.IsScalar()) {
      double v = 0;
      if (YAML::convert<double>::decode(kv.second, v)) out.push_back(key);
    }
  }
}

const std::vector<std::string> kHostile = {"0", "-1", "2147483648", "4294967297", "1e300", "1e-300", ".nan", ".inf",
                                           "-.inf", "9223372036854775807"};

constexpr double kSaturatedSeconds = 9223372.036854775807;  // 2^63 ps

struct Tally {
  int refused = 0, timed = 0;
};

Tally fuzz_board(const std::string& board, const std::string& engine_name, int draws, std::uint64_t seed) {
  const models::ConfigRegistry reg;
  const std::string path = reg.path("hardware", board);
  std::vector<std::string> keys;
  numeric_keys(YAML::LoadFile(path), "", keys);
  REQUIRE(!keys.empty());
  const auto w = experiments::make_workload(reg, "llama-3.2-1b", "");
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> exponent(-15, 15);
  Tally tally;
  for (int i = 0; i < draws; ++i) {
    const std::string& key = keys[rng() % keys.size()];
    const std::string value = rng() % 3 == 0 ? kHostile[rng() % kHostile.size()]
                                             : fmt::format("{:.6g}", std::pow(10.0, exponent(rng)));
    INFO(board << " " << engine_name << ": " << key << " = " << value);
    try {
      const auto hw = experiments::load_hardware_with_overrides(path, {{key, value}}, "config fuzz");
      const auto engine = models::make_engine(engine_name, hw);
      const double t = models::t_verify(*engine, w, 1 + int(rng() % 16), 128 + (long long)(rng() % 4096));
      CHECK(std::isfinite(t));
      CHECK(t > 0);
      // An absurd config may give an absurd time (a 1e-15 GB/s memory: 1e24 s), but never the
      // int64 picosecond timeline's saturated 2^63 ps.
      CHECK(std::abs(t - kSaturatedSeconds) > 1e-6 * kSaturatedSeconds);
      ++tally.timed;
    } catch (const models::InputError& e) {
      // A clean refusal names what it refuses.
      CHECK(std::string(e.what()).find('\n') == std::string::npos);
      ++tally.refused;
    }
  }
  return tally;
}

}  // namespace

TEST_CASE("config fuzz: every shipped board's numeric keys through the roofline engine") {
  Tally all;
  for (const char* board : {"h100-sxm", "rtx3090", "v80", "u250", "u280", "xeon-16c"}) {
    const Tally t = fuzz_board(board, "roofline", 150, std::hash<std::string>{}(board));
    all.refused += t.refused, all.timed += t.timed;
  }
  // Both outcomes occur: the draws reach past the loaders into the engines.
  CHECK(all.timed > 100);
  CHECK(all.refused > 100);
}

TEST_CASE("config fuzz: one board of each kind through the SystemC engine") {
  for (const char* board : {"h100-sxm", "v80", "u280", "xeon-16c"})
    fuzz_board(board, "sim", 16, std::hash<std::string>{}(board) + 1);
}
