#include "experiments/cli/config_listing.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "experiments/cli/cli_common.hpp"
#include "models/algorithm_spec.hpp"
#include "models/closest_name.hpp"
#include "models/config_error.hpp"
#include "models/link_spec.hpp"
#include "models/software_stack.hpp"
#include "models/system_spec.hpp"
#include "experiments/cli/validation_status.hpp"
#include "search/acceptance/acceptance_data.hpp"
#include "search/acceptance/acceptance_statistics.hpp"
#include "search/scenarios/scenario.hpp"

namespace fs = std::filesystem;

namespace experiments {
namespace {

struct Category {
  std::string name, singular, holds;
};

const std::vector<Category>& categories() {
  static const std::vector<Category> all = {
      {"models", "model", "target and draft models (configs/models)"},
      {"hardware", "hardware", "FPGA boards, GPUs and CPUs (configs/hardware)"},
      {"systems", "system", "devices joined by links, with a placement (configs/systems)"},
      {"links", "link", "interconnects between devices (configs/links)"},
      {"stacks", "stack", "software stacks and their host costs (configs/stacks)"},
      {"hosts", "host", "host CPUs that run the stacks' host work, by speed (configs/hosts)"},
      {"algorithms", "algorithm", "SD algorithms: draft kind and trees (configs/algorithms)"},
      {"acceptance", "acceptance", "measured AAT, acceptance statistics and process bands (configs/acceptance)"},
      {"scenarios", "scenario", "registered scenarios (specdse scenario NAME)"},
      {"validation", "validation", "what each scenario was validated against, and where it disagrees with its paper"},
  };
  return all;
}

// A config's own `description:`, or "" (a file that does not parse has none).
std::string yaml_description(const std::string& path) {
  try {
    const YAML::Node root = YAML::LoadFile(path);
    if (root.IsMap() && root["description"] && root["description"].IsScalar()) return root["description"].Scalar();
  } catch (const YAML::Exception&) {
  }
  return "";
}

// "paper 000 t3-4" of a statistic's source "paper 000 t3-4, x = 2".
std::string source_of(const std::string& source) { return source.substr(0, source.find(',')); }

// The first line of an error, for a listed entry that does not load.
std::string broken(const std::exception& e) {
  std::string m = e.what();
  return "does not load: " + m.substr(0, m.find('\n'));
}

std::string joined(const std::vector<std::string>& parts, const std::string& sep = ", ") {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

// "128,512,2048" as the integer-list syntax of the CLI, runs folded: "1-8,16".
std::string int_list(const std::vector<long long>& sorted) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    parts.push_back(j >= i + 2 ? fmt::format("{}-{}", sorted[i], sorted[j])
                               : fmt::format("{}", sorted[i]) + (j == i + 1 ? fmt::format(",{}", sorted[j]) : ""));
    i = j + 1;
  }
  return joined(parts, ",");
}

Table models_table(const models::ConfigRegistry& reg) {
  Table t({"name", "description", "parameters", "layers", "hidden_size"});
  for (const auto& name : reg.names("models")) {
    const std::string path = reg.path("models", name);
    try {
      const auto m = reg.model(name);
      std::string facts = fmt::format("{:.3g} B parameters, {} layers, hidden {}, {} attention / {} KV heads, {}-bit weights",
                                      m.parameters() / 1e9, m.layers, m.hidden_size, m.attention_heads, m.kv_heads,
                                      m.weight_bits);
      if (m.is_moe())
        facts += fmt::format(", MoE: {} experts, top-{}{}", m.num_experts, m.experts_per_token,
                             m.shared_experts ? fmt::format(" + {} shared", m.shared_experts) : "");
      const std::string own = yaml_description(path);
      t.add_row({name, own.empty() ? facts : own + " (" + facts + ")", integer(std::int64_t(std::llround(m.parameters()))),
                 integer(m.layers), integer(m.hidden_size)});
    } catch (const std::exception& e) {
      t.add_row({name, broken(e), text(""), text(""), text("")});
    }
  }
  return t;
}

Table hardware_table(const models::ConfigRegistry& reg) {
  Table t({"name", "kind", "description", "peak_tflops", "bandwidth_gbs", "memory_gib"});
  for (const auto& name : reg.names("hardware")) {
    try {
      const auto hw = reg.hardware(name);
      // A board that states no memory capacity (the FPGA boards) is not checked for fit.
      const double gib = hw.memory_capacity_bytes() / double(1ull << 30);
      t.add_row({name, hw.kind, hw.description, num(hw.peak_flops() / 1e12), num(hw.peak_bandwidth_bytes() / 1e9),
                 gib > 0 ? num(gib) : text("")});
    } catch (const std::exception& e) {
      t.add_row({name, text(""), broken(e), text(""), text(""), text("")});
    }
  }
  return t;
}

// "gpu0-gpu7: rtx3090 [pytorch-eager]; draft: l40 [pytorch-eager]": each devices: group with its
// board and stack, the draft's device named.
std::string device_names(const models::SystemSpec& s) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < s.devices.size();) {
    std::size_t j = i;
    while (j + 1 < s.devices.size() && s.devices[j + 1].group == s.devices[i].group) ++j;
    const std::string who = j > i ? s.devices[i].name + "-" + s.devices[j].name : s.devices[i].name;
    const bool draft = s.draft_device >= int(i) && s.draft_device <= int(j) && s.devices[i].group != "draft";
    const std::string& stack = s.devices[i].hardware.stack.name;
    parts.push_back(fmt::format("{}: {}{}{}", who, s.devices[i].hardware.name,
                                stack.empty() || stack == "bare" ? "" : " [" + stack + "]",
                                draft ? (j > i ? fmt::format(" (draft on {})", s.devices[std::size_t(s.draft_device)].name)
                                               : std::string(" (draft)"))
                                      : ""));
    i = j + 1;
  }
  return joined(parts, "; ");
}

Table systems_table(const models::ConfigRegistry& reg) {
  Table t({"name", "description", "devices", "device_count", "links"});
  for (const auto& name : reg.names("systems")) {
    try {
      const auto s = models::load_system(reg.path("systems", name), reg);
      std::vector<std::string> links;
      for (const auto& l : s.links)
        if (std::find(links.begin(), links.end(), l.spec.name) == links.end()) links.push_back(l.spec.name);
      t.add_row({name, s.description, device_names(s), integer(std::int64_t(s.devices.size())), joined(links)});
    } catch (const std::exception& e) {
      t.add_row({name, broken(e), text(""), text(""), text("")});
    }
  }
  return t;
}

Table links_table(const models::ConfigRegistry& reg) {
  Table t({"name", "kind", "description", "bandwidth_gbs", "latency_us"});
  for (const auto& name : reg.names("links")) {
    const std::string path = reg.path("links", name);
    try {
      const auto l = models::load_link(path);
      const std::string facts = fmt::format("{:.3g} GB/s per direction, {:.3g} % achievable, {:g} us latency, {:g} us per message",
                                            l.bandwidth_gbs, l.efficiency * 100, l.latency_us, l.per_message_us);
      const std::string own = yaml_description(path);
      t.add_row({name, models::to_string(l.kind), own.empty() ? facts : own + " (" + facts + ")", num(l.bandwidth_gbs),
                 num(l.latency_us)});
    } catch (const std::exception& e) {
      t.add_row({name, text(""), broken(e), text(""), text("")});
    }
  }
  return t;
}

Table stacks_table(const models::ConfigRegistry& reg) {
  Table t({"name", "description", "kernel_launch_host_us", "per_step_host_us", "per_draft_pass_host_us"});
  for (const auto& name : reg.names("stacks")) {
    try {
      const auto s = models::load_software_stack(reg.path("stacks", name));
      t.add_row({name, s.description, num(s.kernel_launch_host_us), num(s.per_step_host_us),
                 num(s.per_draft_pass_host_us)});
    } catch (const std::exception& e) {
      t.add_row({name, broken(e), text(""), text(""), text("")});
    }
  }
  return t;
}

Table hosts_table(const models::ConfigRegistry& reg) {
  Table t({"name", "description", "cpu", "dispatch_time_scale"});
  for (const auto& name : reg.names("hosts")) {
    try {
      const auto h = models::load_host(reg.path("hosts", name));
      t.add_row({name, h.description, h.cpu, num(h.dispatch_time_scale)});
    } catch (const std::exception& e) {
      t.add_row({name, broken(e), text(""), text("")});
    }
  }
  return t;
}

std::string tree_kind_name(models::TreeKind k) {
  switch (k) {
    case models::TreeKind::width_per_depth: return "width_per_depth";
    case models::TreeKind::depth_topk: return "depth_topk";
    case models::TreeKind::chain: return "chain";
  }
  return "";
}

Table algorithms_table(const models::ConfigRegistry& reg) {
  Table t({"name", "description", "draft_kind", "draft_model", "tree", "max_x"});
  for (const auto& name : reg.names("algorithms")) {
    try {
      const auto a = reg.algorithm(name);
      t.add_row({name, a.description, a.draft.kind, a.draft.model_name, tree_kind_name(a.tree_kind),
                 a.max_x > 0 ? integer(a.max_x) : text("")});
    } catch (const std::exception& e) {
      t.add_row({name, broken(e), text(""), text(""), text(""), text("")});
    }
  }
  return t;
}

std::vector<std::string> yaml_names(const fs::path& folder) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec))
    if (e.path().extension() == ".yaml") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

Table acceptance_table(const models::ConfigRegistry& reg) {
  Table t({"name", "kind", "description", "contexts", "x", "points"});
  // Measured AAT, one row per (model, algorithm, task): the name is what --aat-from takes.
  const fs::path folder = fs::path(reg.dir()) / "acceptance";
  const fs::path measured = folder / "aat_measurements.csv";
  std::error_code ec;
  if (fs::exists(measured, ec)) {
    try {
      const auto data = search::AcceptanceData::load(measured.string());
      struct Coverage {
        std::set<long long> contexts;
        std::set<long long> xs;
        std::set<std::string> tables;
        std::size_t points = 0;
      };
      std::map<std::string, Coverage> groups;
      for (const auto& r : data.rows()) {
        auto& c = groups[r.target_model + "/" + r.algorithm + "/" + r.task];
        c.contexts.insert(r.context);
        c.xs.insert(r.x());
        c.tables.insert(r.source_table);
        ++c.points;
      }
      for (const auto& [key, c] : groups) {
        const std::vector<long long> contexts(c.contexts.begin(), c.contexts.end());
        const std::vector<long long> xs(c.xs.begin(), c.xs.end());
        t.add_row({key, "measured",
                   fmt::format("measured AAT (paper 000 tables {}; aat_measurements.csv)",
                               joined(std::vector<std::string>(c.tables.begin(), c.tables.end()))),
                   int_list(contexts), fmt::format("{}-{}", xs.front(), xs.back()),
                   integer(std::int64_t(c.points))});
      }
    } catch (const std::exception& e) {
      t.add_row({"aat_measurements", "measured", broken(e), text(""), text(""), text("")});
    }
  }
  for (const auto& name : yaml_names(folder / "statistics")) {
    const std::string path = (folder / "statistics" / (name + ".yaml")).string();
    try {
      const auto s = search::read_statistics_file(path);
      std::vector<std::string> sources;
      const YAML::Node root = YAML::LoadFile(path);
      if (root["statistics"] && root["statistics"].IsSequence())
        for (const auto& row : root["statistics"])
          if (row.IsMap() && row["source"] && row["source"].IsScalar() &&
              std::find(sources.begin(), sources.end(), source_of(row["source"].Scalar())) == sources.end())
            sources.push_back(source_of(row["source"].Scalar()));
      t.add_row({name, "statistics",
                 fmt::format("{} acceptance statistics of '{}'{}; fits {}{} (specdse fit --statistics)",
                             s.spec.statistics.size(), s.name, sources.empty() ? "" : " from " + joined(sources),
                             joined(s.spec.free),
                             s.open_parameters.empty() ? "" : fmt::format("; {} left open ({} grid points)",
                                                                          joined(s.open_parameters), s.open_points())),
                 text(""), text(""), integer(std::int64_t(s.spec.statistics.size()))});
    } catch (const std::exception& e) {
      t.add_row({name, "statistics", broken(e), text(""), text(""), text("")});
    }
  }
  for (const auto& name : yaml_names(folder / "processes")) {
    const std::string path = (folder / "processes" / (name + ".yaml")).string();
    try {
      const auto b = search::read_process_band(path);
      t.add_row({name, "process",
                 fmt::format("acceptance process band of '{}': {} fits to {}{} (duo --acceptance)", b.name,
                             b.members.size(), b.fitted_to,
                             b.left_open.empty() ? "" : ", left open: " + joined(b.left_open)),
                 text(""), text(""), text("")});
    } catch (const std::exception& e) {
      t.add_row({name, "process", broken(e), text(""), text(""), text("")});
    }
  }
  return t;
}

Table scenarios_table() {
  Table t({"name", "description", "command"});
  for (const auto& s : search::scenarios())
    t.add_row({s.name, s.description, s.command.empty() ? "specdse scenario " + s.name : "specdse " + s.command});
  return t;
}

}  // namespace

const std::vector<std::string>& list_categories() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& c : categories()) n.push_back(c.name);
    return n;
  }();
  return names;
}

std::string list_category(const std::string& word) {
  if (word == "hw") return "hardware";
  for (const auto& c : categories())
    if (word == c.name || word == c.singular) return c.name;
  return "";
}

Table category_table(const std::string& category, const models::ConfigRegistry& reg) {
  const std::string c = list_category(category);
  if (c == "models") return models_table(reg);
  if (c == "hardware") return hardware_table(reg);
  if (c == "systems") return systems_table(reg);
  if (c == "links") return links_table(reg);
  if (c == "stacks") return stacks_table(reg);
  if (c == "hosts") return hosts_table(reg);
  if (c == "algorithms") return algorithms_table(reg);
  if (c == "acceptance") return acceptance_table(reg);
  if (c == "scenarios") return scenarios_table();
  if (c == "validation") return validation_table(reg.dir());
  throw models::InputError(fmt::format("list: unknown category '{}'{}; categories: {}", category,
                                       models::did_you_mean(category, list_categories()), joined(list_categories())));
}

Table categories_table(const models::ConfigRegistry& reg) {
  Table t({"category", "count", "holds"});
  for (const auto& c : categories()) {
    std::size_t n = 0;
    if (c.name == "scenarios") n = search::scenarios().size();
    else if (c.name == "acceptance" || c.name == "validation") n = category_table(c.name, reg).rows().size();
    else n = reg.names(c.name).size();
    t.add_row({c.name, integer(std::int64_t(n)), c.holds});
  }
  t.set_footer("specdse list CATEGORY names each with a description; specdse list NAME shows one");
  return t;
}

std::vector<std::pair<std::string, std::string>> all_listed_names(const models::ConfigRegistry& reg) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& c : categories()) {
    if (c.name == "scenarios") {
      for (const auto& s : search::scenarios()) out.emplace_back(c.name, s.name);
    } else if (c.name == "validation") {
      continue;  // its names are the scenarios'
    } else if (c.name == "acceptance") {
      const Table t = category_table(c.name, reg);
      for (const auto& row : t.rows()) out.emplace_back(c.name, std::get<std::string>(row[0]));
    } else {
      for (const auto& n : reg.names(c.name)) out.emplace_back(c.name, n);
    }
  }
  return out;
}

Table list_table(const std::string& what, const models::ConfigRegistry& reg) {
  if (what.empty()) return categories_table(reg);
  if (!list_category(what).empty()) return category_table(what, reg);
  const auto names = all_listed_names(reg);
  std::vector<std::string> known = list_categories();
  for (const auto& [category, name] : names) {
    if (name != what) continue;
    const Table all = category_table(category, reg);
    Table one(all.columns());
    for (const auto& row : all.rows())
      if (std::get<std::string>(row[0]) == what) one.add_row(row);
    return one;
  }
  for (const auto& [category, name] : names) known.push_back(name);
  const std::string guess = models::closest_name(what, known);
  std::string where;
  for (const auto& [category, name] : names)
    if (name == guess) where = " see specdse list " + category;
  constexpr std::size_t kMaxShown = 80;
  const std::string shown = what.size() <= kMaxShown ? what : what.substr(0, kMaxShown) + "...";
  throw models::InputError(fmt::format("list: '{}' is neither a category nor a name in one{}; categories: {}", shown,
                                       guess.empty() ? "" : fmt::format(" (did you mean '{}'?{})", guess, where),
                                       joined(list_categories())));
}

}  // namespace experiments
