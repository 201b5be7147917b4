// Open device kinds (models/device_kind.hpp): everything a new kind needs is in this file — its
// parameter block, its YAML loader and peaks, and one DeviceKindRegistration line. A board YAML
// of that kind then loads and the roofline engine times it (roofline/peak_roofline.cpp serves
// every kind without a roofline of its own), with no other file of the project touched.
#include <catch2/catch.hpp>

#include <any>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/device_kind.hpp"
#include "models/engine_registry.hpp"
#include "models/latency_engine.hpp"

using namespace models;

namespace {

// A device kind of this test only: a peak FLOP/s and a bandwidth, nothing else. Everything a
// new kind needs is below: its parameter block, its loader and peaks, and one registration.
struct ToyParameters {
  double tflops = 0, bandwidth_gbs = 0, capacity_gib = 0;
};

class ToyKind : public DeviceKind {
 public:
  void load(const YamlReader& r, HardwareSpec& hw) const override {
    r.allow_only({"name", "kind", "description", "verify_includes_lm_head", "tflops", "bandwidth_gbs", "capacity_gib"});
    hw.kind_parameters = ToyParameters{r.positive("tflops"), r.positive("bandwidth_gbs"), r.positive("capacity_gib")};
  }
  double peak_flops(const HardwareSpec& hw) const override { return toy(hw).tflops * 1e12; }
  double peak_bandwidth_bytes(const HardwareSpec& hw) const override { return toy(hw).bandwidth_gbs * 1e9; }
  double memory_capacity_bytes(const HardwareSpec& hw) const override {
    return toy(hw).capacity_gib * 1024.0 * 1024.0 * 1024.0;
  }

 private:
  static const ToyParameters& toy(const HardwareSpec& hw) { return std::any_cast<const ToyParameters&>(hw.kind_parameters); }
};

const DeviceKindRegistration toy_registered("toy-test-kind", std::make_unique<ToyKind>());

std::filesystem::path write_yaml(const std::string& file, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / file;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("device kinds: a kind registered in one file loads its YAML and is timed by the roofline engine") {
  const auto path = write_yaml("specdse_test_registries_toy.yaml",
                               "name: toy\nkind: toy-test-kind\ntflops: 100\nbandwidth_gbs: 1000\ncapacity_gib: 16\n");
  const HardwareSpec hw = load_hardware(path.string());
  CHECK(hw.kind == "toy-test-kind");
  CHECK(hw.peak_flops() == Approx(100e12));
  CHECK(hw.peak_bandwidth_bytes() == Approx(1000e9));
  CHECK(hw.memory_capacity_bytes() == Approx(16.0 * 1024 * 1024 * 1024));
  CHECK(has_engine("roofline", hw.kind));
  CHECK_FALSE(has_engine("sim", hw.kind));
  // No engine of its own: the peak roofline. A decode step of an 8B model streams its weights,
  // so it takes at least their bytes over the bandwidth, and more tokens never take less.
  const ConfigRegistry reg;
  Workload w;
  w.target = reg.model("llama-3.1-8b-instruct");
  const auto engine = models::make_engine("roofline", hw);
  const double t1 = t_verify(*engine, w, 1, 1024);
  CHECK(t1 >= verify_graph(*engine, w, 1, 1024).total_weight_bytes() / 1000e9);
  CHECK(t1 < 1.0);
  CHECK(t_verify(*engine, w, 64, 1024) >= t1);
  CHECK_THROWS_WITH(models::make_engine("sim", hw), Catch::Contains("toy-test-kind") && Catch::Contains("available: roofline"));
  // The kind's own loader validates its keys like every config.
  const auto typo = write_yaml("specdse_test_registries_toy_typo.yaml",
                               "name: toy\nkind: toy-test-kind\ntflop: 100\nbandwidth_gbs: 1000\ncapacity_gib: 16\n");
  CHECK_THROWS_AS(load_hardware(typo.string()), InputError);
  std::filesystem::remove(path);
  std::filesystem::remove(typo);
}
