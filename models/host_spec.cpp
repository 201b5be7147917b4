#include "models/host_spec.hpp"

#include <fmt/format.h>

#include "models/yaml_reader.hpp"

namespace models {

HostSpec load_host(const std::string& path) {
  const YamlReader r = YamlReader::open(path);
  r.allow_only({"name", "description", "cpu", "dispatch_time_scale"});
  HostSpec h;
  h.source_file = path;
  h.name = r.string("name");
  if (h.name.empty()) r.fail("name", "a non-empty host name", "''");
  h.description = r.string_or("description", "");
  h.cpu = r.string_or("cpu", "");
  h.dispatch_time_scale = r.positive("dispatch_time_scale");
  if (h.dispatch_time_scale > kMaxDispatchTimeScale)
    r.fail("dispatch_time_scale", fmt::format("a factor in (0, {}]", kMaxDispatchTimeScale),
           fmt::format("{}", h.dispatch_time_scale));
  return h;
}

}  // namespace models
