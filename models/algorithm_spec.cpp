#include "models/algorithm_spec.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/config_error.hpp"
#include "models/drafts/draft_builder.hpp"
#include "models/yaml_reader.hpp"

namespace models {

std::vector<int> AlgorithmSpec::draft_pass_widths(int x) const {
  if (x < 1) throw InputError(fmt::format("{}: verification length x must be >= 1, got {}", name, x));
  if (x == 1) return {};
  switch (tree_kind) {
    case TreeKind::chain:
      return std::vector<int>(std::size_t(x - 1), 1);
    case TreeKind::width_per_depth: {
      auto it = widths_by_x.find(x);
      if (it == widths_by_x.end())
        throw InputError(fmt::format("{}: no token tree for x = {} (trees cover x = 2..{})",
                                     source_file, x, max_x));
      return it->second;
    }
    case TreeKind::depth_topk: {
      auto it = depth_topk_by_x.find(x);
      if (it == depth_topk_by_x.end())
        throw InputError(fmt::format("{}: no token tree for x = {} (trees cover x = 2..{})",
                                     source_file, x, max_x));
      // EAGLE's drafting (EAGLE-2/3 topK_genrate): a first pass over the tokens just accepted
      // (their target features update the head's KV) gives the first level's top-k, then
      // `depth` passes each expand the top_k frontier nodes: 1 + depth passes. The first
      // pass's width is the accepted count (1 to ~4, AAT(x)); it is taken as 1: at such widths
      // the pass is weight-bound on every modelled device, so the width barely moves its time.
      std::vector<int> widths(std::size_t(it->second.first) + 1, it->second.second);
      widths.front() = 1;
      return widths;
    }
  }
  return {};
}

namespace {

// The kind's builder reads the rest of the block.
DraftSpec load_draft(const YamlReader& d) {
  DraftSpec s;
  s.kind = d.one_of("type", draft_kinds());
  draft_builder(s.kind, d.key_path("type")).load(d, s);
  return s;
}

// The largest verification length a tree table may list: 64 times the largest tree of paper 000
// (85 nodes) and of EAGLE / Sequoia (<= 768), far beyond one verification pass of any target,
// and small enough that node counts stay exact in int.
constexpr int kMaxTreeX = 1 << 16;

int parse_x_key(const YamlReader& r, const YAML::Node& key_node, const std::string& map_key) {
  long long x = 0;
  if (!key_node.IsScalar() || !YAML::convert<long long>::decode(key_node, x) || x < 2 || x > kMaxTreeX)
    r.fail(map_key, fmt::format("verification lengths (integer keys in [2, {}])", kMaxTreeX),
           "'" + (key_node.IsScalar() ? key_node.Scalar() : std::string("a list or map")) + "'");
  return int(x);
}

}  // namespace

AlgorithmSpec load_algorithm(const std::string& path) {
  const YamlReader r = YamlReader::open(path);
  r.allow_only({"name", "description", "draft", "tree"});
  AlgorithmSpec a;
  a.source_file = path;
  a.name = r.string("name");
  a.description = r.string_or("description", "");
  a.draft = load_draft(r.child("draft"));
  const YamlReader t = r.child("tree");
  const std::string kind = t.one_of("kind", {"width_per_depth", "depth_topk", "chain"});
  if (kind == "chain") {
    t.allow_only({"kind"});
    a.tree_kind = TreeKind::chain;
  } else if (kind == "width_per_depth") {
    a.tree_kind = TreeKind::width_per_depth;
    t.allow_only({"kind", "shapes"});
    const YamlReader shapes = t.child("shapes");
    for (const auto& kv : shapes.node()) {
      const int x = parse_x_key(shapes, kv.first, "shapes");
      const std::string key = kv.first.Scalar();
      std::vector<int> widths;
      long long nodes = 0;  // checked before narrowing, so a huge width cannot wrap to a valid count
      for (long long w : shapes.positive_int_list(key)) {
        if (w > kMaxTreeX) shapes.fail(key, fmt::format("level widths in [1, {}]", kMaxTreeX), std::to_string(w));
        nodes += w;
        widths.push_back(int(w));
      }
      if (nodes != x - 1)
        shapes.fail(key, fmt::format("{} draft nodes (x - 1)", x - 1), std::to_string(nodes));
      for (std::size_t i = 1; i < widths.size(); ++i)
        if (widths[i] > 0 && widths[i - 1] == 0) shapes.fail(key, "no empty level above a node", "a gap");
      a.widths_by_x[x] = widths;
      a.max_x = std::max(a.max_x, x);
    }
  } else {
    a.tree_kind = TreeKind::depth_topk;
    t.allow_only({"kind", "depth_topk"});
    const YamlReader trees = t.child("depth_topk");
    for (const auto& kv : trees.node()) {
      const int x = parse_x_key(trees, kv.first, "depth_topk");
      const auto v = trees.positive_int_list(kv.first.Scalar());
      if (v.size() != 2) trees.fail(kv.first.Scalar(), "[depth, top_k]", "a list of " + std::to_string(v.size()));
      if (v[0] > kMaxTreeX || v[1] > kMaxTreeX)
        trees.fail(kv.first.Scalar(), fmt::format("depth and top_k in [1, {}]", kMaxTreeX),
                   fmt::format("[{}, {}]", v[0], v[1]));
      a.depth_topk_by_x[x] = {int(v[0]), int(v[1])};
      a.max_x = std::max(a.max_x, x);
    }
  }
  return a;
}

AlgorithmSpec standalone_chain_algorithm(const ModelSpec& draft_model) {
  AlgorithmSpec a;
  a.name = draft_model.name + "-chain";
  a.source_file = draft_model.source_file;
  a.description = "standalone draft model " + draft_model.name + ", chain of gamma = x - 1 tokens";
  a.draft.kind = "standalone";
  a.draft.model_name = draft_model.name;
  a.draft.model = draft_model;
  a.tree_kind = TreeKind::chain;
  return a;
}

}  // namespace models
