// Draft builders register themselves per draft kind (models/drafts/): the registry lists the
// shipped kinds, dispatches each algorithm's draft pass to its builder, and an unknown kind is an
// InputError naming the available ones (both at lookup and in an algorithm config).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/drafts/draft_builder.hpp"
#include "models/operator_graph.hpp"

using namespace models;

TEST_CASE("draft builders: every shipped kind is registered, an unknown kind names the available ones") {
  CHECK(draft_kinds() == std::vector<std::string>{"eagle3", "longspec", "standalone"});
  CHECK_THROWS_WITH(draft_builder("medusa", "test"),
                    Catch::Contains("'medusa'") && Catch::Contains("available: eagle3, longspec, standalone"));
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
  const ConfigRegistry reg;
  std::ifstream in(reg.path("algorithms", "longspec-tree"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto pos = text.find("type: longspec");
  REQUIRE(pos != std::string::npos);
  text.replace(pos, 14, "type: medusa");
  const auto path = std::filesystem::temp_directory_path() / "specdse_test_registries_medusa.yaml";
  std::ofstream(path) << text;
  CHECK_THROWS_WITH(load_algorithm(path.string()),
                    Catch::Contains("draft.type") && Catch::Contains("eagle3|longspec|standalone") &&
                        Catch::Contains("medusa"));
  std::filesystem::remove(path);
}
