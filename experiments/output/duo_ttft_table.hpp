#pragma once
// The TTFT table of DuoDecoding (paper 003 §4.3): AD, SpS and DuoDecoding's sequential and
// parallel layouts, each relative to AD and to SpS. `specdse duo --show ttft` prints it and the
// duo-fig4 reproduction writes it as duo_ttft.csv; one builder keeps the two the same.
#include "experiments/output/table.hpp"
#include "search/scenarios/duodecoding/duo_timeline.hpp"

namespace experiments {

Table duo_ttft_table(const search::duodecoding::TtftResult& ttft);

}  // namespace experiments
