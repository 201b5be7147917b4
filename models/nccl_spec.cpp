#include "models/nccl_spec.hpp"

#include <fmt/format.h>

#include "models/yaml_reader.hpp"

namespace models {

namespace {

NcclProtocol load_protocol(const YamlReader& r, const std::string& name) {
  r.allow_only({"base_latency_us", "step_latency_us", "bandwidth_fraction"});
  NcclProtocol p;
  p.name = name;
  p.base_latency_us = r.non_negative("base_latency_us");
  const YamlReader step = r.child("step_latency_us");
  step.allow_only({"nvlink", "pcie", "network"});
  p.step_latency_us = {step.non_negative("nvlink"), step.non_negative("pcie"), step.non_negative("network")};
  p.bandwidth_fraction = r.fraction("bandwidth_fraction");
  return p;
}

}  // namespace

NcclSpec load_nccl(const std::string& path) {
  const YamlReader r = YamlReader::open(path);
  r.allow_only({"name", "description", "protocols", "shm"});
  NcclSpec s;
  s.source_file = path;
  s.name = r.string("name");
  const YamlReader protocols = r.child("protocols");
  // NCCL's LL and Simple protocols; LL128 runs only over NVLink on a few architectures and is
  // not modelled.
  protocols.allow_only({"ll", "simple"});
  s.protocols.push_back(load_protocol(protocols.child("ll"), "LL"));
  s.protocols.push_back(load_protocol(protocols.child("simple"), "Simple"));

  const YamlReader shm = r.child("shm");
  shm.allow_only({"measured_all_reduce", "bandwidth_gbs", "pcie_p2p_bandwidth_gbs"});
  // A published nccl-tests time of a tiny all-reduce over SHM: its bytes take nanoseconds, so
  // the time is NCCL's base latency plus 2 (N - 1) steps, each a PCIe step and the extra.
  const YamlReader m = shm.child("measured_all_reduce");
  m.allow_only({"protocol", "ranks", "bytes", "time_us"});
  const std::string proto = m.one_of("protocol", {"ll", "simple"});
  const NcclProtocol& p = s.protocols[proto == "ll" ? 0 : 1];
  const int ranks = m.int_in("ranks", 2, 4096);
  const long long bytes = m.positive_int("bytes");
  if (bytes > 1024) m.fail("bytes", "a message of at most 1024 bytes (its transfer time is neglected)", std::to_string(bytes));
  const double steps = 2.0 * (ranks - 1);
  const double time_us = m.positive("time_us");
  s.shm_extra_step_latency_us = (time_us - p.base_latency_us) / steps - p.step_us(NcclHardware::pcie);
  if (s.shm_extra_step_latency_us < 0)
    m.fail("time_us",
           fmt::format("a time above NCCL's own PCIe estimate ({:.4g} us: SHM adds a host round trip to every step)",
                       p.base_latency_us + steps * p.step_us(NcclHardware::pcie)),
           fmt::format("{}", time_us));
  const double shm_bw = shm.positive("bandwidth_gbs");
  const double p2p_bw = shm.positive("pcie_p2p_bandwidth_gbs");
  if (shm_bw > p2p_bw)
    shm.fail("bandwidth_gbs", fmt::format("at most pcie_p2p_bandwidth_gbs ({})", p2p_bw), fmt::format("{}", shm_bw));
  s.shm_bandwidth_fraction = shm_bw / p2p_bw;
  return s;
}

}  // namespace models
