#pragma once
// Which collective a tensor-parallel group runs, and over which transport: the choice NCCL and
// vLLM make on the system, not a tuner's. NCCL connects every pair of ranks over the first
// transport that can (src/transport.cc: peer-to-peer, then shared memory through the host, then
// the network); vLLM's custom all-reduce runs only where its rules allow it
// (configs/collectives/vllm-custom-all-reduce.yaml quotes them), else the call goes to NCCL's
// ring. The timeline tasks of each choice are sim/system/collectives.hpp.
#include <string>
#include <vector>

#include "models/nccl_spec.hpp"
#include "models/system_spec.hpp"

namespace sim {

enum class Transport {
  link,        // no collective library: plain sends at the link's own figures
  p2p_nvlink,  // CUDA peer access over NVLink
  p2p_pcie,    // CUDA peer access over PCIe
  shm,         // staged through host shared memory (same host, no peer access)
  net_socket,  // the network between hosts (NCCL's socket transport over Ethernet)
};
// NCCL's own names in its "via ..." log lines: P2P/NVLink, P2P/PCIe, SHM, NET/Socket; "link".
std::string to_string(Transport t);

// The transport NCCL takes from device a to device b. Devices on a path with an Ethernet hop
// are in different hosts (NET); a direct NVLink link gives peer access (P2P over NVLink); over
// PCIe, peer access needs both devices to have it (models::HardwareSpec::pcie_peer_to_peer),
// else the host stages the data (SHM). InputError when no path joins a and b.
Transport nccl_transport(const models::SystemSpec& s, int a, int b);

// One ring step from a to b (a direct link) under NCCL protocol p: the bytes per second it
// moves (the transport's bandwidth times the protocol's share) and its latency (NCCL's step
// latency for the hardware class; SHM adds its host round trip, NET the link's own latency).
struct NcclStep {
  Transport transport = Transport::link;
  double bytes_per_s = 0;
  double latency_s = 0;
};
NcclStep nccl_step(const models::NcclSpec& nccl, const models::SystemSpec& s, int a, int b,
                   const models::NcclProtocol& p);

enum class CollectiveAlgorithm {
  link_ring,         // ring of plain link sends (a stack without a collective library)
  nccl_ring,         // NCCL's ring, protocol `protocol`
  custom_one_stage,  // vLLM's one-stage kernel: every rank reads every peer's whole buffer
  custom_two_stage,  // vLLM's two-stage kernel: reduce-scatter, then all-gather, over P2P
};

struct CollectiveChoice {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::link_ring;
  Transport transport = Transport::link;  // NCCL: its slowest ring step's; custom: the P2P kind
  int protocol = -1;                      // index into NcclSpec::protocols for an NCCL ring
  std::string protocol_name;              // "LL", "Simple"; empty otherwise
  // Why vLLM's custom all-reduce declined this call (its own wording); empty when it ran or the
  // stack has none.
  std::string custom_declined;
  std::string label() const;  // "vllm-custom one-stage", "nccl ring LL", "ring (link sends)"
};

// The all-reduce of `bytes` per rank the group's stack (rank 0's) runs on the system.
CollectiveChoice choose_all_reduce(const models::SystemSpec& s, const std::vector<int>& ranks, double bytes);
// The all-gather of `bytes` in all (each rank contributes bytes / N): NCCL's ring where the
// stack has NCCL (vLLM gathers through NCCL too), else the link ring.
CollectiveChoice choose_all_gather(const models::SystemSpec& s, const std::vector<int>& ranks, double bytes);

// Why vLLM's custom all-reduce would decline an all-reduce of `bytes` over `ranks` (empty: it
// runs), by its rules in order: a group across hosts, an unsupported world size, more than two
// GPUs without full NVLink, a pair without peer access, then the call's size.
std::string custom_all_reduce_declines(const models::CustomAllReduceSpec& spec, const models::SystemSpec& s,
                                       const std::vector<int>& ranks, double bytes);

}  // namespace sim
