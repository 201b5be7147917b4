#include "models/yaml_reader.hpp"
#include "models/input_file.hpp"

#include "models/closest_name.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>
#include <fstream>

#include "models/config_error.hpp"

namespace models {

namespace {
// A scalar as the error message shows it: on one line, printable, and short (a binary file or a
// pasted paragraph must not turn the one-line error into many lines of noise).
std::string printable(const std::string& s) {
  constexpr std::size_t kShown = 60;
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < kShown; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    out += (c >= 0x20 && c < 0x7f) ? std::string(1, char(c)) : fmt::format("\\x{:02x}", c);
  }
  if (s.size() > kShown) out += fmt::format("... ({} bytes)", s.size());
  return out;
}

std::string describe(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsScalar()) return "'" + printable(n.Scalar()) + "'";
  if (n.IsSequence()) return "a list";
  return "a map";
}
// The scale of each unit a config key may end in (docs/reliability.md, "Physical scales"): wide
// enough for any device from a microcontroller to beyond today's largest, narrow enough that
// every time and rate derived from it stays finite and within the timeline's picosecond range.
struct UnitScale {
  const char* suffix;
  double min, max;
  const char* unit;
  const char* why;
};
constexpr UnitScale kUnitScales[] = {
    {"_gbs", 1e-3, 1e7, "GB/s", "1 MB/s to 10 PB/s"},
    {"_tflops_fp16", 1e-6, 1e6, "TFLOPS", "1 MFLOPS to 1 EFLOPS"},
    {"_mhz", 1, 1e5, "MHz", "1 MHz to 100 GHz"},
    {"_ghz", 1e-3, 100, "GHz", "1 MHz to 100 GHz"},
    {"_us", 1e-6, 1e7, "us", "1 ps to 10 s"},
    {"_gib", 1e-6, 1e6, "GiB", "1 KiB to 1 PiB"},
    {"_mib", 1e-3, 1e9, "MiB", "1 KiB to 1 PiB"},
    {"_kib", 1e-3, 1e12, "KiB", "1 byte to 1 PiB"},
    {"_bytes", 1, 1e15, "bytes", "1 byte to 1 PB"},
};

const UnitScale* unit_scale_of(const std::string& key) {
  for (const auto& u : kUnitScales) {
    const std::size_t n = std::strlen(u.suffix);
    if (key.size() > n && key.compare(key.size() - n, n, u.suffix) == 0) return &u;
  }
  return nullptr;
}

// Nesting deeper than any config needs is refused before the walk could exhaust the stack.
constexpr int kMaxNesting = 64;

// Nodes the walk visits at most: far beyond any config, and a bound on a document whose aliases
// (`*a` naming an anchored list of aliases, nested) would expand exponentially.
constexpr long long kMaxNodes = 1 << 20;

void check_unique_keys_at(const YAML::Node& node, const std::string& file, const std::string& prefix, int depth,
                          long long& visited) {
  if (++visited > kMaxNodes)
    throw InputError(fmt::format("{}: more than {} values (aliases expanded many times?)", file, kMaxNodes));
  if (depth > kMaxNesting)
    throw InputError(fmt::format("{}: {}: nested more than {} levels deep", file, prefix.empty() ? "(top level)" : prefix,
                                 kMaxNesting));
  const auto child_path = [&](const std::string& key) { return prefix.empty() ? key : prefix + "." + key; };
  if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i)
      check_unique_keys_at(node[i], file, fmt::format("{}[{}]", prefix, i), depth + 1, visited);
    return;
  }
  if (!node.IsMap()) return;
  std::vector<std::pair<std::string, std::string>> seen;  // (identity, as written)
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) continue;  // a non-text key is each loader's error, with its own words
    const std::string text = kv.first.Scalar();
    std::string identity = "text:" + text;
    long long as_int = 0;
    if (kv.first.Tag() == "?" && YAML::convert<long long>::decode(kv.first, as_int))
      identity = "int:" + std::to_string(as_int);
    const auto twin = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == identity; });
    if (twin != seen.end())
      throw InputError(twin->second == text
                           ? fmt::format("{}: {}: key given twice", file, child_path(printable(text)))
                           : fmt::format("{}: {}: key given twice (as '{}' and '{}')", file, child_path(printable(text)),
                                         printable(twin->second), printable(text)));
    seen.emplace_back(identity, text);
    check_unique_keys_at(kv.second, file, child_path(printable(text)), depth + 1, visited);
  }
}
}  // namespace

void check_unique_keys(const YAML::Node& node, const std::string& file, const std::string& prefix) {
  long long visited = 0;
  check_unique_keys_at(node, file, prefix, 0, visited);
}

YamlReader::YamlReader(std::string file, std::string prefix, YAML::Node node)
    : file_(std::move(file)), prefix_(std::move(prefix)), node_(std::move(node)) {}

YamlReader YamlReader::open(const std::string& path) {
  std::ifstream in = open_input_file(path);
  YAML::Node root;
  try {
    root = YAML::Load(in);
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}: line {}: malformed YAML: {}", path, e.mark.line + 1, e.msg));
  }
  return from_node(root, path);
}

YamlReader YamlReader::from_node(const YAML::Node& root, const std::string& file) {
  if (!root.IsMap()) throw_input_error(file, "(top level)", "a map of keys", describe(root));
  check_unique_keys(root, file);
  return YamlReader(file, "", root);
}

std::string YamlReader::key_path(const std::string& key) const {
  return prefix_.empty() ? key : prefix_ + "." + key;
}

void YamlReader::fail(const std::string& key, const std::string& expected,
                      const std::string& got) const {
  throw_input_error(file_, key_path(key), expected, got);
}

bool YamlReader::has(const std::string& key) const {
  const YAML::Node n = node_[key];
  return n.IsDefined() && !n.IsNull();
}

void YamlReader::allow_only(const std::vector<std::string>& known) const {
  // yaml-cpp keeps a repeated key and lookups see only the first: a second value would be
  // silently ignored, so a key given twice is an error too.
  std::vector<std::string> seen;
  for (const auto& kv : node_) {
    if (!kv.first.IsScalar()) fail("(key)", "a plain key name", describe(kv.first));
    const std::string key = printable(kv.first.Scalar());
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw InputError(fmt::format("{}: {}: key given twice", file_, key_path(key)));
    seen.push_back(key);
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    throw InputError(fmt::format("{}: {}: unknown key{}", file_, key_path(key), did_you_mean(key, known)));
  }
}

std::vector<YamlReader> YamlReader::map_list(const std::string& key) const {
  YAML::Node n = required(key);
  if (!n.IsSequence() || n.size() == 0) fail(key, "a non-empty list", describe(n));
  std::vector<YamlReader> out;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const std::string path = fmt::format("{}[{}]", key, i);
    if (!n[i].IsMap()) throw_input_error(file_, key_path(path), "a map", describe(n[i]));
    out.push_back(YamlReader(file_, key_path(path), n[i]));
  }
  return out;
}

YAML::Node YamlReader::required(const std::string& key) const {
  YAML::Node n = node_[key];
  if (!n.IsDefined() || n.IsNull()) fail(key, "a value (required key is missing)", "nothing");
  return n;
}

YamlReader YamlReader::child(const std::string& key) const {
  YAML::Node n = required(key);
  if (!n.IsMap()) fail(key, "a map", describe(n));
  return YamlReader(file_, key_path(key), n);
}

std::optional<YamlReader> YamlReader::optional_child(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return child(key);
}

std::string YamlReader::string(const std::string& key) const {
  YAML::Node n = required(key);
  if (!n.IsScalar()) fail(key, "a string", describe(n));
  return n.Scalar();
}

std::string YamlReader::string_or(const std::string& key, const std::string& fallback) const {
  return has(key) ? string(key) : fallback;
}

std::string YamlReader::one_of(const std::string& key,
                               const std::vector<std::string>& allowed) const {
  const std::string v = string(key);
  for (const auto& a : allowed)
    if (a == v) return v;
  fail(key, fmt::format("one of {}", fmt::join(allowed, "|")), "'" + v + "'");
}

double YamlReader::number(const std::string& key) const {
  YAML::Node n = required(key);
  double v = 0;
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, v) || !std::isfinite(v))
    fail(key, "a finite number", describe(n));
  // A key that names its unit holds a value on that unit's physical scale: 1e300 GB/s would
  // overflow to an infinite byte rate, 1e-300 GB/s would time a step at 10^300 s.
  if (const UnitScale* u = unit_scale_of(key); u && std::fabs(v) > 0 && (std::fabs(v) < u->min || std::fabs(v) > u->max))
    fail(key, fmt::format("a value in [{:g}, {:g}] {} ({})", u->min, u->max, u->unit, u->why), describe(n));
  return v;
}

double YamlReader::positive(const std::string& key) const {
  const double v = number(key);
  if (!(v > 0)) fail(key, "a number > 0", describe(node_[key]));
  return v;
}

double YamlReader::non_negative(const std::string& key) const {
  const double v = number(key);
  if (v < 0) fail(key, "a number >= 0", describe(node_[key]));
  return v;
}

double YamlReader::fraction(const std::string& key) const {
  const double v = number(key);
  if (!(v > 0 && v <= 1)) fail(key, "a fraction in (0, 1]", describe(node_[key]));
  return v;
}

long long YamlReader::positive_int(const std::string& key) const {
  const long long v = non_negative_int(key);
  if (v < 1) fail(key, "an integer >= 1", describe(node_[key]));
  return v;
}

long long YamlReader::non_negative_int(const std::string& key) const {
  YAML::Node n = required(key);
  long long v = 0;
  if (!n.IsScalar() || !YAML::convert<long long>::decode(n, v) || v < 0)
    fail(key, "an integer >= 0", describe(n));
  return v;
}

long long YamlReader::positive_int_or(const std::string& key, long long fallback) const {
  return has(key) ? positive_int(key) : fallback;
}

int YamlReader::int_in(const std::string& key, long long lo, long long hi) const {
  hi = std::min<long long>(hi, std::numeric_limits<int>::max());
  lo = std::max<long long>(lo, std::numeric_limits<int>::min());
  YAML::Node n = required(key);
  long long v = 0;
  if (!n.IsScalar() || !YAML::convert<long long>::decode(n, v) || v < lo || v > hi)
    fail(key, fmt::format("an integer in [{}, {}]", lo, hi), describe(n));
  return int(v);
}

int YamlReader::int_in_or(const std::string& key, long long lo, long long hi, int fallback) const {
  return has(key) ? int_in(key, lo, hi) : fallback;
}

bool YamlReader::boolean(const std::string& key) const {
  YAML::Node n = required(key);
  bool v = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v)) fail(key, "true or false", describe(n));
  return v;
}

bool YamlReader::boolean_or(const std::string& key, bool fallback) const {
  return has(key) ? boolean(key) : fallback;
}

std::vector<long long> YamlReader::positive_int_list(const std::string& key) const {
  YAML::Node n = required(key);
  if (!n.IsSequence()) fail(key, "a list of integers", describe(n));
  std::vector<long long> out;
  for (std::size_t i = 0; i < n.size(); ++i) {
    long long v = 0;
    if (!n[i].IsScalar() || !YAML::convert<long long>::decode(n[i], v) || v < 1)
      fail(fmt::format("{}[{}]", key, i), "an integer >= 1", describe(n[i]));
    out.push_back(v);
  }
  return out;
}

}  // namespace models
