#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "serve/api.h"

namespace geoalign::serve {
namespace {

ApiError error_of(Endpoint e, const std::string& body, std::size_t max_items = 8) {
  auto r = parse_request(e, body, max_items);
  if (auto* err = std::get_if<ApiError>(&r)) return *err;
  return {200, "", ""};
}

TEST(ServeApi, ParsesMatchEmbedAndKServe) {
  auto m = std::get<ParsedRequest>(parse_request(Endpoint::Match, R"({"pairs":[["北京","上海"],["a","b"]]})", 8));
  EXPECT_EQ(m.first, (std::vector<std::string>{"北京", "a"}));
  EXPECT_EQ(m.second, (std::vector<std::string>{"上海", "b"}));
  auto e = std::get<ParsedRequest>(parse_request(Endpoint::Embed, R"({"addresses":["杭州"]})", 8));
  EXPECT_EQ(e.first, (std::vector<std::string>{"杭州"}));
  auto k = std::get<ParsedRequest>(parse_request(Endpoint::KServeInfer,
      R"({"id":"7","inputs":[{"name":"addr1","datatype":"BYTES","shape":[2],"data":["a","b"]},
                              {"name":"addr2","datatype":"BYTES","shape":[2],"data":["c","d"]}]})", 8));
  EXPECT_EQ(k.first, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(k.second, (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(k.id, "7");
  auto nested = std::get<ParsedRequest>(parse_request(Endpoint::KServeInfer,
      R"({"inputs":[{"name":"pairs","datatype":"BYTES","shape":[1,2],"data":[["x","y"]]}]})", 8));
  EXPECT_EQ(nested.second, (std::vector<std::string>{"y"}));
  auto flat = std::get<ParsedRequest>(parse_request(Endpoint::KServeInfer,
      R"({"inputs":[{"name":"pairs","datatype":"BYTES","shape":[2,2],"data":["x","y","z","w"]}]})", 8));
  EXPECT_EQ(flat.first, (std::vector<std::string>{"x", "z"}));
}

TEST(ServeApi, StatusForEveryKindOfBadInput) {
  EXPECT_EQ(error_of(Endpoint::Match, "{\"pairs\": [").status, 400);
  EXPECT_EQ(error_of(Endpoint::Match, "{\"pairs\": [").type, "invalid_json");
  EXPECT_EQ(error_of(Endpoint::Match, "[]").status, 400);
  EXPECT_EQ(error_of(Endpoint::Match, R"({"pairs": 1E99999})").status, 400);
  EXPECT_EQ(error_of(Endpoint::Match, "{}").status, 400);
  EXPECT_EQ(error_of(Endpoint::Match, R"({"pairs":"x"})").status, 400);
  EXPECT_EQ(error_of(Endpoint::Match, R"({"pairs":[]})").status, 400);
  EXPECT_EQ(error_of(Endpoint::Match, R"({"pairs":[["a"]]})").status, 400);
  EXPECT_EQ(error_of(Endpoint::Match, R"({"pairs":[["a", 3]]})").status, 400);
  EXPECT_EQ(error_of(Endpoint::Match, R"({"pairs":[["a", ""]]})").status, 422);
  EXPECT_EQ(error_of(Endpoint::Match, R"({"pairs":[["a", " \t"]]})").status, 422);
  EXPECT_EQ(error_of(Endpoint::Match, "{\"pairs\":[[\"a\", \"\xFF\"]]}").status, 400);  // JSON must be UTF-8
  EXPECT_EQ(error_of(Endpoint::Match, R"({"pairs":[["a", "\ud800"]]})").status, 400);    // lone surrogate
  EXPECT_EQ(error_of(Endpoint::Match, R"({"pairs":[["a","b"],["a","b"],["a","b"]]})", 2).status, 413);
  EXPECT_EQ(error_of(Endpoint::Embed, R"({"addresses":[1]})").status, 400);
  EXPECT_EQ(error_of(Endpoint::Embed, R"({"addresses":[""]})").status, 422);
  EXPECT_EQ(error_of(Endpoint::KServeInfer, R"({"inputs":[]})").status, 400);
  EXPECT_EQ(error_of(Endpoint::KServeInfer,
                     R"({"inputs":[{"name":"addr1","data":["a"]},{"name":"addr2","data":["b","c"]}]})").status, 400);
  EXPECT_EQ(error_of(Endpoint::KServeInfer, R"({"inputs":[{"name":"addr1","datatype":"FP32","data":[1]}]})").status, 400);
}

TEST(ServeApi, ParsesSearchWithItsDefaults) {
  auto plain = std::get<ParsedRequest>(parse_request(Endpoint::Search, R"({"queries":["杭州","北京"]})", 8));
  EXPECT_EQ(plain.first, (std::vector<std::string>{"杭州", "北京"}));
  EXPECT_EQ(plain.search.k, index::SearchOptions{}.k);
  EXPECT_EQ(plain.search.rerank, index::SearchOptions{}.rerank);
  EXPECT_EQ(plain.search.region, "");
  auto full = std::get<ParsedRequest>(
      parse_request(Endpoint::Search, R"({"queries":["杭州"],"k":3,"rerank":0,"region":"北京市"})", 8));
  EXPECT_EQ(full.search.k, 3u);
  EXPECT_EQ(full.search.rerank, 0u);
  EXPECT_EQ(full.search.region, "北京市");
  EXPECT_TRUE(std::get<ParsedRequest>(parse_request(Endpoint::Search, R"({"queries":[]})", 8)).first.empty());
  EXPECT_EQ(error_of(Endpoint::Search, R"({"queries":["a","b","c"]})", 2).status, 413);
  EXPECT_EQ(error_of(Endpoint::Search, R"({"queries":["a"],"k":1.5})").status, 400);
  EXPECT_EQ(error_of(Endpoint::Search, R"({"queries":["a"],"k":10001})").status, 400);
  EXPECT_EQ(error_of(Endpoint::Search, R"({"queries":["a"],"region":" "})").status, 400);
  EXPECT_EQ(inference_endpoint("/v1/search"), Endpoint::Search);
}

TEST(ServeApi, ErrorBodyIsJsonWithType) {
  const auto body = nlohmann::json::parse(render_error({422, "invalid_text", "pairs[0][1] is empty"}));
  EXPECT_EQ(body["error"], "pairs[0][1] is empty");
  EXPECT_EQ(body["type"], "invalid_text");
}

}  // namespace
}  // namespace geoalign::serve
