#include "models/link_spec.hpp"

#include "models/config_error.hpp"
#include "models/yaml_reader.hpp"

namespace models {

std::string to_string(LinkKind kind) {
  switch (kind) {
    case LinkKind::pcie: return "pcie";
    case LinkKind::nvlink: return "nvlink";
    case LinkKind::ethernet: return "ethernet";
  }
  return "?";
}

double LinkSpec::occupancy_s(double bytes) const {
  return per_message_us * 1e-6 + (bytes > 0 ? bytes / achievable_bytes_per_s() : 0.0);
}

namespace {

// PCIe signalling rate per lane (GT/s) by generation, all with 128b/130b encoding from 3.0 on
// (PCI-SIG PCI Express Base Specifications 3.0, 4.0, 5.0).
double pcie_gt_per_s(const YamlReader& r, long long generation) {
  switch (generation) {
    case 3: return 8.0;
    case 4: return 16.0;
    case 5: return 32.0;
    default: r.fail("generation", "3, 4 or 5", std::to_string(generation));
  }
}

}  // namespace

LinkSpec load_link(const std::string& path) {
  const YamlReader r = YamlReader::open(path);
  LinkSpec l;
  l.source_file = path;
  l.name = r.string("name");
  const std::string kind = r.one_of("kind", {"pcie", "nvlink", "ethernet"});
  if (kind == "pcie") {
    r.allow_only({"name", "kind", "generation", "lanes", "max_payload_bytes", "tlp_overhead_bytes",
                  "latency_us", "per_message_us", "description"});
    l.kind = LinkKind::pcie;
    const long long generation = r.positive_int("generation");
    const double gt = pcie_gt_per_s(r, generation);
    const long long lanes = r.positive_int("lanes");
    if (lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 16)
      r.fail("lanes", "1, 2, 4, 8 or 16", std::to_string(lanes));
    l.bandwidth_gbs = gt * double(lanes) * (128.0 / 130.0) / 8.0;
    const double payload = r.positive("max_payload_bytes");
    const double overhead = r.non_negative("tlp_overhead_bytes");
    l.efficiency = payload / (payload + overhead);
  } else {
    r.allow_only({"name", "kind", "bandwidth_gbs", "efficiency", "latency_us", "per_message_us", "description"});
    l.kind = kind == "nvlink" ? LinkKind::nvlink : LinkKind::ethernet;
    l.bandwidth_gbs = r.positive("bandwidth_gbs");
    l.efficiency = r.fraction("efficiency");
  }
  l.latency_us = r.non_negative("latency_us");
  l.per_message_us = r.non_negative("per_message_us");
  return l;
}

}  // namespace models
