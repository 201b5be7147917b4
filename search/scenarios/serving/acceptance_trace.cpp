#include "search/scenarios/serving/acceptance_trace.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "models/config_error.hpp"
#include "models/input_file.hpp"

namespace search::serving {

std::vector<ReplayedRequest> read_acceptance_trace(const std::string& path, const std::string& method) {
  if (method != "eagle3" && method != "ngram")
    throw models::InputError(fmt::format("--acceptance-trace: {} records EAGLE-3 and n-gram yields; --method {} has none",
                                         path, method));
  const std::string key = method == "eagle3" ? "acc_eagle" : "acc_ngram";
  std::ifstream in = models::open_input_file(path, "acceptance trace");
  std::vector<ReplayedRequest> out;
  std::string line;
  for (long long number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto where = [&](const std::string& what) { return fmt::format("{}: line {}: {}", path, number, what); };
    nlohmann::json record;
    try {
      record = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      throw models::InputError(where(fmt::format("not a JSON object ({})", e.what())));
    }
    if (!record.is_object()) throw models::InputError(where("not a JSON object"));
    const auto prompt = record.find("prompt_token_ids");
    if (prompt == record.end() || !prompt->is_array() || prompt->empty())
      throw models::InputError(where("prompt_token_ids: expected a non-empty list of token ids"));
    const nlohmann::json* acc = nullptr;
    for (const std::string& k : {key, std::string("acc")})
      if (auto it = record.find(k); it != record.end()) {
        acc = &*it;
        break;
      }
    if (!acc || !acc->is_object() || !acc->contains("acc_len") || !(*acc)["acc_len"].is_array())
      throw models::InputError(where(fmt::format("{}.acc_len (or acc.acc_len): expected the per-position yields", key)));
    ReplayedRequest r;
    r.prompt_tokens = (long long)prompt->size();
    for (const auto& y : (*acc)["acc_len"]) {
      if (!y.is_number_integer() || y.get<long long>() < 1)
        throw models::InputError(where(fmt::format("{}.acc_len: expected integers >= 1, got {}", key, y.dump())));
      r.yields.push_back(int(std::min<long long>(y.get<long long>(), 1 << 20)));
    }
    if (r.yields.empty()) throw models::InputError(where(fmt::format("{}.acc_len: empty (the request generates nothing)", key)));
    out.push_back(std::move(r));
  }
  if (out.empty()) throw models::InputError(fmt::format("{}: the acceptance trace holds no record", path));
  return out;
}

}  // namespace search::serving
