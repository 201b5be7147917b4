#include "experiments/cli/scenario_commands.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "experiments/cli/heartbeat.hpp"
#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/plot_script.hpp"
#include "experiments/cli/scenario_options.hpp"
#include "experiments/cli/scenario_runner.hpp"
#include "sim/io/output_path.hpp"
#include "experiments/output/scenario_report.hpp"
#include "models/config_error.hpp"

namespace experiments {

namespace {

// After the hand-made commands in --help.
constexpr int kScenarioCommandOrder = 60;

// --plot FILE.png: checked before the run (a .png path, a scenario with a plot script, a Python
// with matplotlib, a writable target).
std::optional<PlotScript> prepare_plot(const search::ScenarioInfo* info, const std::string& name,
                                       const ScenarioCommandArgs& a) {
  if (a.plot.empty()) return std::nullopt;
  if (std::filesystem::path(a.plot).extension() != ".png")
    throw models::InputError(fmt::format("--plot: expected a .png path, got '{}'", a.plot));
  if (!info || info->plot.empty()) throw models::InputError(fmt::format("--plot: scenario {} has no plot script", name));
  sim::check_output_target(a.plot);
  sim::check_output_target(std::filesystem::path(a.plot).replace_extension(".csv").string());
  return prepare_plot_script("--plot", info->plot, a.python);
}

// The table's CSV beside the PNG (FILE.csv), then the scenario's plot script on it (SCRIPT
// OUT_DIR CSV PNG, as every plot script is called), which writes the PNG and a PDF.
void plot_result(const search::ScenarioResult& result, const PlotScript& plot, const ScenarioCommandArgs& a) {
  const std::filesystem::path png = a.plot;
  const std::string csv = std::filesystem::path(png).replace_extension(".csv").string();
  write_file_atomic(csv, scenario_table(result).to_string(OutputFormat::csv));
  const std::string dir = png.parent_path().empty() ? "." : png.parent_path().string();
  try {
    run_plot_script("--plot", plot, {dir, csv, png.string()}, false);
  } catch (const models::InputError&) {
    // A failed plot leaves no half-written result beside it: the CSV it was given goes too.
    std::error_code ec;
    std::filesystem::remove(csv, ec);
    throw;
  }
}

}  // namespace

int run_scenario_command(CLI::App& sub, ScenarioCommandArgs& a, const std::string& name,
                         const search::ScenarioInfo* info, const GlobalOptions& g) {
  // The generic `scenario NAME` command has every common input's flag: one its scenario does
  // not take is refused, not ignored.
  if (!info) refuse_untaken_inputs(sub, search::scenario(name));
  finish_scenario_inputs(sub, a, info);
  // An output that cannot be written is refused before the work, and the trace file is written
  // before the table is printed: a failed output never follows a printed result.
  if (!a.trace_out.empty()) sim::check_output_target(a.trace_out);
  std::string report_trace;  // the report's timeline JSON beside it: FILE.trace.json
  if (!a.report.empty()) {
    if (std::filesystem::path(a.report).extension() != ".html")
      throw models::InputError(fmt::format("--report: expected a .html path, got '{}'", a.report));
    report_trace = std::filesystem::path(a.report).replace_extension(".trace.json").string();
    sim::check_output_target(a.report);
    sim::check_output_target(report_trace);
  }
  const std::optional<PlotScript> plot = prepare_plot(info, name, a);
  // No two outputs on one file, and none over a file the run reads (any input flag's value).
  {
    std::vector<sim::NamedPath> inputs = {{"--hw", a.inputs.hw},       {"--stack", a.inputs.stack}, {"--host", a.inputs.host},
                                          {"--model", a.inputs.model}, {"--algorithm", a.inputs.algorithm},
                                          {"--data", a.inputs.data}};
    for (const auto& kv : a.inputs.params) {
      const auto eq = kv.find('=');
      if (eq != std::string::npos) inputs.push_back({"--" + kv.substr(0, eq), kv.substr(eq + 1)});
    }
    const std::string plot_csv =
        a.plot.empty() ? std::string() : std::filesystem::path(a.plot).replace_extension(".csv").string();
    sim::check_run_outputs({{"--trace-out", a.trace_out},
                            {"--report", a.report},
                            {"--report's timeline", report_trace},
                            {"--plot", a.plot},
                            {"--plot's table", plot_csv}},
                           inputs);
  }
  const auto result = [&] {
    // A line on stderr every 10 s past the first 5 (a scenario at a million tokens takes minutes).
    std::optional<Heartbeat> beat;
    if (!info || !info->reports_progress) beat.emplace(name);
    return run_scenario(name, a.inputs, registry(g));
  }();
  if (!a.trace_out.empty() && !result.write_trace)
    throw models::InputError(fmt::format("--trace-out: scenario {} writes no timeline trace", name));
  // Every output before the table (a failed output never follows a printed result), and a run
  // whose later output fails leaves none of its earlier ones behind: the plot, the one that can
  // fail outside this program, first.
  std::vector<std::string> written;
  try {
    if (plot) plot_result(result, *plot, a);
    if (plot) {
      written.push_back(a.plot);
      written.push_back(std::filesystem::path(a.plot).replace_extension(".csv").string());
      written.push_back(std::filesystem::path(a.plot).replace_extension(".pdf").string());
    }
    if (!a.trace_out.empty()) {
      std::ostringstream json;
      result.write_trace(json);
      write_file_atomic(a.trace_out, json.str());
      written.push_back(a.trace_out);
    }
    if (!a.report.empty()) {
      if (result.write_trace) {
        std::ostringstream json;
        result.write_trace(json);
        write_file_atomic(report_trace, json.str());
        written.push_back(report_trace);
      }
      write_file_atomic(a.report, scenario_report_html(result, g.command_line,
                                                       result.write_trace
                                                           ? std::filesystem::path(report_trace).filename().string()
                                                           : std::string()));
      std::cerr << "specdse: wrote " << a.report << (result.write_trace ? " and " + report_trace : std::string()) << "\n";
    }
  } catch (...) {
    for (const auto& f : written) {
      std::error_code ec;
      if (std::filesystem::is_regular_file(f, ec)) std::filesystem::remove(f, ec);
    }
    throw;
  }
  print_table(scenario_table(result), a.format);
  return 0;
}

std::vector<CommandInfo> scenario_commands() {
  std::vector<CommandInfo> out;
  for (const auto& info : search::scenarios()) {
    if (info.command.empty()) continue;
    CommandInfo c;
    c.name = info.command;
    c.description = info.description + " (scenario; also `specdse scenario " + info.name + "`)";
    c.order = kScenarioCommandOrder;
    c.setup = [info](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<ScenarioCommandArgs>();
      add_scenario_inputs(sub, *a, &info);
      add_scenario_param_flags(sub, *a, info);
      sub.add_option("--trace-out", a->trace_out, "Write the scenario's timeline as Chrome trace-event JSON");
      sub.add_option("--report", a->report,
                     "Write a self-contained HTML report at this .html path (the answer, the table, bars, the "
                     "timeline; its Perfetto JSON beside it as FILE.trace.json)");
      if (!info.plot.empty()) {
        sub.add_option("--plot", a->plot, "Write a plot (PNG and PDF) at this .png path, with the table's CSV beside it");
        sub.add_option("--python", a->python,
                       "Python for --plot (default: $SPECDSE_PYTHON, else the first python3 with matplotlib)");
      }
      return [a, info, &g, &sub] { return run_scenario_command(sub, *a, info.name, &info, g); };
    };
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace experiments
