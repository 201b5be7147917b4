// Draft builders register themselves per draft kind (models/drafts/): the registry lists the
// shipped kinds, dispatches each algorithm's draft pass to its builder, and an unknown kind is an
// InputError naming the available ones (both at lookup and in an algorithm config). Callers ask
// the builder what a kind implies (attached head, own layer shape, KV cache), never its name.
// Device kinds register the same way (models/device_kinds/); tests/roofline/test_device_kinds.cpp
// registers a toy kind in one file and times it with the roofline engine.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/device_kind.hpp"
#include "models/drafts/draft_builder.hpp"
#include "models/operator_graph.hpp"

using namespace models;

namespace {

// A temporary copy of shipped algorithm `name` with its first `from` replaced by `to`.
std::filesystem::path edited_algorithm(const std::string& name, const std::string& from, const std::string& to) {
  std::ifstream in(ConfigRegistry().path("algorithms", name));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto pos = text.find(from);
  REQUIRE(pos != std::string::npos);
  text.replace(pos, from.size(), to);
  const auto path = std::filesystem::temp_directory_path() / ("specdse_test_registries_" + name + ".yaml");
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("draft builders: every shipped kind is registered, an unknown kind names the available ones") {
  CHECK(draft_kinds() == std::vector<std::string>{"eagle3", "longspec", "mtp", "standalone"});
  CHECK_THROWS_WITH(draft_builder("medusa", "test"),
                    Catch::Contains("'medusa'") && Catch::Contains("available: eagle3, longspec, mtp, standalone"));
  CHECK_THROWS_AS(draft_builder("medusa", "test"), InputError);
}

TEST_CASE("draft builders: each algorithm's pass is built by its kind's builder") {
  const ConfigRegistry reg;
  const auto target = reg.model("llama-3.1-8b-instruct");
  const auto longspec = build_draft_pass_graph(reg.algorithm("longspec-tree"), target, 4, 1024);
  CHECK(longspec.layer_ops.front().name == "self_attn_norm");
  CHECK(longspec.layer_count == 1);
  const auto eagle = build_draft_pass_graph(reg.algorithm("eagle3-tree"), target, 4, 1024);
  CHECK(eagle.layer_ops.front().name == "feature_fc");
  // Paper 004's 3-layer dense draft: the fc once, three decoder layers; only the first layer's
  // QKV reads [embedding, feature] (2d), the others the hidden state (d).
  const auto dense3 = build_draft_pass_graph(reg.algorithm("eagle-dense3-chain"), target, 4, 1024);
  std::vector<std::int64_t> qkv_inputs;
  for (const auto& op : dense3.layer_ops)
    if (op.name.size() >= 8 && op.name.compare(op.name.size() - 8, 8, "qkv_proj") == 0) qkv_inputs.push_back(op.k);
  CHECK(qkv_inputs == std::vector<std::int64_t>{2 * target.hidden_size, target.hidden_size, target.hidden_size});
  CHECK(dense3.layer_ops.front().name == "feature_fc");
  CHECK(dense3.total_weight_bytes() > 2.5 * eagle.total_weight_bytes() - 2 * eagle.tail_ops.back().weight_bytes);
  const auto standalone = build_draft_pass_graph(reg.algorithm("llama-68m"), target, 1, 1024);
  CHECK(standalone.layer_count == reg.model("llama-68m").layers);
  CHECK(standalone.label.rfind("draft llama-68m", 0) == 0);
}

TEST_CASE("draft builders: an algorithm config with an unregistered draft.type is an InputError") {
  const auto path = edited_algorithm("longspec-tree", "type: longspec", "type: medusa");
  CHECK_THROWS_WITH(load_algorithm(path.string()),
                    Catch::Contains("draft.type") && Catch::Contains("eagle3|longspec|mtp|standalone") &&
                        Catch::Contains("medusa"));
  std::filesystem::remove(path);
}

TEST_CASE("draft builders: callers learn what a kind implies from its builder") {
  const ConfigRegistry reg;
  const auto target = reg.model("llama-3.1-8b-instruct");
  const auto& eagle = draft_builder("eagle3", "test");
  const auto& longspec = draft_builder("longspec", "test");
  const auto& standalone = draft_builder("standalone", "test");
  CHECK(eagle.is_attached_head());
  CHECK(longspec.is_attached_head());
  CHECK_FALSE(standalone.is_attached_head());
  CHECK(eagle.has_own_layer_shape());
  CHECK_FALSE(longspec.has_own_layer_shape());
  const auto eagle_algorithm = reg.algorithm("eagle3-tree");
  const auto reshaped = eagle.reshaped_for(eagle_algorithm.draft, reg.model("llama-3.1-70b"));
  CHECK(reshaped.hidden_size == reg.model("llama-3.1-70b").hidden_size);
  CHECK(reshaped.draft_vocab_size == eagle_algorithm.draft.draft_vocab_size);
  // The KV cache grows with the tokens and splits over tensor-parallel ranks.
  const double one = eagle.kv_cache_bytes(eagle_algorithm.draft, target, 1, 1024, 1);
  CHECK(one > 0);
  CHECK(eagle.kv_cache_bytes(eagle_algorithm.draft, target, 1, 2048, 1) == Approx(2 * one));
  CHECK(standalone.kv_cache_bytes(eagle_algorithm.draft, target, 1, 1024, 1) == 0);
  CHECK(eagle.weight_bytes(eagle_algorithm, target) ==
        Approx(build_draft_pass_graph(eagle_algorithm, target, 1, 0).total_weight_bytes()));
}

TEST_CASE("draft builders: MTP modules are one target-shaped layer and the target's own output head, for their model only") {
  const ConfigRegistry reg;
  const auto target = reg.model("mimo-7b");
  const auto mtp = reg.algorithm("mimo-7b-mtp");
  const auto& builder = draft_builder("mtp", "test");
  CHECK(builder.is_attached_head());
  CHECK(builder.has_own_layer_shape());
  CHECK_FALSE(builder.drafts_trees());  // its top-1 token per pass: a chain
  CHECK(draft_builder("eagle3", "test").drafts_trees());
  REQUIRE(mtp.draft.mtp_acceptance.size() == 1);
  CHECK(mtp.draft.mtp_acceptance[0] == Approx(0.9));
  const auto pass = build_draft_pass_graph(mtp, target, 3, 1024, 2);
  CHECK(pass.layer_count == 1);
  double proj_weights = 0, head_weights = 0, layer_weights = 0;
  for (const auto& op : pass.layer_ops) {
    layer_weights += op.weight_bytes;
    if (op.name == "mtp_input_proj") proj_weights = op.weight_bytes;
  }
  for (const auto& op : pass.tail_ops)
    if (op.name == "lm_head") head_weights = op.weight_bytes;
  // The projection takes [h, Emb] (2d) to d; the head predicts over the target's whole vocabulary.
  CHECK(proj_weights == Approx(2.0 * target.hidden_size * target.hidden_size * 2));
  CHECK(head_weights == Approx(double(target.vocab_size) * target.hidden_size * 2));
  // The same decoder layer as one of the target's, op for op.
  const auto verify = build_verify_graph(target, {3, 1024, 2, MaskKind::tree, true});
  double target_layer = 0;
  for (const auto& op : verify.layer_ops) target_layer += op.weight_bytes;
  CHECK(layer_weights == Approx(target_layer + proj_weights));
  // Memory: every shipped module's own weights and KV cache; the head is the target's.
  CHECK(builder.weight_bytes(mtp, target) == Approx(mtp.draft.mtp_modules * layer_weights));
  CHECK(builder.kv_cache_bytes(mtp.draft, target, 1, 1024, 1) ==
        Approx(mtp.draft.mtp_modules * 1024.0 * 2 * target.kv_heads * target.head_dim * 2));
  // Another target has no hidden states these modules were trained on.
  CHECK_THROWS_WITH(build_draft_pass_graph(mtp, reg.model("llama-3.1-8b-instruct"), 1, 0),
                    Catch::Contains("mimo-7b only") && Catch::Contains("llama-3.1-8b-instruct"));
  // A published acceptance that is no probability names its file and key.
  const auto path = edited_algorithm("mimo-7b-mtp", "[0.90]", "[0.9, 1.2]");
  CHECK_THROWS_WITH(load_algorithm(path.string()),
                    Catch::Contains("specdse_test_registries_mimo-7b-mtp.yaml") && Catch::Contains("draft.acceptance[1]") &&
                        Catch::Contains("1.2"));
  std::filesystem::remove(path);
}

TEST_CASE("device kinds: the shipped kinds are registered, an unknown kind names the available ones") {
  const auto names = device_kind_names();
  for (const std::string kind : {"cpu", "fpga", "gpu"})
    CHECK(std::find(names.begin(), names.end(), kind) != names.end());
  CHECK_THROWS_WITH(device_kind("tpu", "test"), Catch::Contains("'tpu'") && Catch::Contains("fpga"));
  const auto path = std::filesystem::temp_directory_path() / "specdse_test_registries_tpu.yaml";
  std::ofstream(path) << "name: t\nkind: tpu\n";
  CHECK_THROWS_WITH(load_hardware(path.string()), Catch::Contains("kind") && Catch::Contains("tpu"));
  std::filesystem::remove(path);
}
