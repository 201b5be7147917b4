// specdse calibrate-host: writes a CPU hardware config for this machine (cores, clock, caches
// from the OS; streaming bandwidth, GEMM packing and FLOP rates, attention rate and fork/join
// cost measured with the golden kernels) so the CPU models predict it. The file goes next to
// the specdse binary unless --out says otherwise (never into the source tree by default).
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "experiments/cli/cli_common.hpp"
#include "sim/golden/golden_host_calibration.hpp"

namespace experiments {

// Default place for the host config: beside the executable (the build folder).
std::string default_host_config_path() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const auto dir = ec ? std::filesystem::current_path() : exe.parent_path();
  return (dir / "host-cpu.yaml").string();
}

namespace {

struct CalibrateArgs {
  std::string out, name = "host";
  int threads = 0, repeats = 10;
};

int run_calibrate(const CalibrateArgs& a) {
  const auto c = sim::calibrate_host(a.threads, a.repeats);
  const std::string path = a.out.empty() ? default_host_config_path() : a.out;
  write_file_atomic(path, c.to_yaml(a.name));
  std::cout << fmt::format("wrote {}: {}\n", path, c.summary());
  return 0;
}

const RegisterCommand calibrate_host_registration{
    "calibrate-host",
    "Measure this CPU (streaming bandwidth, GEMM packing and FLOP rates, attention rates of a head's first and later "
    "query rows and the later rows' cost per score, fork/join) and write a CPU config for the CPU models",
    [](CLI::App& sub, const GlobalOptions&) -> CommandRunner {
      auto a = std::make_shared<CalibrateArgs>();
      sub.add_option("--out", a->out, "Output YAML path (default: host-cpu.yaml beside the specdse binary)");
      sub.add_option("--name", a->name, "Config name written into the file")->default_val("host");
      sub.add_option("--threads", a->threads, "Threads (default: all cores)")->check(integer_in(1, kMaxThreads));
      sub.add_option("--repeats", a->repeats, "Timed repeats per kernel (minimum is used)")
          ->default_val(10)->check(integer_in(1, kMaxRepeats));
      return [a] { return run_calibrate(*a); };
    },
    60};

}  // namespace
}  // namespace experiments
