#pragma once
// Where the draft of a chain or tree SD runs relative to the target (drafts on any
// device): on the target's own device (the default, and every result before placements
// existed), or on another device (a second GPU, the host CPU, an FPGA) joined to the target's by
// a link. Decoding stays sequential (draft, then verify): the draft's passes run on the draft
// device's engine, its tokens and their distributions cross the link to the target, the target
// verifies, the verdict (and, for drafts that read the target's hidden states, those states)
// crosses back. T_d as the optimisers see it is the draft passes plus both transfers, so
// P_eff = AAT / (T_v + T_d) charges the link on the critical path. Scenarios that overlap draft
// and target (DuoDecoding) lay the same messages on the system timeline instead.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/hardware_spec.hpp"
#include "models/latency_engine.hpp"
#include "models/link_spec.hpp"
#include "models/system_spec.hpp"
#include "sim/system/system_costs.hpp"

namespace search {

// Bytes of the two messages of one draft-verify iteration.
// Token ids travel as int32 (llama.cpp's llama_token, PyTorch int32 ids).
inline constexpr double kTokenIdBytes = 4.0;
// Speculative sampling needs the draft's distribution q over its whole vocabulary at every
// drafted position (Leviathan et al. 2023, Algorithm 1: resample from max(0, p - q)); FP32
// probabilities (llama.cpp's and PyTorch's logits are float).
inline constexpr double kProbabilityBytes = 4.0;
// Draft tokens with their distributions, draft device -> target device.
double draft_to_target_bytes(int draft_tokens, int draft_vocab);
// The verdict (appended token ids and their count), target device -> draft device.
double verdict_bytes(int appended_tokens);

class DraftPlacement {
 public:
  // The draft on the target's engine; nothing crosses a link (today's behaviour).
  static DraftPlacement same_device();
  // The draft on `draft` hardware joined to the target's `target` hardware by `link` both ways
  // (models::target_and_draft_system), timed by `engine`: on_system_device over that system.
  static DraftPlacement on_device(const models::HardwareSpec& target, const models::HardwareSpec& draft,
                                  const models::LinkSpec& link, const std::string& engine);
  // The draft on device `draft` of the deployment's system, the target on its device `target`:
  // the draft's passes are timed by the deployment's engine for that device (its memo), and both
  // messages cost the deployment's transfer rule (sim::SystemCosts::transfer_s: the fewest-hop
  // route, store and forward at each relay, as every scenario on the system moves data), so a
  // draft on a device joined to the target's only through a host or a switch is placed, not
  // refused. InputError naming the system when no route joins them.
  static DraftPlacement on_system_device(std::shared_ptr<const sim::SystemCosts> deployment, int draft, int target);

  bool is_same_device() const { return !deployment_; }
  // "same" or the draft device's name.
  std::string device() const { return deployment_ ? device_ : "same"; }
  // "same", the link's name, or a route's links joined by '+' (draft to target).
  std::string link() const;

  // The engine that times the draft's passes: the draft device's, or the target's.
  const models::LatencyEngine& draft_engine(const models::LatencyEngine& target_engine) const {
    return deployment_ ? deployment_->engine(draft_index_) : target_engine;
  }
  // Both transfers of an iteration verifying x tokens (0 on one device): x - 1 draft tokens per
  // sequence with their distributions, then x + 1 token ids and, for drafts that read the
  // target's hidden states (LongSpec, EAGLE heads), the features of the x verified tokens (an
  // upper bound: only the accepted ones are needed, and they are known only after verification).
  double link_s(const models::Workload& w, int x) const;
  // T_d at verification length x: the draft's passes (models::t_draft) on the draft engine plus
  // link_s. Same device: exactly models::t_draft on the target's engine.
  double t_draft(const models::LatencyEngine& target_engine, const models::Workload& w, int x,
                 long long context) const;
  // The same for explicit per-pass widths (measured tree shapes) at verification length x.
  double t_draft_passes(const models::LatencyEngine& target_engine, const models::Workload& w,
                        const std::vector<int>& pass_widths, int x, long long context) const;

 private:
  std::shared_ptr<const sim::SystemCosts> deployment_;  // null: the draft on the target's device
  std::string device_;
  int draft_index_ = -1, target_index_ = -1;
};

// Vocabulary over which the draft's distributions are sent: a standalone draft model's, an
// EAGLE-3 head's reduced draft vocabulary when it has one, else the target's.
int draft_vocabulary(const models::Workload& w);

}  // namespace search
