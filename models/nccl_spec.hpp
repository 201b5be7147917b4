#pragma once
// NCCL's cost model of a collective (configs/collectives/nccl.yaml), the figures a stack's
// tensor-parallel all-reduces and all-gathers are costed with. NCCL prices a call as a base
// latency per protocol, plus per ring step a latency set by the hardware the step crosses
// (NVLink, PCIe, network), plus the bytes at the protocol's share of the bus bandwidth, and runs
// the protocol its model finds fastest (src/graph/tuning.cc). Which transport a step uses
// (peer-to-peer, shared memory through the host, sockets) is sim/system/collective_choice.hpp.
#include <array>
#include <string>
#include <vector>

namespace models {

// NCCL's hardware classes of a ring step (tuning.cc: NCCL_HW_NVLINK, NCCL_HW_PCI, NCCL_HW_NET).
enum class NcclHardware { nvlink = 0, pcie = 1, network = 2 };

struct NcclProtocol {
  std::string name;                       // "LL", "Simple"
  double base_latency_us = 0;             // once per call
  std::array<double, 3> step_latency_us{};  // per ring step, by NcclHardware
  double bandwidth_fraction = 1;          // share of the transport's bus bandwidth this protocol moves
  double step_us(NcclHardware hw) const { return step_latency_us[std::size_t(hw)]; }
};

struct NcclSpec {
  std::string name;
  std::string source_file;
  std::vector<NcclProtocol> protocols;    // in the order the YAML lists them (ties go to the first)
  // Shared memory through the host (SHM), NCCL's transport between GPUs of one host that cannot
  // address each other's memory. NCCL's model times its steps as PCIe steps; the extra latency
  // per step of the host round trip is derived from a published small-message measurement.
  double shm_extra_step_latency_us = 0;
  double shm_bandwidth_fraction = 1;      // of the PCIe link's achievable bandwidth
};

NcclSpec load_nccl(const std::string& path);

}  // namespace models
