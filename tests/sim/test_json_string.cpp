// sim/io/json_string: JSON string literals through nlohmann-json. Ordinary text is written as
// before (quotes and backslashes escaped, UTF-8 kept), control characters as JSON requires.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "sim/io/json_string.hpp"

TEST_CASE("json_string: ordinary strings, quotes and backslashes") {
  CHECK(sim::json_string("llama-3.2-1b") == "\"llama-3.2-1b\"");
  CHECK(sim::json_string("a \"b\" \\ c/d") == "\"a \\\"b\\\" \\\\ c/d\"");
  CHECK(sim::json_string("µs é") == "\"µs é\"");
}

TEST_CASE("json_string: control characters and stray bytes still give valid JSON that reads back") {
  const std::string s = std::string("tab\there\nnew\x01 end");
  const std::string j = sim::json_string(s);
  CHECK(j == "\"tab\\there\\nnew\\u0001 end\"");
  CHECK(nlohmann::json::parse(j).get<std::string>() == s);
  CHECK_NOTHROW(nlohmann::json::parse(sim::json_string("bad \xff byte")));
}
