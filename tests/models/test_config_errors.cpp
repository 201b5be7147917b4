#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/algorithm_spec.hpp"
#include "models/hardware_spec.hpp"
#include "models/yaml_reader.hpp"

using namespace models;
namespace fs = std::filesystem;

namespace {
// A copy of a shipped config with one line replaced, in a temp dir (never the source tree).
std::string mutated_copy(const std::string& name, const std::string& from, const std::string& to) {
  const std::string src = ConfigRegistry().path("hardware", name);
  std::ifstream in(src);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto pos = text.find(from);
  REQUIRE(pos != std::string::npos);
  text.replace(pos, from.size(), to);
  const fs::path dir = fs::temp_directory_path() / "specdse_test_configs";
  fs::create_directories(dir);
  const fs::path out = dir / (name + "_" + std::to_string(std::hash<std::string>{}(to)) + ".yaml");
  std::ofstream(out) << text;
  return out.string();
}

std::string error_of(const std::string& path) {
  try {
    load_hardware(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("Negative bandwidth names file, key and value") {
  const std::string p = mutated_copy("v80", "bandwidth_gbs: 879.6", "bandwidth_gbs: -819");
  const std::string msg = error_of(p);
  CHECK_THAT(msg, Catch::Contains(p));
  CHECK_THAT(msg, Catch::Contains("memory.bandwidth_gbs"));
  CHECK_THAT(msg, Catch::Contains("> 0"));
  CHECK_THAT(msg, Catch::Contains("-819"));
  CHECK(msg.find('\n') == std::string::npos);
}

TEST_CASE("A missing required key is an error, not a default") {
  const std::string p = mutated_copy("v80", "clock_mhz: 225", "# clock removed");
  CHECK_THAT(error_of(p), Catch::Contains("clock_mhz") && Catch::Contains("missing"));
}

TEST_CASE("Malformed YAML reports the file and line") {
  const std::string p = mutated_copy("h100-sxm", "sms: 132", "sms: [132");
  CHECK_THAT(error_of(p), Catch::Contains("malformed YAML") && Catch::Contains("line"));
}

TEST_CASE("Wrong types and out-of-range fractions are rejected") {
  CHECK_THAT(error_of(mutated_copy("v80", "channels: 32", "channels: many")),
             Catch::Contains("memory.channels"));
  CHECK_THAT(error_of(mutated_copy("v80", "weights: {channels: 32, efficiency: 0.7}",
                                   "weights: {channels: 32, efficiency: 1.7}")),
             Catch::Contains("memory.tensor_mapping.weights.efficiency") && Catch::Contains("(0, 1]"));
  // A channel group cannot use more channels than the board has.
  CHECK_THAT(error_of(mutated_copy("v80", "activation_loads: {channels: 4,", "activation_loads: {channels: 33,")),
             Catch::Contains("memory.tensor_mapping.activation_loads.channels"));
  CHECK_THAT(error_of(mutated_copy("v80", "kind: fpga", "kind: asic")), Catch::Contains("cpu|fpga|gpu"));
}

TEST_CASE("A CPU's short-row packing rate needs the packing rate beside it, and both of its keys") {
  const std::string from = "memory_efficiency: 0.7";
  CHECK_THAT(error_of(mutated_copy("xeon-16c", from,
                                   from + "\n  gemm_short_rows_max_k: 1016\n  gemm_short_rows_stream_bandwidth_gbs: 16")),
             Catch::Contains("calibration.gemm_short_rows_max_k") && Catch::Contains("gemm_stream_bandwidth_gbs"));
  CHECK_THAT(error_of(mutated_copy("xeon-16c", from,
                                   from + "\n  gemm_stream_bandwidth_gbs: 8\n  gemm_short_rows_max_k: 1016")),
             Catch::Contains("calibration.gemm_short_rows_stream_bandwidth_gbs") && Catch::Contains("missing"));
  CHECK_THAT(error_of(mutated_copy("xeon-16c", from,
                                   from + "\n  gemm_stream_bandwidth_gbs: 8\n  gemm_short_rows_max_k: 0\n"
                                          "  gemm_short_rows_stream_bandwidth_gbs: 16")),
             Catch::Contains("calibration.gemm_short_rows_max_k"));
  const HardwareSpec ok = load_hardware(mutated_copy(
      "xeon-16c", from,
      from + "\n  gemm_stream_bandwidth_gbs: 8\n  gemm_short_rows_max_k: 1016\n  gemm_short_rows_stream_bandwidth_gbs: 16"));
  CHECK(ok.cpu->gemm_short_rows_max_k == 1016);
  CHECK(ok.cpu->gemm_short_rows_stream_bandwidth_gbs == 16);
}

TEST_CASE("A CPU's extra-row attention rate needs the first row's rate beside it, and a share of at most 1") {
  const std::string from = "memory_efficiency: 0.7";
  // The xeon-16c config with these calibration keys added.
  auto with = [&](const std::string& keys) { return mutated_copy("xeon-16c", from, from + keys); };
  const std::string first = "\n  attention_compute_efficiency: 0.2", later = "\n  attention_extra_row_compute_efficiency: ";
  CHECK_THAT(error_of(with(later + "0.4")), Catch::Contains("calibration.attention_extra_row_compute_efficiency") &&
                                                 Catch::Contains("attention_compute_efficiency"));
  CHECK_THAT(error_of(with(first + later + "1.4")),
             Catch::Contains("calibration.attention_extra_row_compute_efficiency") && Catch::Contains("(0, 1]"));
  const HardwareSpec ok = load_hardware(with(first + later + "0.4"));
  CHECK(ok.cpu->attention_extra_row_compute_efficiency == 0.4);
  // The later rows' cost per score: only beside their rate, and not negative.
  const std::string score = "\n  attention_extra_row_score_ns: ";
  CHECK_THAT(error_of(with(first + score + "2")), Catch::Contains("calibration.attention_extra_row_score_ns") &&
                                                      Catch::Contains("attention_extra_row_compute_efficiency"));
  CHECK_THAT(error_of(with(first + later + "0.4" + score + "-1")),
             Catch::Contains("calibration.attention_extra_row_score_ns") && Catch::Contains("-1"));
  const HardwareSpec scored = load_hardware(with(first + later + "0.4" + score + "2.5"));
  CHECK(scored.cpu->attention_extra_row_score_ns == 2.5);
}

TEST_CASE("Unknown config names list what is available") {
  try {
    ConfigRegistry().hardware("v81");
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("unknown hardware 'v81'") && Catch::Contains("v80"));
  }
}

TEST_CASE("Unknown or misspelt hardware keys are errors naming the closest known key") {
  // A typo in an optional key used to be ignored silently (and changed the AR rate by 6.5 %).
  CHECK_THAT(error_of(mutated_copy("v80", "verify_includes_lm_head", "verify_include_lm_head")),
             Catch::Contains("verify_include_lm_head: unknown key") &&
                 Catch::Contains("did you mean 'verify_includes_lm_head'"));
  CHECK_THAT(error_of(mutated_copy("h100-sxm", "  capacity_gib", "  capacity_gb")),
             Catch::Contains("memory.capacity_gb: unknown key") && Catch::Contains("'capacity_gib'"));
  CHECK_THAT(error_of(mutated_copy("xeon-16c", "l3_mib", "l3_cache")), Catch::Contains("l3_cache: unknown key"));
  // Every shipped config still loads.
  const ConfigRegistry reg;
  for (const auto& name : reg.names("hardware")) CHECK_NOTHROW(reg.hardware(name));
}

TEST_CASE("A key given twice is an error naming it, not a silent first-wins") {
  // yaml-cpp keeps both entries and a lookup sees the first; the second value must not vanish.
  CHECK_THAT(error_of(mutated_copy("xeon-16c", "l3_mib:", "l3_mib: 1\nl3_mib:")),
             Catch::Contains("xeon-16c") && Catch::Contains("l3_mib: key given twice"));
}

TEST_CASE("A key given twice inside a nested table, or one verification length spelt two ways, is an error") {
  const std::string src = ConfigRegistry().path("algorithms", "longspec-tree");
  std::ifstream in(src);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const fs::path dir = fs::temp_directory_path() / "specdse_test_configs";
  fs::create_directories(dir);
  // The table's x = 3 row given again: written the same, or as 03, +3, 0x3 (each an integer 3).
  for (const std::string twin : {"3", "03", "+3", "0x3"}) {
    INFO(twin);
    std::string t = text;
    const std::string row = "    3: [1, 1]\n";
    REQUIRE(t.find(row) != std::string::npos);
    t.replace(t.find(row), row.size(), row + "    " + twin + ": [2]\n");
    const std::string path = (dir / "twin_x.yaml").string();
    std::ofstream(path) << t;
    std::string message;
    try {
      load_algorithm(path);
    } catch (const InputError& e) {
      message = e.what();
    }
    CHECK_THAT(message, Catch::Contains("tree.shapes." + twin + ": key given twice"));
    if (twin != "3") CHECK_THAT(message, Catch::Contains("(as '3' and '" + twin + "')"));
  }
  // A quoted key is a name, not a number: "3" beside 03 in a name-keyed map is two names, and
  // only numeric tables read keys as numbers.
  const fs::path names = dir / "names.yaml";
  std::ofstream(names) << "a:\n  '3': 1\n  03: 2\n";
  CHECK_NOTHROW(YamlReader::open(names.string()));
}

TEST_CASE("A YAML whose aliases would expand exponentially is refused, not walked for ever") {
  const fs::path dir = fs::temp_directory_path() / "specdse_test_configs";
  fs::create_directories(dir);
  std::string text = "a0: &a0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n";
  for (int level = 1; level <= 9; ++level) {
    text += fmt::format("a{}: &a{} [", level, level);
    for (int i = 0; i < 10; ++i) text += fmt::format("{}*a{}", i ? ", " : "", level - 1);
    text += "]\n";
  }
  const fs::path path = dir / "aliases.yaml";
  std::ofstream(path) << text;
  CHECK_THROWS_WITH(YamlReader::open(path.string()), Catch::Contains("aliases expanded many times"));
}
