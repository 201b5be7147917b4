#include "experiments/reproductions/reproduction.hpp"

#include "models/registry.hpp"

namespace experiments {

namespace {

models::Registry<std::string, Reproduction>& reproductions() {
  static models::Registry<std::string, Reproduction> r("reproductions");
  return r;
}

}  // namespace

std::vector<Reproduction> reproduction_table() { return reproductions().values(); }

std::vector<std::size_t> start_order(const std::vector<const Reproduction*>& chosen) {
  std::vector<std::size_t> order;
  for (bool long_running : {true, false})
    for (std::size_t k = 0; k < chosen.size(); ++k)
      if (chosen[k]->long_running == long_running) order.push_back(k);
  return order;
}

RegisterReproduction::RegisterReproduction(
    std::string name, std::string description,
    std::function<ReproductionResult(const ReproduceContext&)> run, int order, bool long_running) {
  const std::string key = name;
  reproductions().add(key, {std::move(name), std::move(description), std::move(run), order, long_running});
}

}  // namespace experiments
