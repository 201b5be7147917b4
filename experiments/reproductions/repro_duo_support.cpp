#include "experiments/reproductions/repro_duo_support.hpp"

#include <fmt/format.h>

#include "search/acceptance/acceptance_statistics.hpp"

#include "models/reference_data.hpp"
#include "models/system_spec.hpp"

namespace experiments::paper003 {

namespace duo = search::duodecoding;

namespace {

// The band file table4_process reads.
std::string table4_process_path(const ReproduceContext& ctx) {
  return ctx.registry->dir() + "/acceptance/processes/duodecoding-paper003.yaml";
}

}  // namespace

Testbed testbed(const ReproduceContext& ctx, long long tokens) {
  duo::DuoNames names = duo::paper003_testbed(ctx.engine);
  if (tokens > 0) names.tokens = tokens;
  // The reproductions' "SpS" drafts on DuoDecoding's own CPU (their tables say so; the paper's
  // GPU-drafted baseline is the separate sps_gpu_request).
  // (The system's placement.draft, read from its file: no engine work.)
  const models::SystemSpec system = models::load_system(ctx.registry->path("systems", names.system), *ctx.registry);
  names.sps_draft_device = system.devices.at(std::size_t(system.draft_device)).name;
  duo::DuoRequest request = duo::make_duo_request(*ctx.registry, names);
  return Testbed{std::move(names), std::move(request), table4_process(ctx)};
}

duo::PositionStream Testbed::stream_at(double alpha, int top_k, std::uint64_t seed) const {
  return alpha == process.mean_acceptance() ? duo::PositionStream::from_process(process, top_k, seed)
                                            : duo::PositionStream::calibrated(alpha, top_k, seed);
}

std::vector<std::string> testbed_inputs(const ReproduceContext& ctx, const Testbed& tb,
                                        const std::vector<std::string>& references) {
  // The system with its hardware, stacks and links; the models.
  std::vector<std::string> inputs = tb.request.placement.system.config_files();
  inputs.push_back(ctx.registry->path("models", tb.names.model));
  inputs.push_back(ctx.registry->path("models", "llama-68m"));  // the draft (its Q5_K_M format applied on top)
  for (const auto& name : references) inputs.push_back(models::reference_path(name, ctx.registry->dir()));
  inputs.push_back(table4_process_path(ctx));
  return inputs;
}

search::AcceptanceProcess table4_process(const ReproduceContext& ctx) {
  const search::ProcessBand band = search::read_process_band(table4_process_path(ctx));
  return search::AcceptanceProcess(band.central().params, band.name);
}

ReproductionResult testbed_result(const ReproduceContext& ctx, const Testbed& tb, const std::string& what,
                                  const std::vector<std::string>& references, const std::string& detail) {
  ReproductionResult res;
  res.title = fmt::format("{} ({} engine; A800 + Xeon, Llama-2-7B / Llama-68M Q5_K_M{})", what, ctx.engine,
                          detail.empty() ? "" : ", " + detail);
  res.inputs = testbed_inputs(ctx, tb, references);
  return res;
}

duo::DuoRequest sps_gpu_request(const ReproduceContext& ctx, const Testbed& tb) {
  const duo::DuoRequest& q = tb.request;
  duo::DuoNames ng = tb.names;
  ng.sps_draft_device = q.placement.system.devices[std::size_t(q.placement.target_device)].name;
  ng.sps_draft = kSpsGpuDraft;
  duo::DuoRequest qg = duo::make_duo_request(*ctx.registry, ng);
  qg.stream = q.stream;
  return qg;
}

void append_task_ratios(std::vector<Cell>& row, const Paper003Tasks& paper, const Paper003Tasks& reference) {
  for (int task = 0; task < 4; ++task) row.push_back(num(paper[task] / reference[task]));
}

}  // namespace experiments::paper003
