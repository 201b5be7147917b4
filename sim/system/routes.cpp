#include "sim/system/routes.hpp"

namespace sim {

std::vector<const models::LinkSpec*> route_links(const models::SystemSpec& s, int a, int b, const std::string& what) {
  if (a == b) return {};
  if (const auto* l = s.link_between(a, b)) return {&l->spec};  // the route, without a search
  const auto path = models::route(s, a, b, what);
  std::vector<const models::LinkSpec*> hops;
  for (std::size_t i = 1; i < path.size(); ++i) hops.push_back(&s.link_between(path[i - 1], path[i])->spec);
  return hops;
}

double hops_transfer_s(const std::vector<const models::LinkSpec*>& hops, double bytes) {
  double t = 0;
  for (const auto* link : hops) t += link->transfer_s(bytes);
  return t;
}

double route_transfer_s(const models::SystemSpec& s, int a, int b, double bytes, const std::string& what) {
  return hops_transfer_s(route_links(s, a, b, what), bytes);
}

}  // namespace sim
