#include "search/draft_placement.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/config_error.hpp"
#include "models/system_route.hpp"

namespace search {

double draft_to_target_bytes(int draft_tokens, int draft_vocab) {
  return double(draft_tokens) * (kTokenIdBytes + double(draft_vocab) * kProbabilityBytes);
}

double verdict_bytes(int appended_tokens) { return double(appended_tokens + 1) * kTokenIdBytes; }

DraftPlacement DraftPlacement::same_device() { return DraftPlacement{}; }

DraftPlacement DraftPlacement::on_device(const models::HardwareSpec& target, const models::HardwareSpec& draft,
                                         const models::LinkSpec& link, const std::string& engine) {
  const auto system = models::target_and_draft_system(target, draft, link);
  return on_system_device(std::make_shared<const sim::SystemCosts>(system, engine), system.draft_device, 0);
}

DraftPlacement DraftPlacement::on_system_device(std::shared_ptr<const sim::SystemCosts> deployment, int draft,
                                                int target) {
  if (!deployment) throw models::InputError("draft placement: no deployment");
  const models::SystemSpec& system = deployment->system();
  const std::string device = system.devices.at(std::size_t(draft)).name;
  const std::string what = fmt::format("the draft's messages between '{}' and the target's '{}'", device,
                                       system.devices.at(std::size_t(target)).name);
  models::route(system, draft, target, what);  // InputError naming the system when no path joins them
  models::route(system, target, draft, what);
  DraftPlacement p;
  p.deployment_ = std::move(deployment);
  p.device_ = device;
  p.draft_index_ = draft;
  p.target_index_ = target;
  return p;
}

std::string DraftPlacement::link() const {
  if (!deployment_) return "same";
  const models::SystemSpec& system = deployment_->system();
  const auto path = models::route(system, draft_index_, target_index_);
  std::string names;
  for (std::size_t i = 1; i < path.size(); ++i)
    names += (names.empty() ? "" : "+") + system.link_between(path[i - 1], path[i])->spec.name;
  return names;
}

int draft_vocabulary(const models::Workload& w) {
  if (!w.algorithm) return 0;
  const auto& d = w.algorithm->draft;
  if (d.model) return d.model->vocab_size;
  if (d.draft_vocab_size > 0) return d.draft_vocab_size;
  return w.target.vocab_size;
}

double DraftPlacement::link_s(const models::Workload& w, int x) const {
  if (!deployment_ || !w.algorithm || x <= 1) return 0;
  const double batch = double(w.batch);
  const double to_target = batch * draft_to_target_bytes(x - 1, draft_vocabulary(w));
  double back = batch * verdict_bytes(x);
  // Draft heads (not standalone models) extend the target's hidden states: the features of the
  // verified tokens go back with the verdict (EAGLE-3 fuses several layers' features).
  if (!w.algorithm->draft.model) {
    const int layers = std::max(1, w.algorithm->draft.fused_feature_layers);
    back += batch * double(x) * double(layers) * double(w.target.hidden_size) * w.target.activation_bytes();
  }
  return deployment_->transfer_s(draft_index_, target_index_, to_target) +
         deployment_->transfer_s(target_index_, draft_index_, back);
}

double DraftPlacement::t_draft(const models::LatencyEngine& target_engine, const models::Workload& w, int x,
                               long long context) const {
  return models::t_draft(draft_engine(target_engine), w, x, context) + link_s(w, x);
}

double DraftPlacement::t_draft_passes(const models::LatencyEngine& target_engine, const models::Workload& w,
                                      const std::vector<int>& pass_widths, int x, long long context) const {
  return models::t_draft_passes(draft_engine(target_engine), w, pass_widths, context) + link_s(w, x);
}

}  // namespace search
