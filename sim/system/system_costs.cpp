#include "sim/system/system_costs.hpp"

#include <fmt/format.h>

#include "models/config_error.hpp"
#include "models/engine_registry.hpp"
#include "sim/system/routes.hpp"

namespace sim {

SystemCosts::SystemCosts(models::SystemSpec system, std::string engine)
    : system_(std::move(system)), engine_(std::move(engine)), engines_(system_.devices.size()) {}

const models::LatencyEngine& SystemCosts::engine(int device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return engine_unlocked(device);
}

const models::LatencyEngine& SystemCosts::engine_unlocked(int device) const {
  if (device < 0 || device >= int(system_.devices.size()))
    throw models::InputError(fmt::format("{}: no device #{} (the system has {})", system_.name, device,
                                         system_.devices.size()));
  auto& e = engines_[std::size_t(device)];
  if (!e) e = models::make_engine(engine_, system_.devices[std::size_t(device)].hardware);
  return *e;
}

int SystemCosts::add_model(const models::ModelSpec& model) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t i = 0; i < models_.size(); ++i)
    if (models_[i]->name == model.name && models_[i]->source_file == model.source_file) return int(i);
  models_.push_back(std::make_unique<const models::ModelSpec>(model));
  return int(models_.size() - 1);
}

double SystemCosts::forward_s(int device, int model_id, const ForwardShape& shape) const {
  const Key key{device, model_id, shape.tokens, shape.context, shape.batch, int(shape.mask), shape.lm_head};
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  models::StepShape s;
  s.tokens = shape.tokens;
  s.context = shape.context;
  s.batch = shape.batch;
  s.mask = shape.mask;
  s.include_lm_head = shape.lm_head;
  const double t = engine_unlocked(device).step(models::build_verify_graph(model(model_id), s)).seconds;
  ++evaluations_;
  memo_.emplace(key, t);
  return t;
}

double SystemCosts::transfer_s(int a, int b, double bytes) const { return route_transfer_s(system_, a, b, bytes); }

long long SystemCosts::evaluations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return evaluations_;
}

}  // namespace sim
