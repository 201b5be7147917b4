#include "search/acceptance/paper004_tables.hpp"

#include <set>

#include "models/reference_data.hpp"

namespace search {
namespace {

// A model's row listed twice would make the lookup take one silently: an error naming the key.
void require_once(std::set<std::string>& seen, const models::YamlReader& row, const std::string& model) {
  if (!seen.insert(model).second) row.fail("model", "each model once", "'" + model + "' again");
}

}  // namespace

Paper004Table1 load_paper004_table1(const std::string& config_dir) {
  const models::YamlReader r = models::open_reference("paper004_table1", config_dir);
  r.allow_only({"own_eagle", "eagle3"});
  Paper004Table1 t;
  std::set<std::string> seen;
  for (const auto& row : r.map_list("own_eagle")) {
    row.allow_only({"model", "chain3_tpc"});
    Paper004Table1::OwnEagle e;
    e.model = row.string("model");
    require_once(seen, row, e.model);
    e.chain3_tpc = row.positive("chain3_tpc");
    t.own_eagle.push_back(e);
  }
  seen.clear();
  for (const auto& row : r.map_list("eagle3")) {
    row.allow_only({"model", "label", "chain3_tpc", "chain5_tpc", "chain7_tpc"});
    Paper004Table1::Eagle3 e;
    e.model = row.string("model");
    require_once(seen, row, e.model);
    e.label = row.string("label");
    for (int length : {3, 5, 7}) e.chain.push_back({length, row.positive("chain" + std::to_string(length) + "_tpc")});
    t.eagle3.push_back(e);
  }
  return t;
}

std::vector<Paper004Table2Row> load_paper004_table2(const std::string& config_dir) {
  const models::YamlReader r = models::open_reference("paper004_table2", config_dir);
  r.allow_only({"rows"});
  std::vector<Paper004Table2Row> rows;
  std::set<std::string> seen;
  for (const auto& row : r.map_list("rows")) {
    row.allow_only({"model", "bf16_tpc", "fp8_tpc", "int4_tpc", "fp8_draft_latency_relative",
                    "int4_draft_latency_relative"});
    Paper004Table2Row e;
    e.model = row.string("model");
    require_once(seen, row, e.model);
    e.bf16_tpc = row.positive("bf16_tpc");
    e.fp8_tpc = row.positive("fp8_tpc");
    e.int4_tpc = row.positive("int4_tpc");
    e.fp8_draft_latency_relative = row.positive("fp8_draft_latency_relative");
    e.int4_draft_latency_relative = row.positive("int4_draft_latency_relative");
    rows.push_back(e);
  }
  return rows;
}

}  // namespace search
