#pragma once
// Helpers shared by the subcommands: list parsing ("1-128", "1,2,4,8-16"), the --format and
// --engine options, and building a workload from names.
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "experiments/cli/command_registry.hpp"
#include "experiments/output/table.hpp"
#include "models/config_registry.hpp"
#include "models/latency_engine.hpp"

namespace experiments {

// "1-128", "1,2,4", "1-8,16,32" -> sorted unique integers >= min_value; errors name the option.
std::vector<long long> parse_int_list(const std::string& option, const std::string& text,
                                      long long min_value);
std::vector<double> parse_double_list(const std::string& option, const std::string& text);

void add_format_option(CLI::App& sub, std::string& format);
// --engine roofline|sim|sim-clocked
void add_engine_option(CLI::App& sub, std::string& engine);

models::ConfigRegistry registry(const GlobalOptions& g);

// An engine by name for a hardware description ("roofline", "sim", "sim-clocked").
std::unique_ptr<models::LatencyEngine> make_engine(const std::string& engine,
                                                  const models::HardwareSpec& hw);

void print_table(const Table& table, const std::string& format);

// A Python with matplotlib for plot scripts (see cli_common.cpp); empty when none is found.
std::string find_plot_python(const std::string& option = "");

}  // namespace experiments
