#include "sim/system/routes.hpp"

namespace sim {

double route_transfer_s(const models::SystemSpec& s, int a, int b, double bytes, const std::string& what) {
  if (a == b) return 0;
  if (const auto* l = s.link_between(a, b)) return l->spec.transfer_s(bytes);  // the route, without a search
  const auto path = models::route(s, a, b, what);
  double t = 0;
  for (std::size_t i = 1; i < path.size(); ++i) t += s.link_between(path[i - 1], path[i])->spec.transfer_s(bytes);
  return t;
}

}  // namespace sim
