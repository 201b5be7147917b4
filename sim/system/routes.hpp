#pragma once
// Transfer times along a system's routes (models/system_route.hpp: the fewest-hop path of its
// links, store and forward at every relay). A missing path is an input error, never a free
// transfer.
#include <string>

#include "models/system_route.hpp"
#include "models/system_spec.hpp"

namespace sim {

using models::has_route;
using models::route;

// Seconds for `bytes` to move from a to b along models::route: the sum over its hops of each
// link's occupancy and latency; 0 when a == b.
double route_transfer_s(const models::SystemSpec& s, int a, int b, double bytes,
                        const std::string& what = "a transfer");

}  // namespace sim
