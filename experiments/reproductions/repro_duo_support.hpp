#pragma once
// Shared by the paper-003 reproductions (repro_duo_*.cpp): the paper's testbed as a DuoDecoding
// request, the config files every one of them lists, the paper's SpS baseline with its draft on
// the GPU, and the paper's per-task columns shown relative to one of its rows. One place for
// each, so the reproductions cannot drift apart on what "the paper's testbed" means.
#include <string>
#include <vector>

#include "experiments/output/table.hpp"
#include "experiments/reproductions/paper003_reference.hpp"
#include "experiments/reproductions/reproduction.hpp"
#include "search/acceptance/acceptance_process.hpp"
#include "search/scenarios/duodecoding/duo_scenario.hpp"

namespace experiments::paper003 {

// The paper's SpS baseline runs in Transformers, so its draft (FP16) shares the GPU.
inline constexpr const char* kSpsGpuDraft = "llama-68m";

// Paper 003's testbed (A800 + Xeon, Llama-2-7B / Llama-68M Q5_K_M) on ctx's engine: the names
// it was made from (the SpS-on-GPU variant starts from them), the request, and the acceptance the
// reproductions draw from (table4_process).
struct Testbed {
  search::duodecoding::DuoNames names;
  search::duodecoding::DuoRequest request;
  search::AcceptanceProcess process;

  // The acceptance stream at a per-token `alpha`: the process where alpha is its mean (the
  // tables' first group), otherwise independent and calibrated at alpha.
  search::duodecoding::PositionStream stream_at(double alpha, int top_k, std::uint64_t seed) const;
};
// `tokens` > 0 replaces the generation length of the testbed's names.
Testbed testbed(const ReproduceContext& ctx, long long tokens = 0);

// The config files a reproduction on `tb` reads: system, target, draft, each of `references`
// (configs/reference/<name>.yaml) in order, then the acceptance process band.
std::vector<std::string> testbed_inputs(const ReproduceContext& ctx, const Testbed& tb,
                                        const std::vector<std::string>& references);

// A result on `tb` titled "<what> (<engine> engine; A800 + Xeon, Llama-2-7B / Llama-68M Q5_K_M[,
// <detail>])", with testbed_inputs(ctx, tb, references) as its inputs.
ReproductionResult testbed_result(const ReproduceContext& ctx, const Testbed& tb, const std::string& what,
                                  const std::vector<std::string>& references, const std::string& detail = "");

// The same testbed with SpS's draft (kSpsGpuDraft) on the target's GPU, drawing from the
// acceptance stream of `tb`'s request.
search::duodecoding::DuoRequest sps_gpu_request(const ReproduceContext& ctx, const Testbed& tb);

// The acceptance the reproductions draw from: the central member of the process band fitted to
// paper 003 Table 4 (configs/acceptance/processes/duodecoding-paper003.yaml, written by
// `specdse fit --statistics configs/acceptance/statistics/paper003-table4.yaml`).
search::AcceptanceProcess table4_process(const ReproduceContext& ctx);

// Appends the paper's four task columns (Paper003Tasks order) of `paper`, each relative to the
// same task of `reference`: the tables show the paper's shape, not its absolute tokens/s.
void append_task_ratios(std::vector<Cell>& row, const Paper003Tasks& paper, const Paper003Tasks& reference);

}  // namespace experiments::paper003
