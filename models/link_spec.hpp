#pragma once
// Interconnect between devices (configs/links/<name>.yaml): PCIe (generation and lanes),
// NVLink, Ethernet. A transfer of B bytes takes per_message + B / achievable bandwidth on the
// link (it is busy for that long) and arrives latency later. Figures come from vendor
// specifications, each with its source in the YAML.
#include <string>

namespace models {

enum class LinkKind { pcie, nvlink, ethernet };
std::string to_string(LinkKind kind);

struct LinkSpec {
  std::string name;
  std::string source_file;
  LinkKind kind = LinkKind::pcie;
  double bandwidth_gbs = 0;   // per direction, raw (PCIe: lanes x rate x encoding)
  double efficiency = 1;      // achievable fraction for large messages (PCIe: TLP payload share)
  double latency_us = 0;      // one-way: after the link finishes sending, before data is usable
  double per_message_us = 0;  // fixed cost of one message, occupying the link

  double achievable_bytes_per_s() const { return bandwidth_gbs * 1e9 * efficiency; }
  // Seconds the link is busy sending `bytes` as one message.
  double occupancy_s(double bytes) const;
  // Seconds from the start of the send until the receiver has the data.
  double transfer_s(double bytes) const { return occupancy_s(bytes) + latency_us * 1e-6; }
};

LinkSpec load_link(const std::string& path);

}  // namespace models
