#pragma once
// The scheduler of a simulated serving instance (`specdse serve`): given a virtual engine whose
// previous step has ended, it decides what the next step runs (which waiting requests it admits,
// what it prefills, whom it preempts, the decodes it packs) and starts it on the instance's
// timeline. The instance (serving_instance.hpp) holds the requests, queues, KV blocks and clock and
// provides the operations every scheduler shares; the event loop calls nothing else of a scheduler.
//
// One implementation per file under schedulers/, each registering itself by name (Ramulator 2
// style: a new scheduler is one file and one registration line): vllm-v0 (vLLM V0's default:
// prefill steps first, whole prompts, recompute or swap preemption, virtual engines on a pipeline)
// and vllm-v1 (V1's chunked prefill: one token budget a step, decodes first, prompts in chunks).
// Their rules and sources: docs/serving.md.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "search/scenarios/serving/serving_simulation.hpp"

namespace search::serving {

class ServingInstance;
struct VirtualEngine;

class ServingScheduler {
 public:
  virtual ~ServingScheduler() = default;
  // Refuses a configuration this scheduler cannot run: InputError naming the option and why.
  virtual void validate(const ServingConfig& config, const ServingStepCosts& costs) const = 0;
  // Schedules and starts `engine`'s next step at instance.now() (instance.begin_step); false when
  // it started none (it dropped what can never be admitted, or preempted to make room): the event
  // loop then asks again.
  virtual bool start_step(ServingInstance& instance, VirtualEngine& engine) const = 0;
};

struct ServingSchedulerInfo {
  std::string summary;  // one line for --help and errors
  std::function<std::unique_ptr<ServingScheduler>()> make;
};

// Registers a scheduler under `name` from a static initialiser (a duplicate name is a logic_error).
struct ServingSchedulerRegistration {
  ServingSchedulerRegistration(const std::string& name, ServingSchedulerInfo info);
};

// The scheduler registered as `name`; InputError listing the registered ones otherwise.
std::unique_ptr<ServingScheduler> make_serving_scheduler(const std::string& name);
// Every registered scheduler's name, in name order.
std::vector<std::string> serving_scheduler_names();

}  // namespace search::serving
