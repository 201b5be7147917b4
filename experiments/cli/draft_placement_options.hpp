#pragma once
// The draft placement options shared by optimize, window, draft-select (and the sweep's
// draft_hw / draft_link / system / draft_device axes): where the draft runs relative to the
// target (search/draft_placement.hpp), from names.
//   (none)                          the target's device (default; outputs as before)
//   --draft-hw H [--draft-link L]   a device of hardware H joined to the target's by link L
//                                   (default pcie4-x16, a host PCIe 4.0 x16 slot)
//   --system S [--draft-device D]   device D of system S (default: its placement.draft), over
//                                   the system's link to its target device, whose hardware must
//                                   be the command's --hw
#include <CLI/CLI.hpp>

#include <string>

#include "models/config_registry.hpp"
#include "search/draft_placement_names.hpp"

namespace experiments {

using search::DraftPlacementNames;
using search::kDefaultDraftLink;
using search::resolve_draft_placement;

void add_draft_placement_options(CLI::App& sub, DraftPlacementNames& names);

}  // namespace experiments
