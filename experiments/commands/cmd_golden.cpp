// specdse golden: real kernels next to the sim model's predictions. For a CPU config the
// golden kernels run here (Eigen GEMM/GEMV at the models' projection shapes, decode and tree
// attention); for a GPU config the measurements come from a CSV that cuda/run_goldens.sh wrote
// on that GPU (--measured): kernels alone or in sequences, or whole verify steps. Prints each
// shape's measured_s, predicted_s, error_pct and a summary line with the median |error|.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/heartbeat.hpp"
#include "experiments/cli/host_calibration_check.hpp"
#include "models/config_error.hpp"
#include "models/hardware_spec.hpp"
#include "models/yaml_reader.hpp"
#include "models/software_stack.hpp"
#include "models/system_spec.hpp"
#include "search/work_bound.hpp"
#include "sim/golden/golden_host_calibration.hpp"
#include "sim/golden/golden_suite.hpp"
#include "sim/golden/gpu_generate_golden.hpp"
#include "sim/golden/gpu_golden_compare.hpp"
#include "sim/golden/hf_overlap_golden.hpp"
#include "sim/golden/moe_layer_golden.hpp"
#include "sim/golden/op_alone_golden.hpp"

namespace experiments {

std::string default_host_config_path();  // cmd_calibrate_host.cpp

namespace {

struct GoldenArgs {
  std::string hw = "host", measured, models = "llama-68m,llama-3.2-1b", tokens = "1,2,4,8,16,32,64,128,256",
              contexts = "512,2048", attention_model = "llama-3.2-1b", format, stack, system, host;
  int threads = 0, repeats = 2, warmup = 1, tree_tokens = 16, rounds = 6;
  bool no_flush = false, stored_calibration = false;
  unsigned long long seed = 1;
  // The options of a kernel run on this host, with whether each was given (filled after parsing).
  std::vector<std::pair<bool, std::string>> host_run_options_given;
};

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

// Whether --hw is this host calibrated in this run (the default): its probes then run a round
// before each round of the kernels (sim::HostCalibrator), so that the figures and the kernels
// they predict see the machine over the same stretch of time. --stored-calibration takes
// calibrate-host's file instead where there is one.
bool calibrate_in_run(const GoldenArgs& a) {
  if (a.hw != "host" || !a.measured.empty()) return false;
  const std::string path = default_host_config_path();
  if (!a.stored_calibration) return true;
  if (std::filesystem::exists(path)) return false;
  std::cerr << "no " << path << " yet: calibrating this host (run `specdse calibrate-host` to keep it)\n";
  return true;
}

// The CPU config of a calibration made in this run, read in memory through the config loader
// (no temporary file another run could share).
models::HardwareSpec calibrated_hardware(const sim::HostCalibration& c) {
  return models::load_hardware(models::YamlReader::from_node(YAML::Load(c.to_yaml("host")), kCalibratedInThisRun));
}

// --hw: "host" (calibrate-host's file), a YAML path, or a config name. A calibration made in
// this run (calibrate_in_run) comes from its own rounds instead.
models::HardwareSpec resolve_hardware(const GoldenArgs& a, const models::ConfigRegistry& reg) {
  if (a.hw == "host" && !a.measured.empty())
    throw models::InputError("--measured: only for GPU configs; CPU golden kernels run on this host (--hw host)");
  if (a.hw == "host") return models::load_hardware(default_host_config_path());
  if (a.hw.find('/') != std::string::npos || std::filesystem::path(a.hw).extension() == ".yaml")
    return models::load_hardware(a.hw);
  return reg.hardware(a.hw);
}

// The table with its summary line: under the table as its footer, or on stderr for CSV / JSON
// (stdout stays parseable).
void print_with_summary(Table& t, const std::string& summary, const std::string& format) {
  t.set_footer(summary);
  print_table(t, format);
  if (parse_format(format) != OutputFormat::table) {
    require_stdout_written();
    std::cerr << summary << '\n';
  }
}

// A comparison of measured GPU runs with the model: its table and one summary line.
struct GoldenReport {
  Table table;
  std::string summary;
};

// Whole measured verify steps (cuda/torch_decode_step.py) next to the GPU model's T_v.
GoldenReport run_step_golden(const GoldenArgs& a, const models::HardwareSpec& hw, const models::ConfigRegistry& reg) {
  const auto rows = sim::compare_gpu_steps(a.measured, hw, reg);
  Table t({"hw", "model", "batch", "x", "context", "measured_kernels", "model_kernels", "graph_s", "eager_s",
           "predicted_s", "error_pct", "predicted_same_kernels_s", "same_kernels_error_pct"});
  std::vector<double> errors, same_kernel_errors, ratio_errors;
  for (const auto& r : rows) {
    t.add_row({hw.name, r.model, integer(r.batch), integer(r.x), integer(r.context), integer(r.measured_kernels),
               integer(r.model_kernels), num(r.graph_s), num(r.eager_s), num(r.predicted_s), num(r.error_pct(), 3),
               num(r.predicted_same_kernels_s), num(r.same_kernels_error_pct(), 3)});
    errors.push_back(r.error_pct());
    same_kernel_errors.push_back(r.same_kernels_error_pct());
  }
  // The cost of a tree relative to plain decoding at the same batch and context, T_v(x) / T_v(1):
  // what decides the SD speed-up, measured and predicted.
  for (const auto& r : rows)
    for (const auto& base : rows)
      if (base.x == 1 && r.x > 1 && base.model == r.model && base.batch == r.batch && base.context == r.context)
        ratio_errors.push_back(100.0 * ((r.predicted_s / base.predicted_s) / (r.graph_s / base.graph_s) - 1.0));
  std::string summary = fmt::format(
      "summary: {} median |error| {:.1f} % over {} verify steps (CUDA-graph replay), {:.1f} % at the measured kernel count",
      hw.name, sim::median_abs(errors), errors.size(), sim::median_abs(same_kernel_errors));
  if (!ratio_errors.empty())
    summary += fmt::format("; T_v(x)/T_v(1) median |error| {:.1f} % over {} trees", sim::median_abs(ratio_errors),
                           ratio_errors.size());
  return {std::move(t), summary};
}

// Whole measured eager steps next to the GPU SystemC model running them under --stack.
GoldenReport run_eager_step_golden(const GoldenArgs& a, const models::HardwareSpec& hw,
                                   const models::SoftwareStack& stack, const models::ConfigRegistry& reg) {
  const auto rows = sim::compare_gpu_eager_steps(a.measured, hw, stack, reg);
  Table t({"hw", "stack", "model", "batch", "x", "context", "measured_kernels", "model_kernels", "kernel_error_pct",
           "eager_s", "predicted_s", "error_pct", "device_idle_s"});
  std::vector<double> errors, kernel_errors;
  for (const auto& r : rows) {
    t.add_row({hw.name, stack.name, r.model, integer(r.batch), integer(r.x), integer(r.context),
               integer(r.measured_kernels), integer(r.model_kernels), num(r.kernel_error_pct(), 3), num(r.eager_s),
               num(r.predicted_s), num(r.error_pct(), 3), num(r.device_idle_s())});
    errors.push_back(r.error_pct());
    if (r.measured_kernels > 0) kernel_errors.push_back(r.kernel_error_pct());
  }
  const std::string summary = fmt::format(
      "summary: {} under {}: median |error| {:.1f} % over {} eager steps, kernel count median |error| {:.1f} %",
      hw.name, stack.name, sim::median_abs(errors), errors.size(), sim::median_abs(kernel_errors));
  return {std::move(t), summary};
}

// A measured Hugging Face generate loop next to the GPU SystemC model running its step under --stack.
GoldenReport run_generate_golden(const GoldenArgs& a, const models::HardwareSpec& hw,
                                 const models::SoftwareStack& stack, const models::ConfigRegistry& reg) {
  const auto rows = sim::compare_gpu_generate_loop(a.measured, hw, stack, reg);
  Table t({"hw", "stack", "model", "variant", "batch", "context", "new_tokens", "measured_kernels", "model_kernels",
           "kernel_error_pct", "measured_s", "predicted_s", "error_pct", "device_idle_s"});
  std::vector<double> errors, kernel_errors, sampled_errors, sampled_kernel_errors;
  for (const auto& r : rows) {
    const bool counted = r.measured_kernels > 0;  // -1: the profiler did not count them
    t.add_row({hw.name, stack.name, r.model, r.variant, integer(r.batch), integer(r.context), integer(r.new_tokens),
               counted ? num(r.measured_kernels) : text(""), integer(r.model_kernels),
               counted ? num(r.kernel_error_pct(), 3) : text(""), num(r.measured_s), num(r.predicted_s),
               num(r.error_pct(), 3), num(r.device_idle_s())});
    // Greedy and sampled loops are the stacks' two decoding modes (accelerate's hooks and a bare
    // forward loop are other programs: shown, not summarised).
    if (r.variant == "generate_greedy") {
      errors.push_back(r.error_pct());
      if (counted) kernel_errors.push_back(r.kernel_error_pct());
    } else if (r.variant == "generate_sample") {
      sampled_errors.push_back(r.error_pct());
      if (counted) sampled_kernel_errors.push_back(r.kernel_error_pct());
    }
  }
  std::string summary = fmt::format("summary: {} under {}: ", hw.name, stack.name);
  summary += errors.empty() ? std::string("no greedy generate loops (generate_greedy rows) to summarise")
                            : fmt::format("median |error| {:.1f} % over {} greedy generate loops", sim::median_abs(errors),
                                          errors.size());
  if (!kernel_errors.empty())
    summary += fmt::format(", kernel count median |error| {:.1f} %", sim::median_abs(kernel_errors));
  if (!sampled_errors.empty())
    summary += fmt::format("; {} sampled loops (generate_sample, the stack's sampler kernels added): median |error| "
                           "{:.1f} %{}",
                           sampled_errors.size(), sim::median_abs(sampled_errors),
                           sampled_kernel_errors.empty()
                               ? std::string()
                               : fmt::format(", kernel count median |error| {:.1f} %",
                                             sim::median_abs(sampled_kernel_errors)));
  return {std::move(t), summary};
}

// The host/device overlap experiment (cuda/hf_host_device_overlap.py) next to the GPU SystemC
// model under --stack; each wide row also beside its narrow twin's host time, summed with and
// overlapped with its kernels' device time.
GoldenReport run_overlap_golden(const GoldenArgs& a, const models::HardwareSpec& hw, const models::SoftwareStack& stack,
                                const models::ConfigRegistry& reg) {
  const auto rows = sim::compare_gpu_host_device_overlap(a.measured, hw, stack, reg);
  Table t({"hw", "stack", "model", "width", "batch", "context", "measured_kernels", "model_kernels", "measured_busy_s",
           "predicted_busy_s", "measured_s", "predicted_s", "error_pct", "host_s", "host_plus_device_s",
           "max_host_device_s"});
  std::vector<double> errors, serial_errors, overlapped_errors;
  for (const auto& r : rows) {
    const sim::OverlapGoldenRow* twin = sim::narrow_twin(rows, r);
    const std::optional<sim::OverlapPair> pair =
        twin ? std::optional<sim::OverlapPair>(sim::OverlapPair{r, *twin}) : std::nullopt;
    if (pair) {
      serial_errors.push_back(100.0 * (pair->serial_s() / r.measured_s - 1.0));
      overlapped_errors.push_back(100.0 * (pair->overlapped_s() / r.measured_s - 1.0));
    }
    t.add_row({hw.name, stack.name, r.model, text(r.narrow ? "narrow" : "wide"), integer(r.batch), integer(r.context),
               r.measured_kernels > 0 ? num(r.measured_kernels) : text(""), integer(r.model_kernels),
               r.measured_busy_s >= 0 ? num(r.measured_busy_s) : text(""), num(r.predicted_busy_s), num(r.measured_s),
               num(r.predicted_s), num(r.error_pct(), 3), pair ? num(pair->host_s()) : text(""),
               pair ? num(pair->serial_s()) : text(""), pair ? num(pair->overlapped_s()) : text("")});
    errors.push_back(r.error_pct());
  }
  std::string summary = fmt::format("summary: {} under {}{}: median |error| {:.1f} % over {} generate loops", hw.name,
                                    stack.name, hw.host.source_file.empty() ? "" : " on host " + hw.host.name,
                                    sim::median_abs(errors), errors.size());
  // The narrow rows are the host's alone: their measured over predicted time is this machine's
  // host against the one the model ran on, i.e. the dispatch_time_scale a configs/hosts file for
  // it would carry (relative to the stack's measurement host). Batch 1 only, the shape the stack
  // was calibrated on: on some machines the host's time grew with the batch, which one factor
  // cannot carry (docs/gpu-model.md).
  std::vector<double> host_ratios;
  for (const auto& r : rows)
    if (r.narrow && r.batch == 1 && r.predicted_s > 0) host_ratios.push_back(r.measured_s / r.predicted_s);
  if (!host_ratios.empty()) {
    const double scale = hw.host.dispatch_time_scale;
    const auto [low, high] = std::minmax_element(host_ratios.begin(), host_ratios.end());
    // The ratios are positive: their median |value| is their median.
    summary += fmt::format("; its {} narrow (host-bound) batch-1 rows imply a host dispatch_time_scale of {:.2f} (range "
                           "{:.2f}-{:.2f}: configs/hosts)",
                           host_ratios.size(), sim::median_abs(host_ratios) * scale, *low * scale, *high * scale);
  }
  if (!serial_errors.empty())
    summary += fmt::format("; measured wide tokens against their narrow twin's host time and their kernels: "
                           "host + device median |error| {:.1f} %, max(host, device) {:.1f} % over {} pairs",
                           sim::median_abs(serial_errors), sim::median_abs(overlapped_errors), serial_errors.size());
  return {std::move(t), summary};
}

// Two streams on one GPU (cuda/torch_decode_step.py --contention) next to the SystemC model.
GoldenReport run_contention_golden(const GoldenArgs& a, const models::HardwareSpec& hw, const models::ConfigRegistry& reg) {
  const auto rows = sim::compare_gpu_contention(a.measured, hw, reg);
  Table t({"hw", "stream", "model", "batch", "x", "context", "alone_s", "together_s", "slowdown", "predicted_alone_s",
           "predicted_together_s", "predicted_slowdown"});
  std::vector<double> errors;
  for (const auto& r : rows) {
    t.add_row({hw.name, r.stream, r.model, integer(r.batch), integer(r.x), integer(r.context), num(r.alone_s),
               num(r.together_s), num(r.slowdown(), 3), num(r.predicted_alone_s), num(r.predicted_together_s),
               num(r.predicted_slowdown(), 3)});
    errors.push_back(100.0 * (r.predicted_slowdown() / r.slowdown() - 1.0));
  }
  const std::string summary = fmt::format("summary: {} median |error| of the co-location slowdown {:.1f} % over {} streams",
                                          hw.name, sim::median_abs(errors), errors.size());
  return {std::move(t), summary};
}

// Operators timed alone from PyTorch (cuda/op_by_op_layer.py, or LLMCompass's published A100
// figures) next to the GPU kernel model plus the harness cost measured on the same file; the
// all-reduce rows on --system. Each layer phase (a set other than "alone") is also summed.
GoldenReport run_op_alone_golden(const GoldenArgs& a, const models::HardwareSpec& hw, const models::ConfigRegistry& reg) {
  std::optional<models::SystemSpec> system;
  if (!a.system.empty()) system = models::load_system(reg.path("systems", a.system), reg);
  const auto result = sim::compare_ops_timed_alone(a.measured, hw, system ? &*system : nullptr);
  Table t({"hw", "set", "op", "kind", "m", "n", "k", "batch", "count", "measured_s", "kernel_s", "harness_s",
           "predicted_s", "error_pct", "note"});
  std::vector<std::string> sets;  // layer phases, in file order
  std::vector<double> alone_errors;
  for (const auto& r : result.rows) {
    t.add_row({hw.name, r.set, r.op, r.kind, integer(r.m), integer(r.n), integer(r.k), integer(r.batch), integer(r.count),
               num(r.measured_s), num(r.kernel_s), num(r.harness_s), num(r.predicted_s), num(r.error_pct(), 3),
               text(r.calibration ? "harness calibration" : "")});
    if (r.set == "alone" && !r.calibration) alone_errors.push_back(r.error_pct());
    if (r.set != "alone" && std::find(sets.begin(), sets.end(), r.set) == sets.end()) sets.push_back(r.set);
  }
  std::string summary = fmt::format("summary: {} ops timed alone", hw.name);
  std::string sep = "; harness per call: ";  // none when every row is an all-reduce (no harness to calibrate)
  for (const auto& [c, h] : result.harness) {
    summary += fmt::format("{}{} {:.1f} us ({})", sep, c, h.seconds_per_call * 1e6, h.op);
    sep = ", ";
  }
  if (!alone_errors.empty())
    summary += fmt::format("; median |error| {:.1f} % over {} {}", sim::median_abs(alone_errors), alone_errors.size(),
                           result.harness.empty() ? "ops" : "other calibration-sweep ops");
  for (const auto& set : sets) {
    const sim::SetTotal total = result.set_total(set);
    t.add_row({hw.name, set, "layer", "total", text(""), text(""), text(""), text(""), text(""), num(total.measured_s),
               text(""), text(""), num(total.predicted_s), num(total.error_pct(), 3), text("sum of the set's ops")});
    summary += fmt::format("; {} layer {:.3f} ms measured, {:.3f} ms predicted ({:+.1f} %)", set,
                           total.measured_s * 1e3, total.predicted_s * 1e3, total.error_pct());
  }
  if (result.skipped_all_reduces > 0)
    summary += fmt::format("; {} all-reduce rows left out (give --system to cost them)", result.skipped_all_reduces);
  return {std::move(t), summary};
}

// A MoE layer by component (cuda/moe_layer_kernels.py): each graph-replay row next to the model's
// kernels for the same component and experts touched; the summary gives the median |error| per
// component and the routing law against the experts each point drew.
GoldenReport run_moe_layer_golden(const GoldenArgs& a, const models::HardwareSpec& hw, const models::ConfigRegistry& reg) {
  const auto result = sim::compare_moe_layer(a.measured, hw, [&](const std::string& name) { return reg.model(name); });
  Table t({"hw", "model", "tokens", "routing", "component", "experts_impl", "experts_touched", "expected_touched",
           "kernels", "measured_s", "predicted_s", "error_pct"});
  std::map<std::string, std::vector<double>> by_component;  // "component (experts_impl)" -> errors
  std::vector<std::string> order;
  std::vector<double> routing_errors;
  for (const auto& r : result.rows) {
    t.add_row({hw.name, r.model, integer(r.tokens), r.routing, r.component, r.experts_impl, integer(r.experts_touched),
               num(r.expected_touched, 4), integer(r.kernels), num(r.measured_s), num(r.predicted_s),
               num(r.error_pct(), 3)});
    const std::string key = r.component == "experts" || r.component == "layer"
                                ? fmt::format("{} ({})", r.component, r.experts_impl) : r.component;
    if (!by_component.count(key)) order.push_back(key);
    by_component[key].push_back(r.error_pct());
    // The routing law per point (once: the layer row), where the draw is more than a few tokens.
    if (r.component == "layer" && r.tokens >= 8)
      routing_errors.push_back(100.0 * (r.expected_touched - r.experts_touched) / r.experts_touched);
  }
  std::string summary = fmt::format("summary: {} MoE layer rows (CUDA-graph replay) on {}; median |error|", result.rows.size(),
                                    hw.name);
  std::string sep = " ";
  for (const auto& key : order) {
    summary += fmt::format("{}{} {:.1f} %", sep, key, sim::median_abs(by_component[key]));
    sep = ", ";
  }
  if (!routing_errors.empty())
    summary += fmt::format("; distinct experts (routing law{}, tokens >= 8): median |error| {:.1f} % over {} points",
                           result.zipf_exponent > 0 ? fmt::format(", Zipf exponent {}", result.zipf_exponent) : "",
                           sim::median_abs(routing_errors), routing_errors.size());
  return {std::move(t), summary};
}

int run_golden(const GoldenArgs& a, const GlobalOptions& g) {
  // A measured CSV is compared as it is: the options of a run here would be ignored.
  if (!a.measured.empty())
    for (const auto& [given, flag] : a.host_run_options_given)
      if (given)
        throw models::InputError(fmt::format("{} sets the kernels run on this host; --measured compares a GPU's CSV "
                                             "and runs none (drop one)", flag));
  const Heartbeat beat("golden");  // a line on a terminal's stderr while a large grid runs
  const auto reg = registry(g);
  // The kernels a run here would time, known before this host is calibrated (which takes seconds):
  // a grid past the work bound is refused first.
  auto cpu_shapes = [&] {
    std::vector<models::ModelSpec> models;
    for (const auto& name : split_names(a.models)) models.push_back(reg.model(name));
    std::vector<std::int64_t> tokens, contexts;
    for (long long t : parse_int_list("--tokens", a.tokens, 1)) tokens.push_back(t);
    for (long long c : parse_int_list("--contexts", a.contexts, 1)) contexts.push_back(c);
    auto shapes = sim::projection_shapes(models, tokens);
    if (!a.attention_model.empty()) {
      const auto attn = sim::attention_shapes(reg.model(a.attention_model), contexts, a.tree_tokens);
      shapes.insert(shapes.end(), attn.begin(), attn.end());
    }
    double flops = 0;
    for (const auto& s : shapes)
      flops += s.heads > 0 ? 4.0 * double(s.heads) * double(s.m) * double(s.n) * double(s.k)  // QK and PV
                           : 2.0 * double(s.m) * double(s.n) * double(s.k);
    search::require_work_within("golden", fmt::format("{} kernels x (--warmup {} + --repeats {}) x --rounds {}",
                                                      shapes.size(), a.warmup, a.repeats, a.rounds),
                                flops * double(a.warmup + a.repeats) * double(a.rounds), search::kMaxGoldenFlops,
                                "FLOP", "time fewer or smaller kernels (--tokens, --contexts, --tree-tokens, --models)");
    return shapes;
  };
  std::vector<sim::GoldenShape> host_shapes;
  if (a.measured.empty()) host_shapes = cpu_shapes();
  // A calibration made in this run: a first round of its probes gives the config's shape (a CPU,
  // its threads) now; the figures that predict the kernels come from every round (below).
  std::optional<sim::HostCalibrator> calibrator;
  if (calibrate_in_run(a)) {
    calibrator.emplace(a.threads, std::max(5, a.repeats));
    calibrator->time_round();
  }
  models::HardwareSpec hw = calibrator ? calibrated_hardware(calibrator->result()) : resolve_hardware(a, reg);
  if (!a.host.empty()) {
    // The machine's host, for the comparisons that run a software stack's host work.
    if (a.stack.empty() || !hw.gpu)
      throw models::InputError(fmt::format("--host {}: only with a GPU --hw and --stack (it scales the stack's host "
                                           "work)", a.host));
    hw.host = models::load_host(reg.path("hosts", a.host));
  }
  std::vector<sim::GoldenRow> rows;
  std::string warning;  // CPU configs that do not describe this host
  std::string calibration;  // the figures of a calibration made in this run
  // Golden kernels exist for the GPU model (measured with cuda/) and the CPU model (run here).
  if (hw.gpu) {
    if (a.measured.empty())
      throw models::InputError(fmt::format("--measured: expected a CSV from cuda/run_goldens.sh run on a '{}' "
                                           "(no GPU kernels run here), got nothing", hw.name));
    std::optional<GoldenReport> report;
    auto stack = [&] { return models::load_software_stack(reg.path("stacks", a.stack)); };  // --stack, given
    if (sim::is_generate_csv(a.measured)) {
      if (a.stack.empty())
        throw models::InputError("--measured: a generate-loop CSV (model,variant,...) needs --stack (e.g. huggingface-transformers)");
      report = run_generate_golden(a, hw, stack(), reg);
    } else if (sim::is_overlap_csv(a.measured)) {
      if (a.stack.empty())
        throw models::InputError("--measured: an overlap CSV (model,width,layers,...) needs --stack (e.g. huggingface-transformers)");
      report = run_overlap_golden(a, hw, stack(), reg);
    } else {
      if (!a.stack.empty() && !sim::is_step_csv(a.measured))
        throw models::InputError("--stack: only with a verify-step CSV (model,batch,x,...) or a generate-loop CSV "
                                 "(model,variant,...) as --measured");
      if (!a.system.empty() && !sim::is_op_alone_csv(a.measured))
        throw models::InputError("--system: only with an ops-timed-alone CSV (set,op,kind,...) as --measured");
      if (sim::is_op_alone_csv(a.measured)) report = run_op_alone_golden(a, hw, reg);
      else if (sim::is_moe_layer_csv(a.measured)) report = run_moe_layer_golden(a, hw, reg);
      else if (sim::is_step_csv(a.measured))
        report = a.stack.empty() ? run_step_golden(a, hw, reg) : run_eager_step_golden(a, hw, stack(), reg);
      else if (sim::is_contention_csv(a.measured)) report = run_contention_golden(a, hw, reg);
    }
    if (report) {
      print_with_summary(report->table, report->summary, a.format);
      return 0;
    }
    rows = sim::compare_gpu_measurements(a.measured, hw);
  } else if (hw.cpu) {
    if (!a.measured.empty())
      throw models::InputError("--measured: only for GPU configs; CPU golden kernels run on this host");
    const std::vector<sim::GoldenShape>& shapes = host_shapes;
    sim::CpuGoldenOptions o;
    o.threads = a.threads > 0 ? a.threads : std::min(hw.cpu->threads, sim::host_core_count());
    o.repeats = a.repeats;
    o.rounds = a.rounds;
    o.warmup = a.warmup;
    o.flush_bytes = a.no_flush ? 0 : sim::host_cache_flush_bytes();
    o.seed = a.seed;
    const auto started = std::chrono::steady_clock::now();
    o.on_round_done = [&](int round, int rounds) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      std::cerr << fmt::format("specdse: golden: round {} of {} timed ({:.0f} s)\n", round, rounds, s);
    };
    if (calibrator) {
      // One round of the probes before each round of the kernels (the first is done): each
      // figure the best of --rounds, as each kernel's time is its fastest of --rounds passes.
      o.before_round = [&](int round, sim::ThreadTeam& team) {
        if (round > 1) calibrator->time_round(&team);
      };
      rows = sim::time_cpu_golden(shapes, o);
      const sim::HostCalibration c = calibrator->result();
      calibration = fmt::format("best of {} round{}, each before a round of the kernels: {}", calibrator->rounds(),
                                calibrator->rounds() == 1 ? "" : "s", c.summary());
      std::cerr << "specdse: calibrated this host (" << calibration << ")\n";
      hw = calibrated_hardware(c);
      sim::predict_cpu_golden(rows, hw);
    } else {
      warning = foreign_host_warning(hw);
      if (!warning.empty()) std::cerr << "specdse: " << warning << "\n";
      rows = sim::run_cpu_golden(shapes, hw, o);
    }
  } else {
    throw models::InputError(fmt::format("--hw: expected a cpu or gpu config, got {} '{}'", hw.kind, hw.name));
  }

  Table t({"hw", "kernel", "source", "m", "n", "k", "measured_s", "measured_median_s", "predicted_s", "error_pct"});
  for (const auto& r : rows)
    t.add_row({hw.name, r.shape.kernel, r.shape.source, integer(r.shape.m), integer(r.shape.n), integer(r.shape.k),
               num(r.measured_s), num(r.measured_median_s), num(r.predicted_s), num(r.error_pct(), 3)});
  if (!calibration.empty()) t.add_meta("calibration", calibration);  // a CSV that says what predicted it
  auto count = [&](const std::vector<std::string>& kinds) {
    int n = 0;
    for (const auto& r : rows) n += std::count(kinds.begin(), kinds.end(), r.shape.kernel) > 0;
    return n;
  };
  const std::vector<std::string> proj = {"gemm", "gemv"}, attn = {"decode_attention", "tree_attention"},
                                 flash = {"flash_attention"}, in_graph = {"gemm_graph", "rmsnorm_graph"},
                                 in_stream = {"gemm_stream", "rmsnorm_stream"};
  std::string summary = fmt::format("summary: {} median |error|", hw.name);
  std::string sep = " ";
  for (const auto& [kinds, what] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {proj, "GEMM/GEMV shapes alone (minimum times)"},
           {attn, "attention shapes"},
           {flash, "FlashAttention-2 shapes"},
           {in_graph, "kernels in CUDA-graph sequences"},
           {in_stream, "kernels in stream sequences"}}) {
    if (count(kinds) == 0) continue;
    summary += fmt::format("{}{:.1f} % over {} {}", sep, sim::median_abs_error_pct(rows, kinds), count(kinds), what);
    sep = "; ";
  }
  // Table output repeats the warning under the table, where it is read with the errors.
  t.set_footer(warning.empty() || parse_format(a.format) != OutputFormat::table ? summary : summary + "\n" + warning);
  print_table(t, a.format);
  if (parse_format(a.format) != OutputFormat::table) {  // keep stdout parseable
    require_stdout_written();
    std::cerr << summary << '\n';
  }
  return 0;
}

const RegisterCommand golden_registration{
    "golden", "Real kernels (Eigen here, CUDA via --measured) vs the sim model: measured_s, predicted_s, error_pct",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<GoldenArgs>();
      sub.add_option("--hw", a->hw, "CPU/GPU config name, a YAML path, or 'host' (calibrate-host's file)")
          ->default_val("host");
      sub.add_option("--measured", a->measured,
                     "GPU only: a CSV of cuda/run_goldens.sh: kernels (kernel,m,n,k,measured_s), verify steps "
                     "(model,batch,x,context,kernels,graph_s,eager_s), two streams "
                     "(stream,model,batch,x,context,alone_s,together_s) or, from cuda/run_hf_generate.sh, Hugging Face "
                     "generate loops (model,variant,batch,context,new_tokens,kernels_per_token,per_token_s) or, from "
                     "cuda/run_host_device_overlap.sh, generate on narrow and wide models (model,width,layers,...) or, from "
                     "cuda/op_by_op_layer.py, operators timed alone (set,op,kind,m,n,k,batch,count,measured_s) or, from "
                     "cuda/run_moe_layer_kernels.sh, a MoE layer by component (date,gpu,torch,model,tokens,routing,...)");
      sub.add_option("--system", a->system,
                     "With an operators-timed-alone CSV: the system (configs/systems/) whose NCCL all-reduce its "
                     "allreduce rows are compared with (ranks 0 .. k-1)");
      sub.add_option("--stack", a->stack,
                     "With a verify-step CSV: compare its eager_s with the SystemC GPU model running the step "
                     "under this software stack (configs/stacks/, e.g. pytorch-eager); a generate-loop CSV needs "
                     "one (e.g. huggingface-transformers)");
      sub.add_option("--host", a->host,
                     "With --stack: the measuring machine's host CPU (configs/hosts name or YAML path), whose "
                     "dispatch_time_scale scales the stack's host work (an overlap CSV's summary prints the factor "
                     "its narrow rows imply)");
      sub.add_option("--models", a->models, "Models whose projection shapes (N, K) are run")->default_val(a->models);
      sub.add_option("--tokens", a->tokens, "GEMM M values (tokens x)")->default_val(a->tokens);
      sub.add_option("--contexts", a->contexts, "Contexts of the attention kernels")->default_val(a->contexts);
      sub.add_option("--attention-model", a->attention_model, "Model whose heads the attention kernels use ('' for none)")
          ->default_val(a->attention_model);
      sub.add_option("--tree-tokens", a->tree_tokens, "Tree size of the tree-attention kernel")
          ->default_val(16)->check(integer_in(1, kMaxInt));  // run_golden bounds the work (its FLOPs)
      sub.add_option("--threads", a->threads, "Threads (default: the config's threads, at most this host's cores)")
          ->check(integer_in(0, kMaxThreads));
      sub.add_option("--repeats", a->repeats, "Timed repeats per kernel and round")->default_val(2)->check(integer_in(1, kMaxRepeats));
      sub.add_option("--rounds", a->rounds,
                     "CPU: times the whole shape set this many times over, keeping each shape's minimum "
                     "(robust to bursts of load on a shared machine; the in-run calibration times a round of its "
                     "probes before each round and keeps each probe's best)")
          ->default_val(6)
          ->check(integer_in(1, kMaxRepeats));
      sub.add_flag("--stored-calibration", a->stored_calibration,
                   "--hw host: use calibrate-host's file instead of calibrating in this run");
      sub.add_option("--warmup", a->warmup, "Untimed warm-up runs per kernel")->default_val(1)->check(integer_in(0, kMaxRepeats));
      sub.add_flag("--no-flush", a->no_flush, "Do not evict the caches before each timed run");
      sub.add_option("--seed", a->seed, "Seed of the random operands")->default_val(1)->check(integer_in(0, kMaxSeed));
      add_format_option(sub, a->format);
      return [a, &g, &sub] {
        for (const char* flag : {"--models", "--tokens", "--contexts", "--attention-model", "--tree-tokens", "--threads",
                                 "--repeats", "--rounds", "--stored-calibration", "--warmup", "--no-flush", "--seed"})
          a->host_run_options_given.emplace_back(sub.count(flag) > 0, flag);
        return run_golden(*a, g);
      };
    },
    62};

}  // namespace
}  // namespace experiments
