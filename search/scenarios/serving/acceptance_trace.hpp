#pragma once
// Per-request acceptance traces replayed by `serve --acceptance-trace FILE.jsonl`: one JSON object
// a line in SpecDecode-Bench's format (github.com/SpecDecode-Bench/simulator, request.py), the
// traces its study measured on vLLM (arXiv 2601.11580): a request's `prompt_token_ids`, and per
// drafting method (`acc_eagle`, `acc_ngram`, or one `acc` for both) an `acc_len` list, entry p the
// tokens a speculative step starting at output position p + 1 would yield (accepted + bonus, with
// an unbounded draft); the request generates as many tokens as that list is long. The project ships
// none of these files (the repository states no licence): a user points at their own copy.
#include <string>
#include <vector>

namespace search::serving {

struct ReplayedRequest {
  long long prompt_tokens = 1;
  std::vector<int> yields;  // per output position (generated tokens - 1), >= 1; its size: the output
};

// The records of `path` for `method` ("eagle3": acc_eagle; "ngram": acc_ngram; either falls back
// to `acc`), in file order. InputError naming the file, line and key for a line that is not JSON,
// a record without the method's list, an empty list or a yield below 1; for a file without records.
std::vector<ReplayedRequest> read_acceptance_trace(const std::string& path, const std::string& method);

}  // namespace search::serving
