#include "search/scenarios/specpipe/stage_timer.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/config_error.hpp"
#include "models/operator_graph.hpp"
#include "sim/system/collective_choice.hpp"

namespace search::specpipe {

StageTimer::StageTimer(const TimingSetup& s) : s_(s), costs_(s.system, s.engine) {
  // The token tree is as deep as the pipeline and every slot passes every stage: time and memory
  // grow with the square of the stage count (plan on 64 stages: 12 s and 1 GB; 128: 41 s and 3.5 GB).
  if (s.system.stages.size() > std::size_t(kMaxSpecPipeStages))
    throw models::InputError(fmt::format("{}: placement.target: {} pipeline stages, more than the {} the SpecPipe "
                                         "scenario times (its work grows with the square of the stage count)",
                                         s.system.source_file, s.system.stages.size(), kMaxSpecPipeStages));
  for (std::size_t k = 0; k < s.system.stages.size(); ++k)
    if (s.system.stages[k].devices.size() != 1)
      throw models::InputError(fmt::format("{}: placement.target stage {}: tensor-parallel stages are not modelled by "
                                           "the SpecPipe scenario (one device per stage)",
                                           s.system.source_file, k));
  if (s.draft) draft_model_ = costs_.add_model(*s.draft);
  target_model_ = costs_.add_model(s.target);
  if (s.head) head_ = costs_.add_head(*s.head, s.target);
}

double StageTimer::stage_s(int stage, int tokens, int batch, long long context) const {
  if (tokens <= 0) return 0.0;
  batch = std::max(1, std::min(batch, tokens));
  const auto& st = s_.system.stages[std::size_t(stage)];
  const bool last = stage + 1 == stages();
  const int layers = st.last_layer - st.first_layer + 1;
  // The step is the same for every token total with the same per-sequence count: a ragged
  // SpecPipe-DB batch's totals vary from step to step, its per-sequence counts far less.
  const int per_sequence = (tokens + batch - 1) / batch;
  models::StepShape sh;
  sh.tokens = per_sequence;
  sh.batch = batch;
  sh.context = context >= 0 ? context : s_.context;
  sh.mask = sh.tokens > 1 ? models::MaskKind::tree : models::MaskKind::causal;
  sh.include_lm_head = last && s_.system.devices[std::size_t(device_of(stage))].hardware.verify_includes_lm_head;
  return costs_.stage_s(device_of(stage), target_model_, sh, layers, last);
}

double StageTimer::ragged_factor(int stage, int batch) const {
  if (batch <= 1) return 1.0;
  return 1.0 + s_.system.devices[std::size_t(device_of(stage))].hardware.stack.ragged_batch_overhead_ratio;
}

const models::HostSpec& StageTimer::host_of(int device) const {
  return s_.system.devices[std::size_t(device)].hardware.host;
}

const models::StagedDeviceCopy* StageTimer::staged_copy(int a, int b) const {
  const auto& copy = s_.system.devices[std::size_t(a)].hardware.stack.staged_device_copy;
  // NCCL's choice of transport says whether the pair has peer access (SHM: same host, none).
  if (!copy || a == b || sim::nccl_transport(s_.system, a, b) != sim::Transport::shm) return nullptr;
  return &*copy;
}

double StageTimer::draft_s(int tokens, int batch, long long context) const {
  if (draft_model_ < 0 || tokens <= 0) return 0.0;
  // A whole forward of the draft model with its LM head: the cost layer's memoised forward.
  sim::ForwardShape shape;
  shape.tokens = tokens;
  shape.batch = batch;
  shape.context = context >= 0 ? context : s_.context;
  shape.mask = tokens > 1 ? models::MaskKind::tree : models::MaskKind::causal;
  shape.include_lm_head = true;
  return costs_.forward_s(s_.system.draft_device, draft_model_, shape);
}

double StageTimer::head_s(int width, int batch) const {
  if (head_ < 0 || width <= 0) return 0.0;
  return costs_.head_pass_s(device_of(stages() - 1), head_, width, batch, s_.context);
}

}  // namespace search::specpipe
