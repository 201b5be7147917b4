#include "search/draft_placement_names.hpp"

#include <fmt/format.h>

#include <memory>

#include "models/config_error.hpp"
#include "models/engine_registry.hpp"
#include "models/system_spec.hpp"

namespace search {

DraftPlacement resolve_draft_placement(const models::ConfigRegistry& reg, const DraftPlacementNames& n,
                                               const std::string& engine, const std::string& target_hw) {
  if (n.empty()) return DraftPlacement::same_device();
  if (!n.draft_hw.empty() && !n.system.empty())
    throw models::InputError(fmt::format("--draft-hw {} and --system {}: give one draft placement, not both",
                                         n.draft_hw, n.system));
  if (!n.draft_link.empty() && n.draft_hw.empty())
    throw models::InputError(fmt::format("--draft-link {}: expected it with --draft-hw", n.draft_link));
  if (!n.draft_device.empty() && n.system.empty())
    throw models::InputError(fmt::format("--draft-device {}: expected it with --system", n.draft_device));

  if (!n.draft_hw.empty()) {
    const models::HardwareSpec hw = reg.hardware(n.draft_hw);
    const models::LinkSpec link =
        models::load_link(reg.path("links", n.draft_link.empty() ? kDefaultDraftLink : n.draft_link));
    // The target's end of the link: only its name is needed (the caller's engine times the
    // target; the deployment times the draft and the link), so a --hw given as a file works too.
    models::HardwareSpec target;
    target.name = target_hw;
    return DraftPlacement::on_device(target, hw, link, engine);
  }

  const models::SystemSpec s = models::load_system(reg.path("systems", n.system), reg);
  if (s.stages.empty() || s.stages.front().devices.empty())
    throw models::InputError(fmt::format("{}: placement.target: expected a target device, got none", s.source_file));
  const int target = s.stages.front().devices.front();
  const auto& target_dev = s.devices[std::size_t(target)];
  if (target_dev.hardware.name != target_hw)
    throw models::InputError(fmt::format("--system {}: its target device '{}' is {}, not --hw {}", s.name,
                                         target_dev.name, target_dev.hardware.name, target_hw));
  int draft = s.draft_device;
  if (!n.draft_device.empty()) {
    draft = s.device_index(n.draft_device);
    if (draft < 0) {
      std::string names;
      for (const auto& d : s.devices) names += (names.empty() ? "" : ", ") + d.name;
      throw models::InputError(fmt::format("--draft-device: system '{}' has no device '{}' (devices: {})", s.name,
                                           n.draft_device, names));
    }
  } else if (draft < 0) {
    throw models::InputError(
        fmt::format("{}: placement.draft: the system places no draft; name a device with --draft-device", s.source_file));
  }
  if (draft == target) return DraftPlacement::same_device();
  // The draft's passes and messages through the system's deployment (a relay through a host or
  // switch included).
  return DraftPlacement::on_system_device(std::make_shared<const sim::SystemCosts>(s, engine), draft, target);
}

}  // namespace search
