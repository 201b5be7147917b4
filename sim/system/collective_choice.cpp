#include "sim/system/collective_choice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/config_error.hpp"
#include "models/system_route.hpp"

namespace sim {

std::string to_string(Transport t) {
  switch (t) {
    case Transport::link: return "link";
    case Transport::p2p_nvlink: return "P2P/NVLink";
    case Transport::p2p_pcie: return "P2P/PCIe";
    case Transport::shm: return "SHM";
    case Transport::net_socket: return "NET/Socket";
  }
  return "?";
}

std::string CollectiveChoice::label() const {
  switch (algorithm) {
    case CollectiveAlgorithm::link_ring: return "ring (link sends)";
    case CollectiveAlgorithm::nccl_ring: return "nccl ring " + protocol_name;
    case CollectiveAlgorithm::custom_one_stage: return "vllm-custom one-stage";
    case CollectiveAlgorithm::custom_two_stage: return "vllm-custom two-stage";
  }
  return "?";
}

namespace {

const models::SoftwareStack& stack_of(const models::SystemSpec& s, const std::vector<int>& ranks) {
  return s.devices[std::size_t(ranks.front())].hardware.stack;
}

bool direct_nvlink(const models::SystemSpec& s, int a, int b) {
  const models::SystemLink* l = s.link_between(a, b);
  return l && l->spec.kind == models::LinkKind::nvlink;
}

const models::SystemLink& direct_link(const models::SystemSpec& s, int a, int b) {
  const models::SystemLink* l = s.link_between(a, b);
  if (!l)
    throw models::InputError(fmt::format("{}: links: no link from {} to {} for a collective step", s.source_file,
                                         s.devices[std::size_t(a)].name, s.devices[std::size_t(b)].name));
  return *l;
}

}  // namespace

Transport nccl_transport(const models::SystemSpec& s, int a, int b) {
  // A direct link decides at once (the common case: ring neighbours); otherwise the route does.
  if (const models::SystemLink* l = s.link_between(a, b)) {
    if (l->spec.kind == models::LinkKind::ethernet) return Transport::net_socket;
    if (l->spec.kind == models::LinkKind::nvlink) return Transport::p2p_nvlink;
  } else {
    const std::vector<int> path = models::route(s, a, b, "a collective");
    for (std::size_t i = 1; i < path.size(); ++i)
      if (s.link_between(path[i - 1], path[i])->spec.kind == models::LinkKind::ethernet) return Transport::net_socket;
  }
  const auto& da = s.devices[std::size_t(a)].hardware;
  const auto& db = s.devices[std::size_t(b)].hardware;
  return da.pcie_peer_to_peer() && db.pcie_peer_to_peer() ? Transport::p2p_pcie : Transport::shm;
}

NcclStep nccl_step(const models::NcclSpec& nccl, const models::SystemSpec& s, int a, int b,
                   const models::NcclProtocol& p) {
  const models::SystemLink& link = direct_link(s, a, b);
  NcclStep st;
  st.transport = nccl_transport(s, a, b);
  const double bw = link.spec.achievable_bytes_per_s();
  switch (st.transport) {
    case Transport::p2p_nvlink:
      st.bytes_per_s = bw;
      st.latency_s = p.step_us(models::NcclHardware::nvlink) * 1e-6;
      break;
    case Transport::p2p_pcie:
      st.bytes_per_s = bw;
      st.latency_s = p.step_us(models::NcclHardware::pcie) * 1e-6;
      break;
    case Transport::shm:
      st.bytes_per_s = bw * nccl.shm_bandwidth_fraction;
      st.latency_s = (p.step_us(models::NcclHardware::pcie) + nccl.shm_extra_step_latency_us) * 1e-6;
      break;
    case Transport::net_socket:
    case Transport::link:
      // NCCL adds the network's own latency to its NET step latency (tuning.cc: interLat =
      // hwLat[NET] + latencyInter); the link's latency is that network latency here.
      st.bytes_per_s = bw;
      st.latency_s = (p.step_us(models::NcclHardware::network) + link.spec.latency_us) * 1e-6;
      st.transport = Transport::net_socket;
      break;
  }
  st.bytes_per_s *= p.bandwidth_fraction;
  return st;
}

std::string custom_all_reduce_declines(const models::CustomAllReduceSpec& spec, const models::SystemSpec& s,
                                       const std::vector<int>& ranks, double bytes) {
  const int n = int(ranks.size());
  bool same_host = true, full_nvlink = true, peer_access = true;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      const Transport t = nccl_transport(s, ranks[std::size_t(i)], ranks[std::size_t(j)]);
      same_host = same_host && t != Transport::net_socket;
      full_nvlink = full_nvlink && t == Transport::p2p_nvlink;
      peer_access = peer_access && (t == Transport::p2p_nvlink || t == Transport::p2p_pcie);
    }
  if (!same_host) return "this process group spans across nodes";
  if (!spec.supports_world_size(n))
    return fmt::format("unsupported world size: {}. Supported world sizes: [{}]", n, fmt::join(spec.world_sizes, ", "));
  if (n > 2 && !full_nvlink) return "it's not supported on more than two PCIe-only GPUs";
  if (!peer_access) return "your platform lacks GPU P2P capability";
  if (std::fmod(bytes, spec.alignment_bytes) != 0)
    return fmt::format("input of {} bytes is not a multiple of {}", bytes, spec.alignment_bytes);
  if (bytes >= spec.max_bytes) return fmt::format("input of {} bytes is not below max_size {}", bytes, spec.max_bytes);
  return "";
}

namespace {

// NCCL's ring under its fastest protocol by NCCL's own estimate for this call: base latency +
// steps x the slowest step's latency + the steps' chunks at the slowest step's bandwidth. Ties
// go to the protocol listed first.
CollectiveChoice nccl_ring(const models::NcclSpec& nccl, const models::SystemSpec& s, const std::vector<int>& ranks,
                           double bytes, int steps) {
  const std::size_t n = ranks.size();
  CollectiveChoice best;
  best.algorithm = CollectiveAlgorithm::nccl_ring;
  double best_s = 0;
  for (std::size_t p = 0; p < nccl.protocols.size(); ++p) {
    const models::NcclProtocol& proto = nccl.protocols[p];
    double latency = 0, bw = 0, worst_step = -1;
    Transport slowest = Transport::link;
    for (std::size_t i = 0; i < n; ++i) {
      const NcclStep st = nccl_step(nccl, s, ranks[i], ranks[(i + 1) % n], proto);
      latency = std::max(latency, st.latency_s);
      bw = bw == 0 ? st.bytes_per_s : std::min(bw, st.bytes_per_s);
      const double step_s = st.latency_s + bytes / double(n) / st.bytes_per_s;
      if (step_s > worst_step) worst_step = step_s, slowest = st.transport;
    }
    const double t = proto.base_latency_us * 1e-6 + steps * (latency + bytes / double(n) / bw);
    if (best.protocol < 0 || t < best_s) {
      best_s = t;
      best.protocol = int(p);
      best.protocol_name = proto.name;
      best.transport = slowest;
    }
  }
  return best;
}

}  // namespace

CollectiveChoice choose_all_reduce(const models::SystemSpec& s, const std::vector<int>& ranks, double bytes) {
  const models::SoftwareStack& stack = stack_of(s, ranks);
  const int n = int(ranks.size());
  CollectiveChoice c;
  if (stack.custom_all_reduce) {
    c.custom_declined = custom_all_reduce_declines(*stack.custom_all_reduce, s, ranks, bytes);
    if (c.custom_declined.empty()) {
      bool full_nvlink = true;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          if (i != j) full_nvlink = full_nvlink && direct_nvlink(s, ranks[std::size_t(i)], ranks[std::size_t(j)]);
      c.transport = full_nvlink ? Transport::p2p_nvlink : Transport::p2p_pcie;
      // Two GPUs always take the one-stage kernel; a fully NVLink-connected group below its
      // size limit too, else the two-stage kernel (csrc/custom_all_reduce.cuh).
      c.algorithm = n == 2 || bytes < stack.custom_all_reduce->one_stage_below_bytes(n)
                        ? CollectiveAlgorithm::custom_one_stage
                        : CollectiveAlgorithm::custom_two_stage;
      return c;
    }
  }
  if (!stack.collectives) return c;  // the link ring
  CollectiveChoice ring = nccl_ring(*stack.collectives, s, ranks, bytes, 2 * (n - 1));
  ring.custom_declined = c.custom_declined;
  return ring;
}

CollectiveChoice choose_all_gather(const models::SystemSpec& s, const std::vector<int>& ranks, double bytes) {
  const models::SoftwareStack& stack = stack_of(s, ranks);
  if (!stack.collectives) return {};
  return nccl_ring(*stack.collectives, s, ranks, bytes, int(ranks.size()) - 1);
}

}  // namespace sim
