// Figures that README.md and docs/ quote from a command are that command's output: each
//   <!-- figures: ARGS | COLUMN=VALUE,... | COLUMN=QUOTED ... -->
// (COLUMN*FACTOR=QUOTED where the text quotes the column scaled, e.g. tbt_mean_s*1000=41.8 in ms)
// comment names the command (`specdse ARGS`, run here with --format csv), the row (the first whose
// cells equal the selectors; empty: the first row) and the figures the text beside it quotes. The
// test reruns the command and fails when a quoted number differs from the output by more than its
// rounding (half a unit of its last quoted digit) or a quoted text differs at all, and when a
// quoted figure no longer appears in the text that follows the comment (so the comment and the
// prose cannot drift apart). docs/cli.md says how to add one.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>

#include "tests/experiments/cli_run.hpp"

namespace {

namespace fs = std::filesystem;

// Lines after a comment in which its quoted figures must appear (a table or a paragraph).
constexpr int kQuoteWindowLines = 30;

struct QuotedFigures {
  std::string file;
  int line = 0;
  std::string args;
  std::vector<std::pair<std::string, std::string>> select, expect;
  std::string following;  // the text after the comment (kQuoteWindowLines lines)
};

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

// "a=1,b=x" or "a=1 b=2" -> pairs (a value holds no separator).
std::vector<std::pair<std::string, std::string>> pairs(const std::string& text, char separator) {
  std::vector<std::pair<std::string, std::string>> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, separator);) {
    item = trim(item);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    REQUIRE(eq != std::string::npos);
    out.emplace_back(trim(item.substr(0, eq)), trim(item.substr(eq + 1)));
  }
  return out;
}

std::vector<QuotedFigures> quoted_figures() {
  std::vector<fs::path> files = {fs::path(SPECDSE_SOURCE_DIR) / "README.md"};
  for (const auto& e : fs::directory_iterator(fs::path(SPECDSE_SOURCE_DIR) / "docs"))
    if (e.path().extension() == ".md") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  // A comment on a line of its own (the format quoted in prose, inside backticks, is not one).
  const std::regex comment(R"(^<!-- figures: (.*) -->$)");
  std::vector<QuotedFigures> out;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::smatch m;
      if (!std::regex_search(lines[i], m, comment)) continue;
      const std::string body = m[1];
      const auto bar1 = body.find(" | "), bar2 = body.rfind(" | ");
      INFO(f.string() << ":" << i + 1);
      REQUIRE(bar1 != std::string::npos);
      REQUIRE(bar2 != bar1);
      QuotedFigures q;
      q.file = fs::path(f).filename().string();
      q.line = int(i) + 1;
      q.args = trim(body.substr(0, bar1));
      q.select = pairs(body.substr(bar1 + 3, bar2 - bar1 - 3), ',');
      q.expect = pairs(body.substr(bar2 + 3), ' ');
      for (std::size_t k = i + 1; k < lines.size() && k <= i + kQuoteWindowLines; ++k) q.following += lines[k] + "\n";
      out.push_back(std::move(q));
    }
  }
  return out;
}

// Digits after the decimal point of a quoted number ("4.60" -> 2, "14" -> 0); -1: not a number.
int quoted_decimals(const std::string& s) {
  static const std::regex number(R"(-?[0-9]+(\.([0-9]+))?)");
  std::smatch m;
  if (!std::regex_match(s, m, number)) return -1;
  return m[2].matched ? int(m[2].length()) : 0;
}

}  // namespace

TEST_CASE("docs: every figure README and docs quote from a command is what the command prints") {
  const auto all = quoted_figures();
  REQUIRE(all.size() >= 5);  // the README's and docs/plan.md's quoted tables at least
  std::map<std::string, std::vector<std::vector<std::string>>> outputs;  // one run per command
  for (const auto& q : all) {
    INFO(q.file << ":" << q.line << ": specdse " << q.args);
    auto it = outputs.find(q.args);
    if (it == outputs.end()) {
      // A reproduction writes its files under the build folder, never into the source tree.
      const std::string extra = q.args.rfind("reproduce ", 0) == 0
                                    ? " --no-plots --out " + std::string(SPECDSE_TEST_BINARY_DIR) + "/docs_figures"
                                    : "";
      const auto r = cli_test::run(q.args + " --format csv" + extra, false);
      REQUIRE(r.status == 0);
      it = outputs.emplace(q.args, cli_test::csv(r.output)).first;
    }
    const auto& table = it->second;
    REQUIRE(table.size() >= 2);
    const auto& header = table.front();
    const std::vector<std::string>* row = nullptr;
    for (std::size_t r = 1; r < table.size() && !row; ++r) {
      bool match = true;
      for (const auto& [column, value] : q.select) match = match && table[r][cli_test::column(header, column)] == value;
      if (match) row = &table[r];
    }
    REQUIRE(row != nullptr);
    for (const auto& [key, quoted] : q.expect) {
      INFO("column " << key << ", quoted " << quoted);
      // COLUMN*FACTOR: the text quotes the column in other units (tbt_mean_s*1000 in ms).
      const auto star = key.find('*');
      const std::string column = key.substr(0, star);
      const double factor = star == std::string::npos ? 1.0 : std::stod(key.substr(star + 1));
      const std::string& actual = (*row)[cli_test::column(header, column)];
      const int decimals = quoted_decimals(quoted);
      if (decimals < 0) {
        CHECK(actual == quoted);
      } else {
        REQUIRE_FALSE(actual.empty());
        const double tolerance = 0.5 * std::pow(10.0, -decimals) * (1 + 1e-9);
        CHECK(std::fabs(std::stod(actual) * factor - std::stod(quoted)) <= tolerance);
      }
      CHECK(q.following.find(quoted) != std::string::npos);
    }
  }
}

TEST_CASE("docs: cli.md's list of shipped names holds every shipped hardware, algorithm, system, link and host") {
  // The paragraph a user reads for what --hw, --algorithm, --system, ... accept (docs/cli.md,
  // "Names:"); a config added without it would be there but undocumented.
  std::ifstream in(fs::path(SPECDSE_SOURCE_DIR) / "docs" / "cli.md");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = text.find("\nNames: ");
  REQUIRE(at != std::string::npos);
  const std::string names = text.substr(at, text.find("\n\n", at + 1) - at);
  for (const char* folder : {"hardware", "algorithms", "systems", "links", "hosts"}) {
    for (const auto& e : fs::directory_iterator(fs::path(SPECDSE_SOURCE_DIR) / "configs" / folder)) {
      if (e.path().extension() != ".yaml") continue;
      const std::string name = e.path().stem().string();
      // A whole word of the paragraph (`v80`, not the v80 inside another name).
      const std::regex word("(^|[`\\s(])" + std::regex_replace(name, std::regex(R"([.\-])"), R"(\$&)") +
                            "($|[`\\s;,)])");
      INFO(folder << "/" << name << ".yaml");
      CHECK(std::regex_search(names, word));
    }
  }
}
