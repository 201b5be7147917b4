#include "experiments/cli/draft_placement_options.hpp"

#include <fmt/format.h>

#include <memory>

#include "models/config_error.hpp"
#include "models/engine_registry.hpp"
#include "models/system_spec.hpp"

namespace experiments {

void add_draft_placement_options(CLI::App& sub, DraftPlacementNames& n) {
  sub.add_option("--draft-hw", n.draft_hw,
                 "Run the draft on a device of this hardware (e.g. xeon-16c), joined to the target's by --draft-link; "
                 "T_d = its passes there + the link transfers (default: the target's device)");
  sub.add_option("--draft-link", n.draft_link,
                 fmt::format("With --draft-hw: the link between the two devices (default {})", kDefaultDraftLink));
  sub.add_option("--system", n.system,
                 "Take the draft device and its link from this system (configs/systems); its target device must be "
                 "--hw");
  sub.add_option("--draft-device", n.draft_device,
                 "With --system: the device that runs the draft (default: the system's placement.draft)");
}

}  // namespace experiments
