#pragma once
// Transfer times along a system's routes (models/system_route.hpp: the fewest-hop path of its
// links, store and forward at every relay). A missing path is an input error, never a free
// transfer.
#include <string>
#include <vector>

#include "models/system_route.hpp"
#include "models/system_spec.hpp"

namespace sim {

using models::has_route;
using models::route;

// The links of models::route from a to b, in order (none when a == b): InputError naming `what`
// when no path joins them.
std::vector<const models::LinkSpec*> route_links(const models::SystemSpec& s, int a, int b,
                                                 const std::string& what = "a transfer");
// The transfer rule: seconds for `bytes` along those links, store and forward at each relay (the
// sum over the hops of each link's occupancy and latency). sim::SystemCosts::transfer_s applies
// it to each device pair's links, searched once.
double hops_transfer_s(const std::vector<const models::LinkSpec*>& hops, double bytes);
// Both in one: seconds for `bytes` from a to b; 0 when a == b.
double route_transfer_s(const models::SystemSpec& s, int a, int b, double bytes,
                        const std::string& what = "a transfer");

}  // namespace sim
