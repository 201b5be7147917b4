#include "models/custom_all_reduce_spec.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "models/yaml_reader.hpp"

namespace models {

bool CustomAllReduceSpec::supports_world_size(int n) const {
  return std::find(world_sizes.begin(), world_sizes.end(), n) != world_sizes.end();
}

double CustomAllReduceSpec::one_stage_below_bytes(int n) const {
  for (const auto& l : one_stage)
    if (n <= l.max_world_size) return l.bytes;
  return 0;
}

CustomAllReduceSpec load_custom_all_reduce(const std::string& path) {
  const YamlReader r = YamlReader::open(path);
  r.allow_only({"name", "description", "world_sizes", "max_bytes", "alignment_bytes", "one_stage_below_bytes"});
  CustomAllReduceSpec s;
  s.source_file = path;
  s.name = r.string("name");
  for (long long n : r.positive_int_list("world_sizes")) {
    if (n < 2 || n > 4096) r.fail("world_sizes", "group sizes from 2 to 4096", std::to_string(n));
    s.world_sizes.push_back(int(n));
  }
  s.max_bytes = double(r.positive_int("max_bytes"));
  s.alignment_bytes = double(r.positive_int("alignment_bytes"));
  int previous = 0;
  for (const YamlReader& e : r.map_list("one_stage_below_bytes")) {
    e.allow_only({"max_world_size", "bytes"});
    OneStageLimit l;
    l.max_world_size = e.int_in("max_world_size", 2, 4096);
    if (l.max_world_size <= previous)
      e.fail("max_world_size", fmt::format("a size above the previous entry's ({})", previous), std::to_string(l.max_world_size));
    previous = l.max_world_size;
    l.bytes = double(e.positive_int("bytes"));
    s.one_stage.push_back(l);
  }
  return s;
}

}  // namespace models
