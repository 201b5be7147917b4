#include "search/draft_placement.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/config_error.hpp"

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
