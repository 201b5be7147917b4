#include "search/acceptance/process_aat.hpp"

#include "search/acceptance/aat_fit.hpp"

namespace search {

std::vector<double> process_aat(const AcceptanceProcess& process, bool chain, int x_max) {
  std::vector<double> aat;
  const std::vector<RankPath> order = chain ? std::vector<RankPath>{} : process.best_first_nodes(x_max - 1);
  std::vector<RankPath> tree;
  for (int x = 1; x <= x_max; ++x) {
    if (chain) {
      aat.push_back(process.chain_tpc(x - 1));
      continue;
    }
    if (x > 1 && std::size_t(x - 2) < order.size()) tree.push_back(order[std::size_t(x - 2)]);
    aat.push_back(process.tree_tpc(tree));
  }
  return aat;
}

AatSource exact_aat_source(const std::vector<double>& aat_at_x, const std::string& what) {
  AatSource s;
  std::vector<AatPoint> pts;
  for (std::size_t i = 0; i < aat_at_x.size(); ++i) {
    const int x = int(i) + 1;
    s.measured[x] = aat_at_x[i];
    pts.push_back({double(x), aat_at_x[i]});
  }
  s.fit = fit_aat(pts, what);
  return s;
}

}  // namespace search
