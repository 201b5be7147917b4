#include "experiments/reproductions/reproduction.hpp"

namespace experiments {

std::vector<Reproduction>& reproduction_table() {
  static std::vector<Reproduction> table;
  return table;
}

RegisterReproduction::RegisterReproduction(
    std::string name, std::string description,
    std::function<ReproductionResult(const ReproduceContext&)> run, int order) {
  reproduction_table().push_back({std::move(name), std::move(description), std::move(run), order});
}

}  // namespace experiments
