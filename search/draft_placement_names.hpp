#pragma once
// A draft placement from names (search/draft_placement.hpp): where the draft runs relative to the
// target, as a scenario's parameters, a command's flags or a sweep's axes name it.
//   (none)                          the target's device (default)
//   draft-hw H [draft-link L]       a device of hardware H joined to the target's by link L
//                                   (default pcie4-x16, a host PCIe 4.0 x16 slot)
//   system S [draft-device D]       device D of system S (default: its placement.draft), over
//                                   the system's link to its target device, whose hardware must
//                                   be the target's
#include <string>

#include "models/config_registry.hpp"
#include "search/draft_placement.hpp"

namespace search {

struct DraftPlacementNames {
  std::string draft_hw, draft_link, system, draft_device;
  bool empty() const { return draft_hw.empty() && draft_link.empty() && system.empty() && draft_device.empty(); }
};

// The link draft-hw uses unless draft-link names another: a host PCIe 4.0 x16 slot, where a
// CPU or an accelerator card meets a GPU in paper 003's testbed.
inline constexpr const char* kDefaultDraftLink = "pcie4-x16";

// The placement those names select for a target running on `target_hw`, the draft timed by
// engine `engine` (roofline, sim, sim-clocked) with its device's software stack. InputError (one
// line, naming the option and value) for a combination that does not fit, an unknown name, a
// device the system lacks, or a system whose target is not on `target_hw`.
DraftPlacement resolve_draft_placement(const models::ConfigRegistry& reg, const DraftPlacementNames& names,
                                       const std::string& engine, const std::string& target_hw);

}  // namespace search
