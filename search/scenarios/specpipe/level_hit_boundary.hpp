#pragma once
// The decision boundary of SpecPipe against the other methods, in the level hit: where the data
// leave the draft's acceptance open, the comparison is stated as "SpecPipe is faster than M from a
// level hit of h" rather than as one order. Scans the draft's quality: the acceptance process the
// rows ran (the band's central fit; independent calibrated acceptance 0.9 for the other sources)
// with both states' top-1 acceptance scaled from 0.35 to 1.05 times its own, its correlation kept.
// At each point SpecPipe's best configuration and SpecInfer's static tree (which drafts with the
// same model) are timed again; the other methods (PP, the stacks, EAGLE-3 with its own head) keep
// their times. Each crossing of SpecPipe's TBT with a method's is interpolated linearly in
// SpecPipe's simulated level hit.
#include <string>
#include <vector>

#include "search/scenarios/specpipe/specpipe_scenario.hpp"

namespace search::specpipe {

// One sentence for the footer. `best` is SpecPipe's best configuration at batch 1; `fixed` the
// methods whose times do not depend on the draft's acceptance; `with_static_tree` also reruns
// SpecInfer's tree.
std::string level_hit_boundary(const TimingSetup& setup, const StageTimer& timer, const SpecPipeParams& best,
                               const std::vector<ScenarioResult>& fixed, bool with_static_tree, int max_k,
                               const AcceptanceProcess& base);

}  // namespace search::specpipe
