// "Did you mean": the known name a misspelt one most likely meant.
#include <catch2/catch.hpp>

#include "models/closest_name.hpp"

using models::closest_name;
using models::did_you_mean;

TEST_CASE("closest_name: a name cut short or extended wins over a near miss") {
  const std::vector<std::string> hardware = {"a100-80gb", "h100-sxm", "h200", "v80", "u280"};
  CHECK(closest_name("h100", hardware) == "h100-sxm");  // not h200, one edit away
  CHECK(closest_name("H100", hardware) == "h100-sxm");
  CHECK(closest_name("v81", hardware) == "v80");
  const std::vector<std::string> models_ = {"llama-3.1-70b", "llama-3.1-8b-instruct", "llama-3.2-1b"};
  CHECK(closest_name("llama-3.1-8b", models_) == "llama-3.1-8b-instruct");
  CHECK(closest_name("batchsize", {"batch", "context"}) == "batch");
  CHECK(closest_name("contexts", {"batch", "context"}) == "context");
}

TEST_CASE("closest_name: short abbreviations, and no guess for a name far from all") {
  CHECK(closest_name("--hardware", {"--hw", "--model", "--context"}) == "--hw");
  CHECK(closest_name("hardware", {"hw", "model"}) == "hw");
  CHECK(closest_name("xml", {"table", "csv", "json"}).empty());
  CHECK(closest_name("sms", {"task", "model", "batch"}).empty());
  CHECK(closest_name("colour", {"name", "layers", "hidden_size"}).empty());
  CHECK(closest_name("", {"a"}).empty());
  CHECK(closest_name("anything", {}).empty());
  CHECK(did_you_mean("gama", {"gamma", "alpha"}) == " (did you mean 'gamma'?)");
  CHECK(did_you_mean("zzzzzz", {"gamma", "alpha"}).empty());
}
