// Strict model and algorithm configs: unknown keys are errors naming the closest
// known key, and integers are range-checked before they are stored in int (no wrapping).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "models/algorithm_spec.hpp"
#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/hardware_spec.hpp"
#include "models/model_spec.hpp"

using namespace models;
namespace fs = std::filesystem;

namespace {

// A shipped config (folder/name) with its first `from` replaced by `to`, in the build folder.
std::string edited(const std::string& folder, const std::string& name, const std::string& from, const std::string& to) {
  std::ifstream in(ConfigRegistry().path(folder, name));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto pos = text.find(from);
  REQUIRE(pos != std::string::npos);
  text.replace(pos, from.size(), to);
  const fs::path dir = fs::path(SPECDSE_TEST_BINARY_DIR) / "strict_configs";
  fs::create_directories(dir);
  const fs::path out = dir / (name + "_" + std::to_string(std::hash<std::string>{}(from + to)) + ".yaml");
  std::ofstream(out) << text;
  return out.string();
}

template <typename Load>
std::string error_of(Load load) {
  try {
    load();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string model_error(const std::string& from, const std::string& to) {
  const auto p = edited("models", "llama-3.1-8b-instruct", from, to);
  return error_of([&] { load_model(p); });
}

std::string algorithm_error(const std::string& name, const std::string& from, const std::string& to) {
  const auto p = edited("algorithms", name, from, to);
  return error_of([&] { load_algorithm(p); });
}

}  // namespace

TEST_CASE("Every shipped model, algorithm and hardware config loads under the strict rules") {
  const ConfigRegistry reg;
  for (const auto& name : reg.names("models")) CHECK_NOTHROW(reg.model(name));
  for (const auto& name : reg.names("algorithms")) CHECK_NOTHROW(reg.algorithm(name));
  for (const auto& name : reg.names("hardware")) CHECK_NOTHROW(reg.hardware(name));
  CHECK(reg.names("models").size() >= 10);
  CHECK(reg.names("algorithms").size() >= 4);
}

TEST_CASE("A misspelt model key is an error naming file, key and the closest known key") {
  const auto msg = model_error("tied_embeddings:", "tied_embeding:");
  CHECK_THAT(msg, Catch::Contains("llama-3.1-8b-instruct") && Catch::Contains("tied_embeding: unknown key") &&
                      Catch::Contains("did you mean 'tied_embeddings'"));
  CHECK(msg.find('\n') == std::string::npos);
  // A key far from every known one gets no guess, but is still an error.
  CHECK_THAT(model_error("tied_embeddings:", "colour: blue\ntied_embeddings:"),
             Catch::Contains("colour: unknown key") && !Catch::Contains("did you mean"));
}

TEST_CASE("MoE keys without num_experts are an error, not silently ignored") {
  CHECK_THAT(model_error("tied_embeddings:", "experts_per_token: 2\ntied_embeddings:"),
             Catch::Contains("experts_per_token") && Catch::Contains("num_experts"));
}

TEST_CASE("Model integers beyond their range are errors, not wrapped ints") {
  // 2^31 used to become a negative hidden size (and a negative t_verify_s); 2^32 + 32 layers used
  // to load as 32 layers.
  CHECK_THAT(model_error("hidden_size: 4096", "hidden_size: 2147483648"),
             Catch::Contains("hidden_size") && Catch::Contains("'2147483648'") && Catch::Contains("an integer in [1, "));
  CHECK_THAT(model_error("layers: 32", "layers: 4294967328"),
             Catch::Contains("layers") && Catch::Contains("'4294967328'"));
  CHECK_THAT(model_error("vocab_size: 128256", "vocab_size: 99999999999999999999"), Catch::Contains("vocab_size"));
  CHECK_THAT(model_error("layers: 32", "layers: 32.5"), Catch::Contains("layers") && Catch::Contains("'32.5'"));
  CHECK_THAT(model_error("head_dim: 128", "head_dim: 0"), Catch::Contains("head_dim"));
  // The bounds hold every real model: the largest shipped ones load (checked above) and a
  // 405B-class shape (126 layers, hidden 16384, MLP 53248) is accepted.
  const auto big = edited("models", "llama-3.1-8b-instruct", "intermediate_size: 14336", "intermediate_size: 53248");
  CHECK(load_model(big).intermediate_size == 53248);
}

TEST_CASE("A misspelt algorithm key is an error at the top, in the draft block and in the tree block") {
  CHECK_THAT(algorithm_error("longspec-tree", "description:", "descripton:"),
             Catch::Contains("descripton: unknown key") && Catch::Contains("did you mean 'description'"));
  CHECK_THAT(algorithm_error("longspec-tree", "self_attention_window_tokens:", "self_attention_window_token:"),
             Catch::Contains("draft.self_attention_window_token: unknown key") &&
                 Catch::Contains("did you mean 'self_attention_window_tokens'"));
  CHECK_THAT(algorithm_error("eagle3-tree", "draft_vocab_size:", "draft_vocab:"),
             Catch::Contains("draft.draft_vocab: unknown key"));
  CHECK_THAT(algorithm_error("longspec-tree", "  shapes:", "  shape:"), Catch::Contains("tree.shape: unknown key"));
}

TEST_CASE("Algorithm integers beyond their range are errors") {
  CHECK_THAT(algorithm_error("eagle-dense3-chain", "decoder_layers: 3", "decoder_layers: 0"),
             Catch::Contains("draft.decoder_layers") && Catch::Contains("'0'"));
  CHECK_THAT(algorithm_error("eagle-dense3-chain", "decoder_layers: 3", "decoder_layers: 65"),
             Catch::Contains("draft.decoder_layers"));
  CHECK_THAT(algorithm_error("eagle3-tree", "draft_vocab_size: 32000", "draft_vocab_size: 4294999296"),
             Catch::Contains("draft.draft_vocab_size") && Catch::Contains("'4294999296'"));
  CHECK_THAT(algorithm_error("longspec-tree", "self_attention_window_tokens: 512",
                             "self_attention_window_tokens: 4294967808"),
             Catch::Contains("self_attention_window_tokens"));
  // A level width of 2^32 + 1 would wrap to 1 and pass the node count of x = 3.
  CHECK_THAT(algorithm_error("longspec-tree", "3: [1, 1]", "3: [1, 4294967297]"),
             Catch::Contains("shapes.3") && Catch::Contains("4294967297"));
  CHECK_THAT(algorithm_error("longspec-tree", "3: [1, 1]", "4294967299: [1, 1]"), Catch::Contains("shapes"));
}

TEST_CASE("Hardware integers beyond the int range are errors") {
  const auto p = edited("hardware", "h100-sxm", "sms: 132", "sms: 4294967428");
  CHECK_THAT(error_of([&] { load_hardware(p); }), Catch::Contains("sms") && Catch::Contains("'4294967428'"));
}

TEST_CASE("Binary and non-printable values are shown escaped and short, on one line") {
  const fs::path dir = fs::path(SPECDSE_TEST_BINARY_DIR) / "strict_configs";
  fs::create_directories(dir);
  const auto p = (dir / "binary_name.yaml").string();
  std::string junk = "name: ok\nlayers: \"";
  for (int i = 1; i < 200; ++i) junk += i == '"' || i == '\\' || i == '\n' || i == '\r' ? 'x' : char(i);
  junk += "\"\n";
  std::ofstream(p, std::ios::binary) << junk;
  const auto msg = error_of([&] { load_model(p); });
  CHECK_THAT(msg, Catch::Contains("layers") && Catch::Contains("\\x01") && Catch::Contains("bytes)"));
  CHECK(msg.find('\n') == std::string::npos);
  CHECK(msg.size() < 400);
}
