// Transformers before its SDPA path took PyTorch's grouped-query attention
// (configs/stacks/huggingface-transformers-4.53.yaml: repeat_kv copies the K and V caches to every
// query head) beside today's (huggingface-transformers.yaml), and paper 002 §3.3.1's component
// profile of its drafts on an L40 (17 ms for Llama-3.2-1B, 67 ms for Llama-3.1-8B per token, at
// the "around 20K tokens" of the same experiment's Fig. 7) under each.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "models/config_registry.hpp"
#include "models/engine_registry.hpp"
#include "models/latency_engine.hpp"
#include "models/software_stack.hpp"

namespace {

// The file's settings: comment lines, the name, the description and the repeat_kv entry left out.
std::string settings_of(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(' ');
    if (first == std::string::npos || line[first] == '#') continue;
    if (line.rfind("name:", 0) == 0 || line.rfind("description:", 0) == 0) continue;
    if (line.find("name: repeat_kv") != std::string::npos) continue;
    out << line << '\n';
  }
  return out.str();
}

double token_s(const std::string& stack, const std::string& model, long long context, const std::string& engine) {
  const models::ConfigRegistry reg;
  models::HardwareSpec hw = reg.hardware("l40");
  hw.stack = models::load_software_stack(reg.path("stacks", stack));
  const auto e = models::make_engine(engine, hw);
  models::Workload w;
  w.target = reg.model(model);
  return e->step(models::verify_graph(*e, w, 1, context)).seconds;
}

}  // namespace

TEST_CASE("hf stack versions: the pre-GQA stack is today's plus repeat_kv, nothing else") {
  const models::ConfigRegistry reg;
  CHECK(settings_of(reg.path("stacks", "huggingface-transformers-4.53")) ==
        settings_of(reg.path("stacks", "huggingface-transformers")));
  const auto old_stack = models::load_software_stack(reg.path("stacks", "huggingface-transformers-4.53"));
  const auto now = models::load_software_stack(reg.path("stacks", "huggingface-transformers"));
  REQUIRE(old_stack.layer_kernels.size() == now.layer_kernels.size() + 1);
  bool found = false;
  for (const auto& k : old_stack.layer_kernels)
    if (k.name == "repeat_kv") {
      found = true;
      CHECK(k.tensor == models::StackTensor::kv_cache_heads);
      CHECK(k.grouped_kv_only);
    }
  CHECK(found);
}

TEST_CASE("hf stack versions: paper 002's L40 draft profile (17 / 67 ms) within 15 % under the pre-GQA stack") {
  for (const char* engine : {"roofline", "sim"}) {
    INFO("engine " << engine);
    // At the ~20K tokens of the same experiment: both within 15 % under the pre-GQA stack ...
    const double one_b = token_s("huggingface-transformers-4.53", "llama-3.2-1b", 20000, engine);
    const double eight_b = token_s("huggingface-transformers-4.53", "llama-3.1-8b-instruct", 20000, engine);
    CHECK(std::abs(one_b / 17e-3 - 1) < 0.15);
    CHECK(std::abs(eight_b / 67e-3 - 1) < 0.15);
    // ... while today's stack leaves both short (the 8B by about 43 %, the 1B, host-bound there,
    // by about 24 %): a known failure under the stack the paper did not run.
    CHECK(token_s("huggingface-transformers", "llama-3.1-8b-instruct", 20000, engine) < 0.65 * 67e-3);
    CHECK(token_s("huggingface-transformers", "llama-3.2-1b", 20000, engine) < 0.85 * 17e-3);
    // A model without grouped-query attention copies nothing: both stacks time it alike.
    CHECK(token_s("huggingface-transformers-4.53", "llama-2-7b", 20000, engine) ==
          token_s("huggingface-transformers", "llama-2-7b", 20000, engine));
  }
}
