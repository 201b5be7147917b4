// sim/io/csv: the one CSV reader and writer round-trips every cell (RFC 4180 quoting), keeps
// plain cells byte for byte, and names file and line in a one-line error.
#include <catch2/catch.hpp>

#include <sstream>

#include "models/config_error.hpp"
#include "sim/io/csv.hpp"

namespace {

std::vector<sim::CsvRecord> read_all(const std::string& text, sim::CsvReadOptions o = {}) {
  std::istringstream in(text);
  sim::CsvReader reader(in, "t.csv", o);
  std::vector<sim::CsvRecord> out;
  for (sim::CsvRecord r; reader.next(r);) out.push_back(r);
  return out;
}

}  // namespace

TEST_CASE("csv: plain cells are written unchanged") {
  CHECK(sim::csv_line({"a", "1.5", "", "x y"}) == "a,1.5,,x y");
  CHECK(sim::csv_cell("llama-3.2-1b") == "llama-3.2-1b");
}

TEST_CASE("csv: cells with commas, quotes and line breaks are quoted") {
  CHECK(sim::csv_cell("a,b") == "\"a,b\"");
  CHECK(sim::csv_cell("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(sim::csv_cell("two\nlines") == "\"two\nlines\"");
  CHECK(sim::csv_cell("cr\r") == "\"cr\r\"");
}

TEST_CASE("csv: what the writer writes reads back cell for cell") {
  const std::vector<std::vector<std::string>> rows = {
      {"name", "note", "value"}, {"a,b", "say \"hi\"", "1"}, {"", "two\nlines", "\"\""}, {"x", "", ""}};
  std::string text;
  for (const auto& r : rows) text += sim::csv_line(r) + "\n";
  const auto back = read_all(text);
  REQUIRE(back.size() == rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) CHECK(back[i].cells == rows[i]);
  CHECK(back[2].line == 3);
  CHECK(back[3].line == 5);  // the record before spans two lines
  CHECK(back[2].text == ",\"two\nlines\",\"\"\"\"\"\"");
}

TEST_CASE("csv: comments, blank lines, CRLF and a trailing comma") {
  const auto r = read_all("# comment\n\na,b,\r\n  # indented comment\nc,\"#not a comment\"\n");
  REQUIRE(r.size() == 2);
  CHECK(r[0].cells == std::vector<std::string>{"a", "b", ""});
  CHECK(r[0].line == 3);
  CHECK(r[1].cells == std::vector<std::string>{"c", "#not a comment"});
  sim::CsvReadOptions keep;
  keep.skip_comments = false;
  CHECK(read_all("#x,y\n", keep).at(0).cells == std::vector<std::string>{"#x", "y"});
}

TEST_CASE("csv: trim drops blanks around cells but not inside quotes") {
  sim::CsvReadOptions o;
  o.trim = true;
  CHECK(read_all(" a , b\t,\" c \" ,d\n", o).at(0).cells == std::vector<std::string>{"a", "b", " c ", "d"});
  CHECK(sim::csv_split(" a , b ", "x", 1, true) == std::vector<std::string>{"a", "b"});
  CHECK(sim::csv_split(" a , b ") == std::vector<std::string>{" a ", " b "});
}

TEST_CASE("csv: an open quote or text after a closing quote is a one-line error naming file and line") {
  try {
    read_all("a,b\nc,\"open\nstill open\n");
    FAIL("no error");
  } catch (const models::InputError& e) {
    const std::string m = e.what();
    CHECK(m.find("t.csv: line 3:") == 0);
    CHECK(m.find("opened on line 2") != std::string::npos);
    CHECK(m.find('\n') == std::string::npos);
  }
  try {
    read_all("a,b\n\"x\"y,z\n");
    FAIL("no error");
  } catch (const models::InputError& e) {
    CHECK(std::string(e.what()) == "t.csv: line 2: expected ',' after the closing '\"' of a quoted cell, got 'y,z'");
  }
}
