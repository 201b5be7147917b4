#include "models/system_spec.hpp"

#include "models/system_route.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <set>
#include <utility>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/yaml_reader.hpp"

namespace models {

int SystemSpec::device_index(const std::string& name) const {
  for (std::size_t i = 0; i < devices.size(); ++i)
    if (devices[i].name == name) return int(i);
  return -1;
}

int SystemSpec::draft_or_lead_device() const {
  return draft_device >= 0 ? draft_device : stages.front().devices.front();
}

bool SystemSpec::holds_target(int device) const {
  for (const auto& stage : stages)
    if (std::find(stage.devices.begin(), stage.devices.end(), device) != stage.devices.end()) return true;
  return false;
}

std::vector<int> SystemSpec::head_ranks(int device) const {
  const auto& group = stages.front().devices;
  if (std::find(group.begin(), group.end(), device) != group.end()) return group;
  return {device};
}

std::vector<std::string> SystemSpec::config_files() const {
  std::vector<std::string> files;
  std::set<std::string> seen;
  auto add = [&](const std::string& f) {
    if (!f.empty() && seen.insert(f).second) files.push_back(f);
  };
  auto add_stack = [&](const SoftwareStack& stack) {
    add(stack.source_file);
    if (stack.collectives) add(stack.collectives->source_file);
    if (stack.custom_all_reduce) add(stack.custom_all_reduce->source_file);
  };
  add(source_file);
  for (const SystemDevice& d : devices) {
    add(d.hardware.source_file);
    add_stack(d.hardware.stack);
    add(d.hardware.host.source_file);  // "" on the built-in reference host: skipped
  }
  for (const SystemLink& l : links) add(l.spec.source_file);
  for (const auto* stacks : {&baseline_stacks, &baseline_tp_stacks, &method_stacks})
    for (const auto& [method, stack] : *stacks) add_stack(stack);
  return files;
}

const SystemLink* SystemSpec::link_between(int a, int b) const {
  if (const auto it = link_index.find({a, b});
      it != link_index.end() && it->second < links.size() && links[it->second].from == a && links[it->second].to == b)
    return &links[it->second];
  if (link_index.size() == links.size()) return nullptr;  // the index covers every link: none joins a and b
  // Links edited after loading (the index no longer matches them): look them over.
  for (const auto& l : links)
    if (l.from == a && l.to == b) return &l;
  return nullptr;
}

namespace {

// Names in a list may be device groups (all their instances, in order) or instance names.
std::vector<int> resolve_devices(const YamlReader& r, const std::string& key, const SystemSpec& s) {
  const YAML::Node given = r.node()[key];
  // One name or a list (yaml-cpp nodes alias on assignment, so build a separate list).
  YAML::Node n(YAML::NodeType::Sequence);
  if (given.IsDefined() && given.IsScalar()) n.push_back(given.Scalar());
  else if (given.IsDefined()) n.reset(given);
  if (!n.IsDefined() || !n.IsSequence() || n.size() == 0)
    r.fail(key, "a device name or a non-empty list of device names", n.IsDefined() ? "something else" : "nothing");
  std::vector<int> out;
  for (const auto& item : n) {
    if (!item.IsScalar()) r.fail(key, "device names", "a nested list or map");
    const std::string name = item.as<std::string>();
    bool found = false;
    for (std::size_t i = 0; i < s.devices.size(); ++i)
      if (s.devices[i].group == name || s.devices[i].name == name) {
        out.push_back(int(i));
        found = true;
      }
    if (!found) {
      std::string known;
      for (const auto& d : s.devices) known += (known.empty() ? "" : ", ") + d.name;
      r.fail(key, fmt::format("a device of this system ({})", known), "'" + name + "'");
    }
  }
  return out;
}

std::pair<int, int> parse_layer_range(const YamlReader& r, const std::string& key) {
  const std::string text = r.string(key);
  const auto dash = text.find('-');
  try {
    std::size_t used = 0;
    if (dash == std::string::npos) {
      const int l = std::stoi(text, &used);
      if (used == text.size() && l >= 0) return {l, l};
    } else {
      std::size_t used2 = 0;
      const int a = std::stoi(text.substr(0, dash), &used);
      const int b = std::stoi(text.substr(dash + 1), &used2);
      if (used == dash && used2 == text.size() - dash - 1 && a >= 0 && b >= a) return {a, b};
    }
  } catch (const std::exception&) {
  }
  r.fail(key, "a layer range FIRST-LAST (0-based, inclusive, FIRST <= LAST)", "'" + text + "'");
}

void add_lane_link(SystemSpec& s, const LinkSpec& spec, int from, int to, int lane) {
  if (from == to || s.link_between(from, to)) return;  // the first link listed between a pair wins
  SystemLink l;
  l.spec = spec;
  l.from = from;
  l.to = to;
  l.lane = lane;
  l.name = fmt::format("{}:{}->{}", spec.name, s.devices[from].name, s.devices[to].name);
  s.link_index[{from, to}] = s.links.size();
  s.links.push_back(l);
}

void load_links(const YamlReader& r, const ConfigRegistry& reg, SystemSpec& s) {
  for (const YamlReader& e : r.map_list("links")) {
    e.allow_only({"link", "topology", "devices"});
    const LinkSpec spec = load_link(reg.path("links", e.string("link")));
    const std::string topology = e.one_of("topology", {"switch", "chain", "ring"});
    const std::vector<int> devs = resolve_devices(e, "devices", s);
    if (devs.size() < 2) e.fail("devices", "at least two devices to join", std::to_string(devs.size()));
    // A device listed twice joins nothing to itself and leaves a chain or ring with a gap.
    for (std::size_t i = 0; i < devs.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (devs[i] == devs[j])
          e.fail("devices", "each device once", fmt::format("'{}' listed twice", s.devices[std::size_t(devs[i])].name));
    if (topology == "switch") {
      // A switch joins every ordered pair: N^2 links, each a route and a lane user. Past
      // kMaxSystemLinks (a switch of 1024 devices) loading alone takes seconds and gigabytes.
      const std::size_t added = devs.size() * (devs.size() - 1);
      if (s.links.size() + added > kMaxSystemLinks)
        e.fail("devices", fmt::format("at most {} directed links in a system (a switch of {} devices joins {} pairs)",
                                      kMaxSystemLinks, devs.size(), added),
               std::to_string(devs.size()) + " devices");
      // Each device's sends leave through its own port into the switch (shared by its sends).
      for (int a : devs) {
        const int lane = int(s.lanes.size());
        s.lanes.push_back(fmt::format("{}:{}:out", spec.name, s.devices[a].name));
        for (int b : devs) add_lane_link(s, spec, a, b, lane);
      }
    } else {
      const std::size_t pairs = topology == "ring" ? devs.size() : devs.size() - 1;
      for (std::size_t i = 0; i < pairs; ++i) {
        const int a = devs[i], b = devs[(i + 1) % devs.size()];
        for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
          const int lane = int(s.lanes.size());
          s.lanes.push_back(fmt::format("{}:{}->{}", spec.name, s.devices[x].name, s.devices[y].name));
          add_lane_link(s, spec, x, y, lane);
        }
      }
    }
  }
}

void load_placement(const YamlReader& r, SystemSpec& s) {
  const YamlReader p = r.child("placement");
  p.allow_only({"target", "draft"});
  const YamlReader t = p.child("target");
  t.allow_only({"stages", "devices", "tensor_parallel"});
  const YAML::Node stages = t.node()["stages"];
  if (stages.IsDefined() && stages.IsScalar()) {
    if (stages.Scalar() != "even") t.fail("stages", "'even' or a list of {devices, layers}", "'" + stages.Scalar() + "'");
    // One stage per tensor_parallel consecutive devices, layers split evenly later.
    const std::vector<int> devs = resolve_devices(t, "devices", s);
    const long long tp = t.positive_int_or("tensor_parallel", 1);
    if (devs.size() % tp != 0)
      t.fail("tensor_parallel", fmt::format("a divisor of the {} target devices", devs.size()), std::to_string(tp));
    for (std::size_t i = 0; i < devs.size(); i += tp) {
      PipelineStage st;
      st.devices.assign(devs.begin() + long(i), devs.begin() + long(i + tp));
      s.stages.push_back(st);
    }
    s.even_layers = true;
  } else {
    if (t.has("devices") || t.has("tensor_parallel"))
      t.fail("devices", "no devices/tensor_parallel beside an explicit stage list", "both");
    for (const YamlReader& e : t.map_list("stages")) {
      e.allow_only({"devices", "layers"});
      PipelineStage st;
      st.devices = resolve_devices(e, "devices", s);
      std::tie(st.first_layer, st.last_layer) = parse_layer_range(e, "layers");
      s.stages.push_back(st);
    }
  }
  std::set<int> used;
  for (const auto& st : s.stages)
    for (int d : st.devices)
      if (!used.insert(d).second)
        t.fail("stages", "each device in at most one target stage", "'" + s.devices[d].name + "' twice");
  if (auto d = p.optional_child("draft")) {
    d->allow_only({"device"});
    const std::vector<int> devs = resolve_devices(*d, "device", s);
    if (devs.size() != 1) d->fail("device", "exactly one device", std::to_string(devs.size()) + " devices");
    s.draft_device = devs[0];
  }
}

}  // namespace

namespace {
// Layers of stage i when n layers are split evenly over k stages: the first n % k take one more.
int even_stage_layers(int n, int k, int i) { return n / k + (i < n % k ? 1 : 0); }
}  // namespace

bool SystemSpec::placed_for(const ModelSpec& target) const {
  const int n = target.layers;
  int expected = 0;
  const int k = int(stages.size());
  for (int i = 0; i < k; ++i) {
    const int last = even_layers ? expected + even_stage_layers(n, k, i) - 1 : stages[i].last_layer;
    if (stages[i].first_layer != expected || stages[i].last_layer != last) return false;
    expected = last + 1;
  }
  return (!even_layers || k <= n) && expected == n;
}

const SystemSpec& SystemSpec::placed(const ModelSpec& target, std::optional<SystemSpec>& copy) const {
  if (placed_for(target)) return *this;
  copy.emplace(*this);
  copy->validate_placement(target);
  return *copy;
}

void SystemSpec::validate_placement(const ModelSpec& target) {
  const int n = target.layers;
  if (even_layers) {
    const int k = int(stages.size());
    if (k > n)
      throw InputError(fmt::format("{}: placement.target: {} stages for {} layers of {}", source_file, k, n, target.name));
    int next = 0;
    for (int i = 0; i < k; ++i) {
      const int count = even_stage_layers(n, k, i);
      stages[i].first_layer = next;
      stages[i].last_layer = next + count - 1;
      next += count;
    }
    return;
  }
  int expected = 0;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const auto& st = stages[i];
    if (st.first_layer != expected)
      throw InputError(fmt::format("{}: placement.target.stages[{}].layers: expected the range to start at layer {} "
                                   "(stages must cover the layers in order, each once), got {}-{}",
                                   source_file, i, expected, st.first_layer, st.last_layer));
    expected = st.last_layer + 1;
  }
  if (expected != n)
    throw InputError(fmt::format("{}: placement.target.stages: the stages cover layers 0-{}, but {} has {} layers (0-{})",
                                 source_file, expected - 1, target.name, n, n - 1));
}

SystemSpec load_system(const std::string& path, const ConfigRegistry& reg) {
  const YamlReader r = YamlReader::open(path);
  r.allow_only({"name", "description", "devices", "links", "placement", "memory", "baseline_stacks",
                "baseline_tp_stacks", "method_stacks"});
  SystemSpec s;
  s.source_file = path;
  // A file that took a shipped system's name goes by its own (ConfigRegistry::label).
  s.name = reg.label("systems", path, r.string("name"));
  s.description = r.string_or("description", "");
  std::set<std::string> groups;
  std::map<std::string, std::string> device_names;  // every device's name -> the group that made it
  const std::vector<YamlReader> device_entries = r.map_list("devices");
  std::vector<std::pair<std::string, const YamlReader*>> numbered_groups;  // groups of several devices
  for (const YamlReader& e : device_entries) {
    e.allow_only({"name", "hardware", "count", "stack", "host"});
    const std::string group = e.string("name");
    if (group.empty()) e.fail("name", "a non-empty device name", "''");
    // Names are matched as written: a space at either end makes a second name that reads the same.
    if (std::isspace((unsigned char)group.front()) || std::isspace((unsigned char)group.back()))
      e.fail("name", "a device name without spaces at its ends", "'" + group + "'");
    if (!groups.insert(group).second) e.fail("name", "a device name not used before", "'" + group + "'");
    HardwareSpec hw = reg.hardware(e.string("hardware"));
    if (e.has("stack")) hw.stack = load_software_stack(reg.path("stacks", e.string("stack")));
    // The CPU that runs the group's stack (one per node: a group is devices of one kind, each
    // driven by a host of this kind); without one, the reference host.
    if (e.has("host")) hw.host = load_host(reg.path("hosts", e.string("host")));
    const long long count = e.positive_int_or("count", 1);
    if (count > 4096) e.fail("count", "at most 4096 devices", std::to_string(count));
    for (long long i = 0; i < count; ++i) {
      SystemDevice d;
      d.group = group;
      d.name = count > 1 ? group + std::to_string(i) : group;
      // A group of several devices names them GROUP0, GROUP1, ...: a name must still say which
      // one device it is (a group `gpu` of 2 beside a group `gpu1` would make two gpu1s).
      if (const auto [it, added] = device_names.emplace(d.name, group); !added)
        e.fail("name", "device names that stay unique once groups are numbered",
               fmt::format("'{}' names a device of group '{}' and of group '{}'", d.name, it->second, group));
      d.hardware = hw;
      s.devices.push_back(std::move(d));
    }
    if (count > 1) numbered_groups.emplace_back(group, &e);
  }
  // A numbered group's name stands for all its devices wherever a list names it: it must not
  // also be one device of another group (a group `a` of 2 makes `a0`, so a group `a0` of 2
  // beside it would make `a0` mean one device and two at once).
  for (const auto& [group, reader] : numbered_groups)
    if (const auto it = device_names.find(group); it != device_names.end())
      reader->fail("name", "a group name that is no device's name",
                   fmt::format("'{}' names group '{}' and a device of group '{}'", group, group, it->second));
  if (r.has("links")) load_links(r, reg, s);
  load_placement(r, s);
  if (auto m = r.optional_child("memory")) {
    m->allow_only({"kv_tokens", "parameter_rule"});
    s.memory.kv_tokens = m->has("kv_tokens") ? m->positive_int("kv_tokens") : 0;
    s.memory.parameter_rule = m->has("parameter_rule") ? m->one_of("parameter_rule", {"exact", "dense-attention"}) : "exact";
  }
  const std::pair<const char*, std::map<std::string, SoftwareStack>*> stack_maps[] = {
      {"baseline_stacks", &s.baseline_stacks}, {"baseline_tp_stacks", &s.baseline_tp_stacks},
      {"method_stacks", &s.method_stacks}};
  for (const auto& [key, into_map] : stack_maps) {
    auto& into = *into_map;
    if (auto b = r.optional_child(key)) {
      for (const auto& kv : b->node()) {
        if (!kv.first.IsScalar() || kv.first.Scalar().empty()) b->fail("", "method names as keys", "a non-text key");
        const std::string method = kv.first.Scalar();
        if (into_map == &s.method_stacks &&
            std::none_of(std::begin(kMethodsWithOwnStack), std::end(kMethodsWithOwnStack),
                         [&](const char* m) { return method == m; }))
          b->fail(method, fmt::format("a method that runs under a stack of its own ({})",
                                      fmt::join(std::begin(kMethodsWithOwnStack), std::end(kMethodsWithOwnStack), ", ")),
                  "'" + method + "'");
        if (into_map != &s.method_stacks &&
            std::any_of(std::begin(kPipelineOwnMethods), std::end(kPipelineOwnMethods),
                        [&](const char* m) { return method == m; }))
          b->fail(method, fmt::format("a baseline name that is none of the pipeline's own methods ({})",
                                      fmt::join(std::begin(kPipelineOwnMethods), std::end(kPipelineOwnMethods), ", ")),
                  "'" + method + "'");
        for (const auto& [other_key, other_map] : stack_maps)
          if (other_map != into_map && other_map->count(method))
            b->fail(method, fmt::format("a method name not also under {}", other_key), "'" + method + "'");
        into[method] = load_software_stack(reg.path("stacks", b->string(method)));
      }
    }
  }
  // Ring collectives need a link between ring neighbours; activations between stages and the
  // draft's tokens need a path of links (models/system_route.hpp: relayed hop by hop).
  auto require_link = [&](int a, int b, const std::string& why) {
    if (a != b && !s.link_between(a, b))
      throw InputError(fmt::format("{}: links: no link from {} to {} ({})", path, s.devices[a].name,
                                   s.devices[b].name, why));
  };
  auto require_path = [&](int a, int b, const std::string& why) {
    if (!has_route(s, a, b))
      throw InputError(fmt::format("{}: links: no path of links from {} to {} ({})", path, s.devices[a].name,
                                   s.devices[b].name, why));
  };
  for (std::size_t i = 0; i < s.stages.size(); ++i) {
    const auto& st = s.stages[i];
    // Ring collectives (and the stage input, passed along the ring from rank 0) need these links.
    const std::size_t n = st.devices.size();
    for (std::size_t r = 0; r < n && n > 1; ++r)
      require_link(st.devices[r], st.devices[(r + 1) % n], fmt::format("all-reduce ring of stage {}", i));
    if (i + 1 < s.stages.size())
      require_path(st.devices.front(), s.stages[i + 1].devices.front(), fmt::format("pipeline stage {} -> {}", i, i + 1));
  }
  if (s.draft_device >= 0 && !s.stages.empty()) {
    require_path(s.draft_device, s.stages.front().devices.front(), "draft tokens to the first stage");
    require_path(s.stages.back().devices.front(), s.draft_device, "verified tokens back to the draft");
  }
  return s;
}

SystemSpec with_group_tensor_parallel(SystemSpec system) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<int>> members;
  for (const auto& st : system.stages)
    for (int d : st.devices) {
      const std::string& g = system.devices[std::size_t(d)].group;
      if (!members.count(g)) order.push_back(g);
      members[g].push_back(d);
    }
  system.stages.clear();
  for (const auto& g : order) {
    PipelineStage st;
    st.devices = members[g];
    const std::size_t n = st.devices.size();
    for (std::size_t r = 0; r < n && n > 1; ++r)
      if (!system.link_between(st.devices[r], st.devices[(r + 1) % n]))
        throw InputError(fmt::format("{}: links: no link from {} to {} for a tensor-parallel group '{}'",
                                     system.source_file, system.devices[std::size_t(st.devices[r])].name,
                                     system.devices[std::size_t(st.devices[(r + 1) % n])].name, g));
    system.stages.push_back(std::move(st));
  }
  system.even_layers = true;
  return system;
}

SystemSpec single_device_system(const HardwareSpec& hardware) {
  SystemSpec s;
  s.name = hardware.name;
  s.source_file = hardware.source_file;
  s.description = "one " + hardware.name;
  s.devices.push_back({hardware.name, hardware.name, hardware});
  PipelineStage stage;
  stage.devices = {0};
  s.stages.push_back(stage);
  s.even_layers = true;
  s.draft_device = 0;
  return s;
}

SystemSpec target_and_draft_system(const HardwareSpec& target, const HardwareSpec& draft, const LinkSpec& link) {
  SystemSpec s = single_device_system(target);
  s.name = fmt::format("{} + {}", target.name, draft.name);
  s.description = fmt::format("{} with a draft on {} over {}", target.name, draft.name, link.name);
  s.devices.front().name = draft.name == "target" ? "target-device" : "target";
  s.devices.push_back({draft.name, draft.name, draft});
  s.draft_device = 1;
  for (auto [from, to] : {std::pair{1, 0}, std::pair{0, 1}}) {
    const int lane = int(s.lanes.size());
    s.lanes.push_back(fmt::format("{}:{}->{}", link.name, s.devices[std::size_t(from)].name,
                                  s.devices[std::size_t(to)].name));
    add_lane_link(s, link, from, to, lane);
  }
  return s;
}

SystemSpec with_target_stack(SystemSpec system, const SoftwareStack& stack) {
  for (const auto& st : system.stages)
    for (int d : st.devices) system.devices[std::size_t(d)].hardware.stack = stack;
  return system;
}

}  // namespace models
