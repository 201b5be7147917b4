// What Table writes reads back: CSV cells with commas, quotes and line breaks through the
// project's CSV reader, --format json strings with control characters through a JSON parser,
// and a manifest with awkward text through a YAML parser.
#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "experiments/output/table.hpp"
#include "experiments/reproductions/manifest.hpp"
#include "sim/io/csv.hpp"

using experiments::Number;
using experiments::OutputFormat;
using experiments::Table;

namespace {

const std::vector<std::string> kAwkward = {"plain", "a,b", "say \"hi\"", "two\nlines", "tab\there\x01", "# not a comment"};

Table awkward_table() {
  Table t({"name", "value"});
  for (std::size_t i = 0; i < kAwkward.size(); ++i) t.add_row({kAwkward[i], Number{double(i) + 0.5, 4}});
  return t;
}

}  // namespace

TEST_CASE("table io: CSV cells read back as written") {
  std::istringstream in(awkward_table().to_string(OutputFormat::csv));
  sim::CsvReadOptions o;
  o.skip_comments = false;  // a '#' cell is data here
  sim::CsvReader reader(in, "table.csv", o);
  sim::CsvRecord r;
  REQUIRE(reader.next(r));
  CHECK(r.cells == std::vector<std::string>{"name", "value"});
  for (std::size_t i = 0; i < kAwkward.size(); ++i) {
    REQUIRE(reader.next(r));
    CHECK(r.cells.at(0) == kAwkward[i]);
    CHECK(std::stod(r.cells.at(1)) == double(i) + 0.5);
  }
  CHECK_FALSE(reader.next(r));
}

TEST_CASE("table io: plain CSV keeps its bytes") {
  Table t({"model", "x", "tokens_per_s"});
  t.add_row({std::string("llama-3.2-1b"), std::int64_t(4), Number{123.456789, 4}});
  CHECK(t.to_string(OutputFormat::csv) == "model,x,tokens_per_s\nllama-3.2-1b,4,123.456789\n");
  CHECK(t.to_string(OutputFormat::json) ==
        "{\n  \"rows\": [\n    {\"model\": \"llama-3.2-1b\", \"x\": 4, \"tokens_per_s\": 123.456789}\n  ]\n}\n");
}

TEST_CASE("table io: the footer and meta fields lead CSV as '# key: value' lines and are JSON keys beside the rows") {
  Table t({"model", "x"});
  t.add_row({std::string("llama-3.2-1b"), std::int64_t(4)});
  t.add_meta("winner", std::string("chain SD\n(two lines)"));
  t.add_meta("caveats", std::vector<std::string>{"a", "b \"quoted\""});
  t.set_footer("best: chain SD");
  CHECK(t.to_string(OutputFormat::csv) ==
        "# winner: chain SD (two lines)\n# caveats: a | b \"quoted\"\n# footer: best: chain SD\nmodel,x\nllama-3.2-1b,4\n");
  const auto j = nlohmann::json::parse(t.to_string(OutputFormat::json));
  CHECK(j.at("winner") == "chain SD\n(two lines)");
  CHECK(j.at("caveats").size() == 2);
  CHECK(j.at("caveats")[1] == "b \"quoted\"");
  CHECK(j.at("footer") == "best: chain SD");
  CHECK(j.at("rows")[0].at("x") == 4);
  CHECK_THROWS(t.add_meta("winner", std::string("again")));
  CHECK_THROWS(t.add_meta("rows", std::string("reserved")));
  // The text table keeps the footer, word-wrapped to 120 characters.
  const std::string long_footer(150, 'x');
  t.set_footer("short words " + std::string(60, 'y') + " " + std::string(60, 'z'));
  const std::string text = t.to_string(OutputFormat::table);
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) CHECK(l.size() <= 120);
  CHECK(experiments::wrap_footer(long_footer) == long_footer);  // one word: its own line, uncut
}

TEST_CASE("table io: --format json is valid JSON whatever the strings hold") {
  const auto j = nlohmann::json::parse(awkward_table().to_string(OutputFormat::json)).at("rows");
  REQUIRE(j.size() == kAwkward.size());
  for (std::size_t i = 0; i < kAwkward.size(); ++i) {
    CHECK(j[i]["name"].get<std::string>() == kAwkward[i]);
    CHECK(j[i]["value"].get<double>() == double(i) + 0.5);
  }
}

TEST_CASE("table io: a manifest with awkward text is YAML that reads back") {
  experiments::ManifestInfo m{"r", "Title: with # and \"quotes\"\nand a line", "roofline", "/nonexistent",
                              {"/nonexistent/in.csv (a note: yes)"}, {"r.csv", "no"}};
  const YAML::Node y = YAML::Load(experiments::manifest_yaml(m));
  CHECK(y["title"].as<std::string>() == m.title);
  CHECK(y["inputs"][0]["path"].as<std::string>() == "<config_dir>/in.csv");
  CHECK(y["inputs"][0]["note"].as<std::string>() == "a note: yes");
  CHECK(y["inputs"][0]["fnv1a64"].as<std::string>() == "missing");
  CHECK(y["outputs"][1].as<std::string>() == "no");
}

TEST_CASE("table io: a manifest lists a repeated input once, where it first came") {
  // Reproductions over several systems or models hand in their shared files more than once.
  experiments::ManifestInfo m{"r", "T", "roofline", "/nonexistent",
                              {"/nonexistent/a.yaml", "/nonexistent/b.yaml", "/nonexistent/a.yaml"}, {"r.csv"}};
  const YAML::Node y = YAML::Load(experiments::manifest_yaml(m));
  REQUIRE(y["inputs"].size() == 2);
  CHECK(y["inputs"][0]["path"].as<std::string>() == "<config_dir>/a.yaml");
  CHECK(y["inputs"][1]["path"].as<std::string>() == "<config_dir>/b.yaml");
}

TEST_CASE("table io: a manifest that differs only by its commit counts as unchanged, any other difference does not") {
  experiments::ManifestInfo m{"r", "T", "roofline", "/nonexistent", {"/nonexistent/in.csv"}, {"r.csv"}};
  const std::string fresh = experiments::manifest_yaml(m);
  std::string at_other_commit = fresh;
  const auto at = at_other_commit.find("git_commit: \"");
  REQUIRE(at != std::string::npos);
  at_other_commit.replace(at + 13, 7, "0123456");
  REQUIRE(at_other_commit != fresh);
  CHECK(experiments::manifest_unchanged(at_other_commit, fresh));
  CHECK(experiments::manifest_unchanged(fresh, fresh));
  m.engine = "sim";
  CHECK_FALSE(experiments::manifest_unchanged(fresh, experiments::manifest_yaml(m)));
  CHECK_FALSE(experiments::manifest_unchanged("", fresh));
}

TEST_CASE("table io: a text table of more numbers than 120 characters hold goes on in blocks, each led by the first column") {
  std::vector<std::string> columns = {"method"};
  for (int c = 0; c < 14; ++c) columns.push_back("measured_value_" + std::to_string(c));
  Table t(columns);
  for (const char* method : {"prior-score", "width-first"}) {
    std::vector<experiments::Cell> row = {std::string(method)};
    for (int c = 0; c < 14; ++c) row.push_back(Number{1000.0 + c, 6});
    t.add_row(row);
  }
  const std::string text = t.to_string(OutputFormat::table);
  std::istringstream lines(text);
  int headers = 0;
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    CHECK(line.size() <= experiments::kTableWidth);
    if (line.rfind("method", 0) == 0) ++headers;
  }
  CHECK(headers >= 2);  // a block per ~6 columns, each starting with the leader's header
  for (int c = 0; c < 14; ++c) CHECK_THAT(text, Catch::Contains("measured_value_" + std::to_string(c)));
  CHECK_THAT(text, Catch::Contains("1013"));  // the last column's values are shown, not dropped
  CHECK_THAT(text, Catch::Contains("continue in"));
  // --wide: one block, as wide as it takes.
  experiments::set_wide_tables(true);
  const std::string wide = t.to_string(OutputFormat::table);
  experiments::set_wide_tables(false);
  CHECK(wide.find("continue in") == std::string::npos);
  CHECK(wide.substr(0, wide.find('\n')).size() > experiments::kTableWidth);
  // A leader wider than half a line is cut to half: every block still fits.
  Table long_names(columns);
  std::vector<experiments::Cell> row = {std::string(150, 'n')};
  for (int c = 0; c < 14; ++c) row.push_back(Number{1000.0 + c, 6});
  long_names.add_row(row);
  std::istringstream long_lines(long_names.to_string(OutputFormat::table));
  for (std::string line; std::getline(long_lines, line);) {
    INFO(line);
    CHECK(line.size() <= experiments::kTableWidth);
  }
}
