// tests/models/test_registry.cpp — get_model / list_models against torchvision 0.14's registry
// (tests/reference/zoo_registry.json, made by tests/reference/make_zoo_registry_references.py): the same names,
// the named builder's model with num_classes passed on, torchvision's message for an unknown name.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "models/registry.h"
#include "tests/support/reference_files.h"

namespace tl::models {
namespace {

const nlohmann::json& registry_reference() {
  static const nlohmann::json data = nlohmann::json::parse(testing::read_reference("zoo_registry.json"));
  return data;
}

int64_t parameter_count(const nn::Module& m) {
  int64_t n = 0;
  for (const auto& [name, p] : m.named_parameters()) n += p.numel();
  return n;
}

TEST_CASE("list_models names every classification builder torchvision.models registers, sorted") {
  CHECK(list_models() == registry_reference()["list_models"].get<std::vector<std::string>>());
}

TEST_CASE("get_model builds the named model with num_classes passed on, matching the name in lower case") {
  for (const auto& item : registry_reference()["parameters"].items()) {
    const std::string name = item.key();
    CAPTURE(name);
    CHECK(parameter_count(*get_model(name, {.num_classes = 10})) == item.value().get<int64_t>());
  }
}

TEST_CASE("get_model refuses an unknown name with torchvision's message") {
  CHECK_THROWS_WITH_AS(get_model("ResNet-18"), registry_reference()["unknown_message"].get<std::string>().c_str(), Error);
}

}  // namespace
}  // namespace tl::models
