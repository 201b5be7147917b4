#pragma once
// An SD algorithm: its draft model's architecture and the token tree (or chain) it drafts at
// each verification length x (configs/algorithms/<name>.yaml).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/model_spec.hpp"

namespace models {

// The draft's kind (`draft.type`) names its builder (models/drafts/draft_builder.hpp), which
// reads and uses the fields of its kind below.
struct DraftSpec {
  std::string kind = "standalone";
  // longspec
  int self_attention_window_tokens = 0;
  // eagle3 (the decoder layer's shape; hidden/ffn/heads)
  int hidden_size = 0, intermediate_size = 0, attention_heads = 0, kv_heads = 0, head_dim = 0;
  int qkv_input_factor = 1;       // QKV input width = factor * hidden (EAGLE-3: 2d)
  int fused_feature_layers = 0;   // fc from fused_feature_layers * d to d
  int draft_vocab_size = 0;
  // Decoder layers of the head: EAGLE-3 has one; paper 004's final drafts are dense stacks of
  // three (§2.3). Only the first takes [embedding, fused feature] as its QKV input.
  int decoder_layers = 1;
  // mtp: the target model's own multi-token-prediction modules (models/drafts/mtp_draft.cpp)
  std::string mtp_target;              // the model whose checkpoint ships them
  int mtp_modules = 0;                 // modules the checkpoint ships (all loaded; pass i uses module i mod n)
  std::vector<double> mtp_acceptance;  // published acceptance of draft positions 1..n
  std::string mtp_acceptance_source;   // where that figure is published
  // standalone (any kind naming a model: ConfigRegistry::algorithm resolves it)
  std::string model_name;
  std::optional<ModelSpec> model;  // resolved standalone draft model
};

enum class TreeKind { width_per_depth, depth_topk, chain };

struct AlgorithmSpec {
  std::string name;
  std::string source_file;
  std::string description;
  DraftSpec draft;
  TreeKind tree_kind = TreeKind::chain;
  std::map<int, std::vector<int>> widths_by_x;   // width_per_depth: x -> nodes per depth
  std::map<int, std::pair<int, int>> depth_topk_by_x;  // depth_topk: x -> (depth, top_k)
  int max_x = 0;  // largest x with a tree in the table (chains: unbounded -> 0)

  // Tokens each draft pass processes for a step verifying x tokens (x = 1: no passes).
  std::vector<int> draft_pass_widths(int x) const;
  // Draft passes at x (tree depth for width_per_depth and chains; 1 + EAGLE's depth for depth_topk).
  int depth(int x) const { return int(draft_pass_widths(x).size()); }
};

AlgorithmSpec load_algorithm(const std::string& path);
// A chain algorithm whose draft is a standalone model (gamma = x - 1 passes of 1 token).
AlgorithmSpec standalone_chain_algorithm(const ModelSpec& draft_model);

}  // namespace models
