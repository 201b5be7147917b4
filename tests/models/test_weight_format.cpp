// Weight formats: bytes per weight from the block layouts, MODEL@FORMAT and the weight_format:
// YAML key, dequantisation marked on the GEMMs, unknown formats rejected by name.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/operator_graph.hpp"
#include "models/weight_format.hpp"

using namespace models;

namespace {

std::string temp_yaml(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "specdse_test_weight_format";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

double bytes(const std::string& f) { return weight_format(f, "test").bytes_per_weight(); }

}  // namespace

TEST_CASE("weight formats: bytes per weight follow the element sizes and ggml block layouts") {
  CHECK(bytes("fp32") == sizeof(float));
  CHECK(bytes("fp16") == 2);
  CHECK(bytes("bf16") == bytes("fp16"));
  // ggml: one fp16 scale (2 B) per 32-weight block.
  CHECK(bytes("q8_0") == Approx((32 * 1 + 2) / 32.0));
  CHECK(bytes("q4_0") == Approx((32 / 2 + 2) / 32.0));
  // The _M mixes lie between their base k-quant and Q6_K, and each is below the next size up.
  CHECK(bytes("q4_k") < bytes("q4_k_m"));
  CHECK(bytes("q4_k_m") < bytes("q6_k"));
  CHECK(bytes("q5_k") < bytes("q5_k_m"));
  CHECK(bytes("q5_k_m") < bytes("q6_k"));
  CHECK(bytes("q4_0") < bytes("q4_k_m"));
  CHECK(bytes("q4_k_m") < bytes("q5_k_m"));
  CHECK(bytes("q5_k_m") < bytes("q8_0"));
  CHECK(bytes("q8_0") < bytes("fp16"));
  // Dequantisation: free for fp32, and costlier the more bit planes a format packs.
  CHECK(weight_format("fp32", "test").dequant_ops_per_weight == 0);
  CHECK(weight_format("fp16", "test").dequant_ops_per_weight > 0);
  CHECK(weight_format("q8_0", "test").dequant_ops_per_weight < weight_format("q4_0", "test").dequant_ops_per_weight);
  CHECK(weight_format("q4_k_m", "test").dequant_ops_per_weight < weight_format("q5_k_m", "test").dequant_ops_per_weight);
  for (const auto& f : weight_formats()) {
    INFO(f.name);
    CHECK_FALSE(f.source.empty());
    CHECK(&weight_format(f.name, "test") == &f);
  }
  CHECK(weight_format("Q5_K_M", "test").name == "q5_k_m");  // case-insensitive, as GGUF names are
}

TEST_CASE("weight formats: NAME@FORMAT loads the model with its weights in FORMAT") {
  const ConfigRegistry reg;
  const ModelSpec native = reg.model("llama-68m");
  const ModelSpec q5 = reg.model("llama-68m@q5_k_m");
  CHECK(native.weight_format.empty());
  CHECK(native.weight_bytes_per_param() == native.weight_bits / 8.0);
  CHECK(native.dequant_ops_per_weight() == 0);
  CHECK(q5.name == native.name);
  CHECK(q5.weight_format == "q5_k_m");
  CHECK(q5.parameters() == native.parameters());
  CHECK(q5.weight_bytes_per_param() == bytes("q5_k_m"));
  CHECK(q5.kv_bytes_per_token() == native.kv_bytes_per_token());  // the KV cache is not a weight

  // The step graph streams proportionally fewer weight bytes and marks every GEMM's weights for
  // dequantisation; the native graph marks none.
  const StepGraph gn = build_verify_graph(native, {4, 256});
  const StepGraph gq = build_verify_graph(q5, {4, 256});
  CHECK(gq.total_weight_bytes() / gn.total_weight_bytes() ==
        Approx(q5.weight_bytes_per_param() / native.weight_bytes_per_param()));
  CHECK(gq.total_flops() == gn.total_flops());
  for (const auto* ops : {&gq.layer_ops, &gq.tail_ops})
    for (const auto& op : *ops) {
      INFO(op.name);
      if (op.kind == OpKind::gemm) {
        CHECK(op.dequant_weights == double(op.n) * op.k);
        CHECK(op.dequant_ops_per_weight == q5.dequant_ops_per_weight());
      } else {
        CHECK(op.dequant_weights == 0);
      }
    }
  for (const auto& op : gn.layer_ops) CHECK(op.dequant_weights == 0);

  // A standalone draft named with a format drafts in that format.
  const AlgorithmSpec chain = reg.algorithm("llama-68m@q4_0");
  REQUIRE(chain.draft.model);
  CHECK(chain.draft.model->weight_format == "q4_0");
}

TEST_CASE("weight formats: the weight_format YAML key, and unknown formats are input errors") {
  const ConfigRegistry reg;
  const std::string shape =
      "layers: 2\nhidden_size: 64\nintermediate_size: 128\nattention_heads: 4\nkv_heads: 4\n"
      "head_dim: 16\nvocab_size: 100\ntied_embeddings: false\nmlp: gated\nweight_bits: 16\n"
      "activation_bits: 16\n";
  const ModelSpec m = load_model(temp_yaml("q8.yaml", "name: tiny\nweight_format: q8_0\n" + shape));
  CHECK(m.weight_format == "q8_0");
  CHECK(m.weight_bytes_per_param() == bytes("q8_0"));

  const std::string bad = temp_yaml("bad.yaml", "name: tiny\nweight_format: q9_z\n" + shape);
  try {
    load_model(bad);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    const std::string msg = e.what();
    CHECK(msg.find(bad) != std::string::npos);
    CHECK(msg.find("weight_format") != std::string::npos);
    CHECK(msg.find("q9_z") != std::string::npos);
    CHECK(msg.find("q5_k_m") != std::string::npos);
  }
  try {
    reg.model("llama-68m@q3_xx");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("q3_xx") != std::string::npos);
    CHECK(msg.find("llama-68m@q3_xx") != std::string::npos);
    for (const auto& name : weight_format_names()) CHECK(msg.find(name) != std::string::npos);
    CHECK(msg.find('\n') == std::string::npos);
  }
  CHECK_THROWS_AS(reg.model("no-such-model@q8_0"), InputError);
}
