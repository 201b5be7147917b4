#pragma once
// Routes between the devices of a system: the one link rule every scenario and the system
// loader use. A transfer from device a to device b follows the fewest-hop path of the system's
// directed links (the YAML's topology: a switch port, a chain or ring neighbour, a host that
// relays), store and forward at every intermediate device. Ties between equally short paths go
// to the lower device indices, so a route (and every time built on it) is the same on every
// run. Times along a route are sim::route_transfer_s (sim/system/routes.hpp).
#include <string>
#include <vector>

#include "models/system_spec.hpp"

namespace models {

// The devices a transfer from a to b passes through, a first and b last ({a} when a == b);
// InputError naming the system, both devices and `what` (the transfer) when no path joins them.
std::vector<int> route(const SystemSpec& s, int a, int b, const std::string& what = "a transfer");

// Whether some path joins a to b.
bool has_route(const SystemSpec& s, int a, int b);

}  // namespace models
