#pragma once
// Self-registering window policies (Ramulator 2 style, as models/engine_registry.hpp): each
// policy family lives in its own file under search/window/ with one static
// WindowPolicyRegistration naming it, its position in the output and its factory, so a new
// policy is one file plus that one line; `specdse policies` and replay_all_policies iterate
// the registry. The search library is linked whole-archive so the registrations survive.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "search/acceptance/chain_trace.hpp"
#include "search/window/chain_sd.hpp"
#include "search/window/policies.hpp"

namespace search {

// What a family's factory may use: the options, the latency table (outlives the policies) and
// the trace they will replay (e.g. whether it has cache flags).
struct WindowPolicyInput {
  const PolicyOptions& options;
  const ChainLatency& latency;
  const ChainTrace& trace;
};

// Every policy of one family under these options: static gives one per window, q-learning one
// per reward, cache-fsm none for a trace without cache flags.
using WindowPolicyFactory = std::function<std::vector<std::unique_ptr<WindowPolicy>>(const WindowPolicyInput&)>;

struct WindowPolicyRegistration {
  // `order` places the family's rows (ascending; ties by name) so output stays stable however
  // the static initialisers run.
  WindowPolicyRegistration(const std::string& name, int order, WindowPolicyFactory factory);
};

// Registered family names in output order.
std::vector<std::string> window_policy_names();
// The policies of family `name`; InputError listing the registered families when there is none.
std::vector<std::unique_ptr<WindowPolicy>> make_window_policies(const std::string& name,
                                                                const WindowPolicyInput& input);

}  // namespace search
