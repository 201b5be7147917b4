#include "experiments/cli/cli_common.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <sstream>
#include <string_view>

#include "experiments/process/run_process.hpp"
#include "models/config_error.hpp"
#include "models/engine_registry.hpp"
#include "roofline/analytic_engine.hpp"
#include "sim/sim_engine.hpp"

namespace experiments {

using models::InputError;

namespace {
long long parse_ll(const std::string& option, const std::string& s) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || s.empty())
    throw InputError(fmt::format("{}: expected an integer, got '{}'", option, s));
  return v;
}
}  // namespace

std::vector<long long> parse_int_list(const std::string& option, const std::string& text,
                                      long long min_value, long long max_value) {
  std::vector<long long> out;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) throw InputError(fmt::format("{}: empty item in '{}'", option, text));
    const auto dash = item.find('-', 1);
    long long lo = 0, hi = 0;
    if (dash == std::string::npos) {
      lo = hi = parse_ll(option, item);
    } else {
      lo = parse_ll(option, item.substr(0, dash));
      hi = parse_ll(option, item.substr(dash + 1));
      if (hi < lo) throw InputError(fmt::format("{}: range '{}' runs backwards", option, item));
      // In unsigned arithmetic: hi - lo overflows a long long for "-9223372036854775807-9223372036854775807".
      if (static_cast<unsigned long long>(hi) - static_cast<unsigned long long>(lo) > 1000000ULL)
        throw InputError(fmt::format("{}: range '{}' is too long", option, item));
    }
    if (lo < min_value)
      throw InputError(fmt::format("{}: values must be >= {}, got {}", option, min_value, lo));
    if (hi > max_value)
      throw InputError(fmt::format("{}: values must be <= {}, got {}", option, max_value, hi));
    // Ranges are capped one by one, so a list of many long ranges is capped as a whole too.
    if (out.size() + std::size_t(hi - lo) + 1 > 1000000)
      throw InputError(fmt::format("{}: '{}' lists more than 1000000 values", option, text.size() > 60 ? text.substr(0, 60) + "..." : text));
    // Stops at hi itself: `v <= hi` would never fail for hi = LLONG_MAX (v wraps).
    for (long long v = lo;; ++v) {
      out.push_back(v);
      if (v == hi) break;
    }
  }
  if (out.empty()) throw InputError(fmt::format("{}: no values given", option));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

// The whole of `text` as one number; nothing when it is empty, has anything after the number or
// is out of a double's range.
std::optional<double> whole_number(const std::string& text) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (text.empty() || used != text.size()) return std::nullopt;
  return v;
}

}  // namespace

CLI::Validator real_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        const auto v = whole_number(text);
        if (v && std::isfinite(*v) && *v >= lo && *v <= hi) return "";
        return fmt::format("expected one number in [{:g}, {:g}], got '{}'", lo, hi, text);
      },
      fmt::format("NUMBER in [{:g}, {:g}]", lo, hi));
}

CLI::Validator integer_in(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        std::size_t used = 0;
        long long v = 0;
        try {
          v = std::stoll(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (!text.empty() && used == text.size() && v >= lo && v <= hi) return "";
        const bool list = text.find_first_of(",-", 1) != std::string::npos;
        return fmt::format("expected one integer in [{}, {}]{}, got '{}'", lo, hi,
                           list ? " (this command takes one value, not a list)" : "", text);
      },
      fmt::format("INT in [{}, {}]", lo, hi));
}

CLI::Validator open_probability() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto v = whole_number(text);
        if (v && *v > 0 && *v < 1) return "";
        return fmt::format("expected a probability in (0, 1), got '{}'", text);
      },
      "P in (0, 1)");
}

std::vector<double> parse_double_list(const std::string& option, const std::string& text) {
  std::vector<double> out;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || item.empty() || !std::isfinite(v))
      throw InputError(fmt::format("{}: expected a number, got '{}'", option, item));
    out.push_back(v);
  }
  if (out.empty()) throw InputError(fmt::format("{}: no values given", option));
  return out;
}

void add_format_option(CLI::App& sub, std::string& format) {
  sub.add_option("--format", format,
                 "Output format: table, csv (with '# key: value' lines first: pandas read_csv(f, comment='#')) "
                 "or json (one object: the footer's fields and rows)")
      ->check(CLI::IsMember({"table", "csv", "json"}))
      ->default_val("table");
  // Only this command's parse sets it, and a command line runs one command.
  sub.add_flag_callback("--wide", [] { set_wide_tables(true); },
                        "Text table: every column and the footer unwrapped, however wide (default: at most 120 characters)");
}

void add_engine_option(CLI::App& sub, std::string& engine) {
  sub.add_option("--engine", engine,
                 "Latency engine: roofline (analytic), sim (event-driven device models in SystemC; a GPU step "
                 "of one stream is its kernels simulated alone, in launch order) or sim-clocked "
                 "(cycle-by-cycle SystemC reference)")
      ->check(CLI::IsMember({"roofline", "sim", "sim-clocked"}))
      ->default_val("roofline");
}

models::ConfigRegistry registry(const GlobalOptions& g) {
  models::ConfigRegistry reg = g.config_dir.empty() ? models::ConfigRegistry() : models::ConfigRegistry(g.config_dir);
  // A config folder that is not a folder lists nothing and finds nothing: said once, here, not
  // as an empty `list` or a "no h100-sxm.yaml in /dev/zero/hardware" later.
  std::error_code ec;
  if (!std::filesystem::is_directory(reg.dir(), ec))
    throw models::InputError(fmt::format("{} {}: {}, expected the config folder (configs/ of the source tree)",
                                         g.config_dir.empty() ? "SPECDSE_CONFIG_DIR" : "--config-dir", reg.dir(),
                                         std::filesystem::exists(reg.dir(), ec) ? "not a folder" : "no such folder"));
  // Likewise a folder that holds none of a config folder's categories (an empty one, a typo'd
  // parent): every lookup would fail or list nothing.
  const char* categories[] = {"hardware", "models", "systems", "links", "stacks", "algorithms", "acceptance"};
  if (std::none_of(std::begin(categories), std::end(categories), [&](const char* c) {
        return std::filesystem::is_directory(std::filesystem::path(reg.dir()) / c, ec);
      }))
    throw models::InputError(fmt::format("{} {}: holds none of {}/, expected the config folder (configs/ of the source "
                                         "tree)", g.config_dir.empty() ? "SPECDSE_CONFIG_DIR" : "--config-dir", reg.dir(),
                                         fmt::join(std::begin(categories), std::end(categories), "/, ")));
  return reg;
}

void print_table(const Table& table, const std::string& format) {
  table.print(std::cout, parse_format(format));
}

void require_stdout_written() {
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout))
    throw models::InputError(fmt::format("writing to standard output failed: {}", std::strerror(errno ? errno : EIO)));
}

// The Python that runs plot scripts: `option` (--python), else $SPECDSE_PYTHON, else the first of
// python3 on PATH and the system's python3 that imports matplotlib (PATH may hold a pyenv or venv
// without it, while Debian's python3-matplotlib lives in the system one). Empty when none has it.
std::string find_plot_python(const std::string& option) {
  if (!option.empty()) return option;
  if (const char* e = std::getenv("SPECDSE_PYTHON"); e && *e) return e;
  for (const char* c : {"python3", "/usr/bin/python3", "/usr/local/bin/python3"})
    if (runs_matplotlib(c)) return c;
  return "";
}

bool runs_matplotlib(const std::string& python) {
  ProcessOptions quiet;
  quiet.out = quiet.err = Stream::null;
  return run_process({python, "-c", "import matplotlib"}, quiet).status == 0;
}

}  // namespace experiments
