#pragma once
// Typed, validated access to a YAML config. Every read names the file and the dotted key path,
// so a bad value produces "configs/hardware/v80.yaml: memory.bandwidth_gbs: expected a number
// > 0, got -3". Required keys have no silent defaults; optional ones say so at the call site.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

namespace models {

// Every map in the document (nested ones too: a tree-shape table, a stack per method) has each
// key once; yaml-cpp keeps a repeated key and lookups see only the first. Plain integer keys are
// compared by value (3, 03, +3 and 0x3 are one verification length). `file` names the document in
// the error; `prefix` is the key path of `node`.
void check_unique_keys(const YAML::Node& node, const std::string& file, const std::string& prefix = "");

class YamlReader {
 public:
  // Parses `path`; a syntax error becomes an InputError naming the file and line.
  static YamlReader open(const std::string& path);
  // A document already in memory (an edited copy of a config), named `file` in errors; its keys
  // must be unique as open() checks them.
  static YamlReader from_node(const YAML::Node& root, const std::string& file);

  YamlReader child(const std::string& key) const;            // required map
  std::optional<YamlReader> optional_child(const std::string& key) const;
  bool has(const std::string& key) const;
  // Unknown keys are errors: names the first key not in `known` and the closest known key.
  void allow_only(const std::vector<std::string>& known) const;
  // Elements of a required list of maps (each a reader with the key path `key[i]`).
  std::vector<YamlReader> map_list(const std::string& key) const;

  std::string string(const std::string& key) const;
  std::string string_or(const std::string& key, const std::string& fallback) const;
  std::string one_of(const std::string& key, const std::vector<std::string>& allowed) const;
  double number(const std::string& key) const;                // any finite number
  double positive(const std::string& key) const;              // > 0
  double non_negative(const std::string& key) const;          // >= 0
  double fraction(const std::string& key) const;              // in (0, 1]
  long long positive_int(const std::string& key) const;       // integer >= 1
  long long non_negative_int(const std::string& key) const;   // integer >= 0
  long long positive_int_or(const std::string& key, long long fallback) const;
  // An integer in [lo, hi] that fits an int: configs hold sizes that later code multiplies and
  // stores in int, so a value past a sane bound is an error naming it, never a wrapped number.
  int int_in(const std::string& key, long long lo, long long hi) const;
  int int_in_or(const std::string& key, long long lo, long long hi, int fallback) const;
  bool boolean(const std::string& key) const;
  bool boolean_or(const std::string& key, bool fallback) const;
  std::vector<long long> positive_int_list(const std::string& key) const;

  const std::string& file() const { return file_; }
  std::string key_path(const std::string& key) const;
  const YAML::Node& node() const { return node_; }
  [[noreturn]] void fail(const std::string& key, const std::string& expected,
                         const std::string& got) const;

 private:
  YamlReader(std::string file, std::string prefix, YAML::Node node);
  YAML::Node required(const std::string& key) const;
  std::string file_;
  std::string prefix_;
  YAML::Node node_;
};

}  // namespace models
