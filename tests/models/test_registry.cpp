// The one registry template (models/registry.hpp) every self-registering factory uses: a name is
// registered once, a second registration is an error naming the registry and the name, and every
// shipped registry's names are unique (they registered without error at start-up).
#include <catch2/catch.hpp>

#include <set>
#include <stdexcept>
#include <string>

#include "models/device_kind.hpp"
#include "models/drafts/draft_builder.hpp"
#include "models/registry.hpp"

TEST_CASE("registry: a second registration of a name is an error, never a silent override") {
  models::Registry<std::string, int> r("toy things");
  r.add("a", 1);
  r.add("b", 2);
  try {
    r.add("a", 3);
    FAIL("a duplicate registered");
  } catch (const std::logic_error& e) {
    CHECK(std::string(e.what()).find("toy things") != std::string::npos);
    CHECK(std::string(e.what()).find("'a'") != std::string::npos);
  }
  REQUIRE(r.find("a") != nullptr);
  CHECK(*r.find("a") == 1);  // the first registration stands
  CHECK(r.find("c") == nullptr);
  CHECK(r.keys() == std::vector<std::string>{"a", "b"});
}

TEST_CASE("registry: pair keys name both parts in the message") {
  models::Registry<std::pair<std::string, std::string>, int> r("engines");
  r.add({"roofline", "gpu"}, 1);
  CHECK_THROWS_WITH(r.add({"roofline", "gpu"}, 2), Catch::Contains("roofline / gpu"));
}

TEST_CASE("registry: the shipped registries list each name once") {
  // (Engines register in roofline/ and sim/, which this binary does not link.)
  for (const auto& names : {models::device_kind_names(), models::draft_kinds()}) {
    REQUIRE(!names.empty());
    CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
  }
}
