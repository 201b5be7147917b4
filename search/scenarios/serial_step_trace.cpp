#include "search/scenarios/serial_step_trace.hpp"

#include <memory>

namespace search {

sim::TraceWriter serial_step_trace(const std::string& device, const std::vector<StepPhase>& phases) {
  auto graph = std::make_shared<sim::TaskGraph>();
  const int stream = graph->add_resource({device, sim::ResourceKind::device_stream, device});
  const int host = graph->add_resource({"host:" + device, sim::ResourceKind::host, device});
  int previous = -1;
  for (const auto& p : phases)
    previous = graph->add_work(p.on_host ? host : stream, p.name, p.category, p.seconds, {previous});
  auto run = std::make_shared<const sim::TimelineRun>(sim::run_timeline(*graph));
  return sim::chrome_trace_writer(graph, run);
}

}  // namespace search
