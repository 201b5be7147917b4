#include "search/draft_placement.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/config_error.hpp"
#include "models/system_route.hpp"
#include "sim/system/routes.hpp"

namespace search {

double draft_to_target_bytes(int draft_tokens, int draft_vocab) {
  return double(draft_tokens) * (kTokenIdBytes + double(draft_vocab) * kProbabilityBytes);
}

double verdict_bytes(int appended_tokens) { return double(appended_tokens + 1) * kTokenIdBytes; }

DraftPlacement DraftPlacement::same_device() { return DraftPlacement{}; }

DraftPlacement DraftPlacement::on_device(std::shared_ptr<const models::LatencyEngine> draft_engine, std::string device,
                                         models::LinkSpec to_target, models::LinkSpec to_draft) {
  if (!draft_engine) throw models::InputError(fmt::format("draft placement on '{}': no engine for the device", device));
  DraftPlacement p;
  p.draft_engine_ = std::move(draft_engine);
  p.device_ = std::move(device);
  p.to_target_ = std::move(to_target);
  p.to_draft_ = std::move(to_draft);
  return p;
}

DraftPlacement DraftPlacement::on_system_device(std::shared_ptr<const models::LatencyEngine> draft_engine,
                                                std::shared_ptr<const models::SystemSpec> system, int draft, int target) {
  if (!system) throw models::InputError("draft placement: no system");
  const std::string device = system->devices.at(std::size_t(draft)).name;
  if (!draft_engine) throw models::InputError(fmt::format("draft placement on '{}': no engine for the device", device));
  const std::string what = fmt::format("the draft's messages between '{}' and the target's '{}'", device,
                                       system->devices.at(std::size_t(target)).name);
  models::route(*system, draft, target, what);  // InputError naming the system when no path joins them
  models::route(*system, target, draft, what);
  DraftPlacement p;
  p.draft_engine_ = std::move(draft_engine);
  p.device_ = device;
  p.system_ = std::move(system);
  p.draft_index_ = draft;
  p.target_index_ = target;
  return p;
}

std::string DraftPlacement::link() const {
  if (!draft_engine_) return "same";
  if (!system_) return to_target_->name;
  const auto path = models::route(*system_, draft_index_, target_index_);
  std::string names;
  for (std::size_t i = 1; i < path.size(); ++i)
    names += (names.empty() ? "" : "+") + system_->link_between(path[i - 1], path[i])->spec.name;
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
  if (!draft_engine_ || !w.algorithm || x <= 1) return 0;
  const double batch = double(w.batch);
  const double to_target = batch * draft_to_target_bytes(x - 1, draft_vocabulary(w));
  double back = batch * verdict_bytes(x);
  // Draft heads (not standalone models) extend the target's hidden states: the features of the
  // verified tokens go back with the verdict (EAGLE-3 fuses several layers' features).
  if (!w.algorithm->draft.model) {
    const int layers = std::max(1, w.algorithm->draft.fused_feature_layers);
    back += batch * double(x) * double(layers) * double(w.target.hidden_size) * w.target.activation_bytes();
  }
  if (system_)
    return sim::route_transfer_s(*system_, draft_index_, target_index_, to_target, "the draft's tokens") +
           sim::route_transfer_s(*system_, target_index_, draft_index_, back, "the verdict");
  return to_target_->transfer_s(to_target) + to_draft_->transfer_s(back);
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
