#include "models/algorithm_spec.hpp"

#include <fmt/format.h>

#include <numeric>

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
      // First pass expands the root; each later pass expands the top_k frontier.
      std::vector<int> widths(std::size_t(it->second.first), it->second.second);
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

int parse_x_key(const YamlReader& r, const YAML::Node& key_node, const std::string& map_key) {
  int x = 0;
  if (!YAML::convert<int>::decode(key_node, x) || x < 2)
    r.fail(map_key, "verification lengths (integer keys >= 2)", "'" + key_node.Scalar() + "'");
  return x;
}

}  // namespace

AlgorithmSpec load_algorithm(const std::string& path) {
  const YamlReader r = YamlReader::open(path);
  AlgorithmSpec a;
  a.source_file = path;
  a.name = r.string("name");
  a.description = r.string_or("description", "");
  a.draft = load_draft(r.child("draft"));
  const YamlReader t = r.child("tree");
  const std::string kind = t.one_of("kind", {"width_per_depth", "depth_topk", "chain"});
  if (kind == "chain") {
    a.tree_kind = TreeKind::chain;
  } else if (kind == "width_per_depth") {
    a.tree_kind = TreeKind::width_per_depth;
    const YamlReader shapes = t.child("shapes");
    for (const auto& kv : shapes.node()) {
      const int x = parse_x_key(shapes, kv.first, "shapes");
      const std::string key = kv.first.Scalar();
      std::vector<int> widths;
      for (long long w : shapes.positive_int_list(key)) widths.push_back(int(w));
      const int nodes = std::accumulate(widths.begin(), widths.end(), 0);
      if (nodes != x - 1)
        shapes.fail(key, fmt::format("{} draft nodes (x - 1)", x - 1), std::to_string(nodes));
      for (std::size_t i = 1; i < widths.size(); ++i)
        if (widths[i] > 0 && widths[i - 1] == 0) shapes.fail(key, "no empty level above a node", "a gap");
      a.widths_by_x[x] = widths;
      a.max_x = std::max(a.max_x, x);
    }
  } else {
    a.tree_kind = TreeKind::depth_topk;
    const YamlReader trees = t.child("depth_topk");
    for (const auto& kv : trees.node()) {
      const int x = parse_x_key(trees, kv.first, "depth_topk");
      const auto v = trees.positive_int_list(kv.first.Scalar());
      if (v.size() != 2) trees.fail(kv.first.Scalar(), "[depth, top_k]", "a list of " + std::to_string(v.size()));
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
