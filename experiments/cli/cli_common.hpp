#pragma once
// Helpers shared by the subcommands: list parsing ("1-128", "1,2,4,8-16"), the --format and
// --engine options, and building a workload from names.
#include <CLI/CLI.hpp>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "experiments/cli/command_registry.hpp"
#include "experiments/output/table.hpp"
#include "models/config_registry.hpp"
#include "models/shell_word.hpp"
#include "models/engine_registry.hpp"  // models::make_engine, which every command uses
#include "models/latency_engine.hpp"
#include "search/optimizer.hpp"  // search::kMaxVerificationLength

namespace experiments {

// "1-128", "1,2,4", "1-8,16,32" -> sorted unique integers in [min_value, max_value]; errors
// name the option.
std::vector<long long> parse_int_list(const std::string& option, const std::string& text,
                                      long long min_value,
                                      long long max_value = std::numeric_limits<long long>::max());

// Bounds of the command-line integers (a value past them is a one-line error, not a wrapped
// int, an hour of work or an allocation failure).
// Context length (search/optimizer.hpp: also the scenario runner's bound).
using search::kMaxContext;
// Verification length x (search/optimizer.hpp: one bound for optimize and the tree-sd scenario).
using search::kMaxVerificationLength;
// Sequences per step (search/optimizer.hpp: also the tree-sd scenario's batch list).
using search::kMaxBatch;
// Worker threads: more than any one host here has cores.
constexpr long long kMaxThreads = 1024;
// Random seeds: any non-negative 64-bit signed integer (what integer_in can read).
constexpr long long kMaxSeed = 9223372036854775807LL;
// An int option's own limit, where the command bounds the work it implies itself.
constexpr long long kMaxInt = 2147483647LL;
// Timed repeats, rounds and warm-ups of a measurement: far beyond any useful run.
constexpr long long kMaxRepeats = 1000000;

// A CLI11 check for an option that takes one integer in [lo, hi]: the project's one-line message
// ("expected one integer in [1, 65536], got '1,8'") instead of CLI11's range dump.
CLI::Validator integer_in(long long lo, long long hi);
// A CLI11 check for a probability strictly between 0 and 1 (NaN, 0, 1 and negatives refused,
// where a sentinel default would otherwise read them as "not given").
CLI::Validator open_probability();
// A CLI11 check for one real number in [lo, hi] (NaN, infinities and denormals refused), e.g. a
// time in seconds whose reciprocal must stay finite.
CLI::Validator real_in(double lo, double hi);
std::vector<double> parse_double_list(const std::string& option, const std::string& text);

void add_format_option(CLI::App& sub, std::string& format);
// --engine roofline|sim|sim-clocked
void add_engine_option(CLI::App& sub, std::string& engine);

models::ConfigRegistry registry(const GlobalOptions& g);

// A word as a POSIX shell reads it back (models/shell_word.hpp).
using models::shell_word;

void print_table(const Table& table, const std::string& format);
// Flushes stdout; InputError ("writing to standard output failed: ...") when what was printed did
// not arrive (a full disk, a closed pipe). For a command that reports on stderr after its
// results: the report would otherwise precede the error as if the run had succeeded.
void require_stdout_written();

// A Python with matplotlib for plot scripts (see cli_common.cpp); empty when none is found.
std::string find_plot_python(const std::string& option = "");
// Whether `python` runs and imports matplotlib (the test find_plot_python makes of each candidate).
bool runs_matplotlib(const std::string& python);

}  // namespace experiments
