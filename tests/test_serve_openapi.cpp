// The OpenAPI document against the router and against itself: every route is described,
// and every example fits its schema. (That the server answers the examples as documented
// is checked in test_serve_http.cpp, which runs a server.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "serve/openapi.h"
#include "serve/routes.h"
#include "support/json_schema.h"

namespace geoalign::serve {
namespace {

using nlohmann::json;
using testing::schema_problems;

const json& document() {
  static const json doc = json::parse(openapi_document());
  return doc;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string joined(const std::vector<std::string>& problems) {
  std::string out;
  for (const auto& p : problems) out += "\n  " + p;
  return out;
}

TEST(OpenApi, IsAnOpenApi31Document) {
  EXPECT_EQ(document()["openapi"], "3.1.0");
  EXPECT_TRUE(document()["info"].contains("title"));
  EXPECT_TRUE(document()["components"]["schemas"].contains("Error"));
}

TEST(OpenApi, DescribesEveryRouteTheRouterAnswersAndNoOther) {
  const json& paths = document()["paths"];
  for (const Route& route : routes()) {
    const std::string path(route.path);
    ASSERT_TRUE(paths.contains(path)) << path << " is not in src/serve/openapi.json";
    EXPECT_TRUE(paths[path].contains(lower(route.method))) << path << " lacks " << route.method;
    EXPECT_TRUE(paths[path][lower(route.method)]["responses"].contains("200")) << path;
  }
  for (const auto& [path, item] : paths.items()) {
    const Route* route = find_route(path, kModelPlaceholder);  // documented paths name the model {model}
    ASSERT_NE(route, nullptr) << path << " is documented but not routed";
    for (const auto& [method, operation] : item.items()) EXPECT_EQ(method, lower(route->method)) << path;
  }
}

// Each media type of a request body or response that has an example: the example must
// fit the schema.
TEST(OpenApi, EveryExampleFitsItsSchema) {
  std::size_t examples = 0;
  const auto check = [&](const json& content, const std::string& where) {
    for (const auto& [media, spec] : content.items()) {
      if (!spec.contains("example")) continue;
      ++examples;
      EXPECT_EQ(schema_problems(spec["schema"], spec["example"], document()), std::vector<std::string>{})
          << where << " " << media << joined(schema_problems(spec["schema"], spec["example"], document()));
    }
  };
  for (const auto& [path, item] : document()["paths"].items()) {
    for (const auto& [method, operation] : item.items()) {
      const std::string where = method + " " + path;
      if (operation.contains("requestBody")) {
        ASSERT_TRUE(operation["requestBody"]["content"]["application/json"].contains("example")) << where;
        check(operation["requestBody"]["content"], where + " request");
      }
      for (const auto& [status, response] : operation["responses"].items()) {
        ASSERT_TRUE(response.contains("content")) << where << " " << status;
        const bool has_example = std::any_of(response["content"].begin(), response["content"].end(),
                                             [](const json& spec) { return spec.contains("example"); });
        EXPECT_TRUE(has_example) << where << " " << status << " has no example";
        check(response["content"], where + " " + status);
      }
    }
  }
  EXPECT_GT(examples, 40u);
}

// The validator itself, on the document's schemas: it must catch what the server must
// never send.
TEST(OpenApi, SchemaCheckerCatchesWhatItShould) {
  const json& schemas = document()["components"]["schemas"];
  const json error_ref = {{"$ref", "#/components/schemas/Error"}};
  EXPECT_TRUE(schema_problems(error_ref, {{"error", "x"}, {"type", "too_large"}}, document()).empty());
  EXPECT_EQ(schema_problems(error_ref, {{"error", "x"}}, document()).size(), 1u);                      // required
  EXPECT_EQ(schema_problems(error_ref, {{"error", "x"}, {"type", "oops"}}, document()).size(), 1u);    // enum
  EXPECT_EQ(schema_problems(error_ref, {{"error", 1}, {"type", "internal"}}, document()).size(), 1u);  // type
  EXPECT_EQ(schema_problems(error_ref, {{"error", "x"}, {"type", "internal"}, {"extra", 1}}, document()).size(), 1u);
  const json result = {{"label", "exact_match"},
                       {"score", 1.5},  // maximum 1
                       {"probabilities", {{"not_match", -0.1}, {"partial_match", 0}, {"exact_match", 1}}}};  // minimum 0
  EXPECT_EQ(schema_problems(schemas["MatchResult"], result, document()).size(), 2u);
  EXPECT_EQ(schema_problems(schemas["MatchRequest"], {{"pairs", {{"a"}}}}, document()).size(), 1u);  // minItems
  EXPECT_EQ(schema_problems(schemas["ParseAdmin"]["properties"]["town"], nullptr, document()).size(), 0u);
  EXPECT_EQ(schema_problems({{"$ref", "#/components/schemas/Nothing"}}, 1, document()).size(), 1u);
}

}  // namespace
}  // namespace geoalign::serve
