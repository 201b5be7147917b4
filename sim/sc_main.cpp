// SystemC's own entry point. specdse's executables have their own main(), but libsystemc
// references sc_main, so every binary linking sim/ carries this one (see CMakeLists.txt). Run
// as a plain SystemC program it simulates one decoder step: sc_main BOARD MODEL X CONTEXT.
#include <cstdio>
#include <string>

#include "models/config_registry.hpp"
#include "sim/sim_engine.hpp"

extern "C" int sc_main(int argc, char** argv) {
  const models::ConfigRegistry reg;
  models::Workload w;
  w.target = reg.model(argc > 2 ? argv[2] : "llama-3.1-8b-instruct");
  const auto engine = sim::make_sim_engine("sim", reg.hardware(argc > 1 ? argv[1] : "v80"));
  const auto cost = engine->step(models::verify_graph(*engine, w, argc > 3 ? std::stoi(argv[3]) : 1,
                                                      argc > 4 ? std::stoll(argv[4]) : 128));
  std::printf("%lld cycles, %.6f s\n", cost.cycles, cost.seconds);
  return 0;
}
