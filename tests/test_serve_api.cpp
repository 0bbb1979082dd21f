#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "serve/api.h"
#include "support/binary_tensors.h"

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
  EXPECT_TRUE(std::get<ParsedRequest>(parse_request(Endpoint::Match, R"({"pairs":[]})", 8)).first.empty());
  EXPECT_EQ(error_of(Endpoint::Match, "").message, "request body is empty (a JSON object was expected)");
  EXPECT_EQ(error_of(Endpoint::Match, "{\"pairs\":[[\"a\", \"\xFF\"]]}").message,
            "request body is not valid UTF-8 (byte 18)");
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

// A shape must describe the data it comes with; inputs are named once, and only as the
// model's metadata names them.
TEST(ServeApi, KServeShapesAndNamesAreChecked) {
  auto kserve = [](const std::string& inputs) { return error_of(Endpoint::KServeInfer, R"({"inputs":[)" + inputs + "]}"); };
  const std::string b = R"({"name":"addr2","shape":[1],"data":["b"]})";
  EXPECT_NE(kserve(R"({"name":"addr1","shape":[5],"data":["a"]},)" + b).message.find("has shape [5] and 1 strings"),
            std::string::npos);
  EXPECT_EQ(kserve(R"({"name":"addr1","shape":"x","data":["a"]},)" + b).status, 400);
  EXPECT_EQ(kserve(R"({"name":"addr1","shape":[1,2],"data":["a"]},)" + b).status, 400);
  EXPECT_EQ(kserve(R"({"name":"pairs","shape":[1],"data":["a","b","c","d"]})").status, 400);
  EXPECT_EQ(kserve(R"({"name":"pairs","shape":[18446744073709551615,2],"data":["a","b"]})").status, 400);
  EXPECT_NE(kserve(R"({"name":"address","data":["a"]},)" + b).message.find("no input \"address\""), std::string::npos);
  EXPECT_NE(kserve(b + "," + b).message.find("given twice"), std::string::npos);
  EXPECT_NE(kserve(R"({"name":"pairs","shape":[1,2],"data":["a","b"]},)" + b).message.find("not both"), std::string::npos);
  // Rows of one string for shape [N, 1], as the metadata allows.
  const auto rows = std::get<ParsedRequest>(parse_request(
      Endpoint::KServeInfer,
      R"({"inputs":[{"name":"addr1","shape":[2,1],"data":[["a"],["c"]]},{"name":"addr2","shape":[2],"data":["b","d"]}]})", 8));
  EXPECT_EQ(rows.first, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(rows.second, (std::vector<std::string>{"b", "d"}));
  // A bad string in nested rows is named by its row and column.
  EXPECT_EQ(error_of(Endpoint::KServeInfer,
                     R"({"inputs":[{"name":"pairs","shape":[3,2],"data":[["a","b"],["c","d"],["e"," "]]}]})")
                .message,
            "pairs[2][1] is empty");
}

TEST(ServeApi, AMisspeltFieldIsAnError) {
  const auto e = error_of(Endpoint::Match, R"({"pairs":[["a","b"]],"explian":true})");
  EXPECT_EQ(e.status, 400);
  EXPECT_NE(e.message.find("unknown field \"explian\""), std::string::npos) << e.message;
  EXPECT_EQ(error_of(Endpoint::Search, R"({"queries":["a"],"region_from_query":true})").status, 400);
  EXPECT_EQ(error_of(Endpoint::Parse, R"({"addresses":["a"],"guess":false})").status, 400);
}

TEST(ServeApi, SearchResultsPerRequestAreCapped) {
  std::string queries = "[";
  for (int i = 0; i < 20; ++i) queries += std::string(i ? "," : "") + "\"杭州\"";
  queries += "]";
  const auto big = error_of(Endpoint::Search, R"({"queries":)" + queries + R"(,"k":10000})", 1024);
  EXPECT_EQ(big.status, 413);
  EXPECT_NE(big.message.find("200000 results"), std::string::npos) << big.message;
  EXPECT_EQ(error_of(Endpoint::Search, R"({"queries":)" + queries + R"(,"k":5000})", 1024).status, 200);
}

// One request of 1,024 queries at rerank 10,000 took both cores for the whole request
// timeout while other searches waited: the pairs a request reranks are capped.
TEST(ServeApi, SearchRerankWorkPerRequestIsCapped) {
  std::string queries = "[";
  for (int i = 0; i < 1024; ++i) queries += std::string(i ? "," : "") + "\"杭州\"";
  queries += "]";
  const auto huge = error_of(Endpoint::Search, R"({"queries":)" + queries + R"(,"rerank":10000,"k":10})", 1024);
  EXPECT_EQ(huge.status, 413);
  EXPECT_EQ(huge.type, "too_large");
  EXPECT_NE(huge.message.find("would rerank 10240000 pairs; the limit is 102400"), std::string::npos) << huge.message;
  EXPECT_EQ(error_of(Endpoint::Search, R"({"queries":)" + queries + R"(,"rerank":100})", 1024).status, 200);
  EXPECT_EQ(error_of(Endpoint::Search, R"({"queries":["杭州"],"rerank":10000})", 1024).status, 200);
}

TEST(ServeApi, ParsesSearchWithItsDefaults) {
  auto plain = std::get<ParsedRequest>(parse_request(Endpoint::Search, R"({"queries":["杭州","北京"]})", 8));
  EXPECT_EQ(plain.first, (std::vector<std::string>{"杭州", "北京"}));
  EXPECT_EQ(plain.search.k, index::SearchOptions{}.k);
  EXPECT_EQ(plain.search.rerank, index::SearchOptions{}.rerank);
  EXPECT_EQ(plain.search.region, "");
  EXPECT_EQ(plain.search.reading, PairReading::Symmetric);
  auto full = std::get<ParsedRequest>(parse_request(
      Endpoint::Search, R"({"queries":["杭州"],"k":3,"rerank":0,"region":"北京市","ordered":true})", 8));
  EXPECT_EQ(full.search.reading, PairReading::Ordered);
  EXPECT_EQ(error_of(Endpoint::Search, R"({"queries":["a"],"ordered":1})").status, 400);
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

namespace geoalign::serve {
namespace {

using nlohmann::json;
using namespace geoalign::testing;

TEST(ServeApi, ParseTakesAddressesWithMatchsLimits) {
  auto p = std::get<ParsedRequest>(parse_request(Endpoint::Parse, R"({"addresses":["杭州市西湖区","北京"]})", 8));
  EXPECT_EQ(p.first, (std::vector<std::string>{"杭州市西湖区", "北京"}));
  EXPECT_EQ(error_of(Endpoint::Parse, R"({"address":["a"]})").status, 400);
  EXPECT_TRUE(std::get<ParsedRequest>(parse_request(Endpoint::Parse, R"({"addresses":[]})", 8)).first.empty());
  EXPECT_EQ(error_of(Endpoint::Parse, R"({"addresses":["a", 1]})").message, "addresses[1] must be a string");
  const auto blank = error_of(Endpoint::Parse, R"({"addresses":["a", "  "]})");
  EXPECT_EQ(blank.status, 422);
  EXPECT_EQ(blank.message, "addresses[1] is empty");
  EXPECT_EQ(error_of(Endpoint::Parse, R"({"addresses":["a", "&nbsp;&#8203;"]})").message, "addresses[1] is empty");
  EXPECT_EQ(error_of(Endpoint::Parse, "{\"addresses\":[\"\xE6\x9D\"]}").status, 400);  // nlohmann refuses it
  EXPECT_EQ(error_of(Endpoint::Parse, R"({"addresses":["a","b","c"]})", 2).status, 413);
}

TEST(ServeApi, MatchTakesAnOptionalExplainFlag) {
  EXPECT_FALSE(std::get<ParsedRequest>(parse_request(Endpoint::Match, R"({"pairs":[["a","b"]]})", 8)).explain);
  EXPECT_TRUE(
      std::get<ParsedRequest>(parse_request(Endpoint::Match, R"({"pairs":[["a","b"]],"explain":true})", 8)).explain);
  EXPECT_FALSE(
      std::get<ParsedRequest>(parse_request(Endpoint::Match, R"({"pairs":[["a","b"]],"explain":false})", 8)).explain);
  for (const char* bad : {R"({"pairs":[["a","b"]],"explain":1})", R"({"pairs":[["a","b"]],"explain":"true"})",
                          R"({"pairs":[["a","b"]],"explain":null})"}) {
    const auto e = error_of(Endpoint::Match, bad);
    EXPECT_EQ(e.status, 400) << bad;
    EXPECT_EQ(e.message, "\"explain\" must be true or false") << bad;
  }
  // The pairs are checked first: their errors name their place.
  EXPECT_EQ(error_of(Endpoint::Match, R"({"pairs":[["a",""]],"explain":true})").message, "pairs[0][1] is empty");
}

std::variant<ParsedRequest, ApiError> parse_binary(const BinaryInferRequest& r) {
  return parse_request(Endpoint::KServeInfer, r.body, 8, std::string_view(r.header_length));
}

TEST(ServeApi, BinaryInputsReadAsTheirJsonForm) {
  const auto r = binary_infer_request({"北京市朝阳区", "a"}, {"北京朝阳", ""});
  // The empty element parses, then fails the text check like an empty JSON string.
  const auto parsed = parse_binary(r);
  ASSERT_TRUE(std::holds_alternative<ApiError>(parsed));
  EXPECT_EQ(std::get<ApiError>(parsed).message, "addr2[1] is empty");
  const auto ok = std::get<ParsedRequest>(parse_binary(binary_infer_request({"北京市朝阳区", "a"}, {"北京朝阳", "b"})));
  EXPECT_EQ(ok.first, (std::vector<std::string>{"北京市朝阳区", "a"}));
  EXPECT_EQ(ok.second, (std::vector<std::string>{"北京朝阳", "b"}));
  ASSERT_EQ(ok.outputs.size(), 3u);
  EXPECT_FALSE(ok.outputs[0].binary);
  // Invalid UTF-8 in binary data is named by its path, as in JSON data.
  EXPECT_EQ(std::get<ApiError>(parse_binary(binary_infer_request({"a"}, {"\xE6\x9D"}))).message,
            "addr2[0] is not valid UTF-8");
}

TEST(ServeApi, MalformedBinaryInferRequestsGet400) {
  const auto message = [](const BinaryInferRequest& r) {
    auto parsed = parse_binary(r);
    if (auto* e = std::get_if<ApiError>(&parsed)) return e->status == 400 ? e->message : "status " + std::to_string(e->status);
    return std::string("accepted");
  };
  auto r = binary_infer_request({"ab"}, {"cd"});
  auto longer = r;
  longer.header_length = std::to_string(r.body.size() + 1);
  EXPECT_NE(message(longer).find("but the body has only"), std::string::npos) << message(longer);
  auto not_a_number = r;
  not_a_number.header_length = "12x";
  EXPECT_NE(message(not_a_number).find("must be a byte count"), std::string::npos);
  auto extra = r;
  extra.body += "zz";
  EXPECT_NE(message(extra).find("belong to no input"), std::string::npos) << message(extra);
  auto short_body = r;
  short_body.body.pop_back();
  EXPECT_NE(message(short_body).find("need more bytes"), std::string::npos) << message(short_body);
  // addr1's size covers its length prefix but not all its bytes: a truncated element.
  const std::string header = json{{"inputs",
                                   {{{"name", "addr1"}, {"datatype", "BYTES"}, {"parameters", {{"binary_data_size", 5}}}},
                                    {{"name", "addr2"}, {"datatype", "BYTES"}, {"data", {"x"}}}}}}
                                 .dump();
  const BinaryInferRequest truncated{header + le32(3) + "a", std::to_string(header.size())};
  EXPECT_NE(message(truncated).find("element 0 is 3 bytes long but only 1 remain"), std::string::npos)
      << message(truncated);
  const BinaryInferRequest half_length{header + bytes_tensor({"a"}).substr(0, 3) + "xx", std::to_string(header.size())};
  EXPECT_NE(message(half_length).find("bytes long but only"), std::string::npos) << message(half_length);
  const std::string header3 = json{{"inputs",
                                    {{{"name", "addr1"}, {"datatype", "BYTES"}, {"parameters", {{"binary_data_size", 3}}}},
                                     {{"name", "addr2"}, {"datatype", "BYTES"}, {"data", {"x"}}}}}}
                                  .dump();
  const BinaryInferRequest short_length{header3 + "abc", std::to_string(header3.size())};
  EXPECT_NE(message(short_length).find("truncated length"), std::string::npos) << message(short_length);
  auto both = binary_infer_request({"a"}, {"b"});
  const json j = json::parse(both.body.substr(0, std::stoul(both.header_length)));
  json with_data = j;
  with_data["inputs"][0]["data"] = {"a"};
  const std::string text = with_data.dump();
  EXPECT_NE(message({text + both.body.substr(j.dump().size()), std::to_string(text.size())}).find("both"),
            std::string::npos);
  EXPECT_NE(message(binary_infer_request({"a"}, {"b"}, {{"outputs", {{{"name", "nope"}}}}})).find("no output \"nope\""),
            std::string::npos);
  // Only KServe inference takes binary data.
  EXPECT_EQ(parse_request(Endpoint::Match, R"({"pairs":[["a","b"]]})", 8, std::string_view("5")).index(), 1u);
}

TEST(ServeApi, BinaryOutputsFollowTheJsonHeader) {
  const auto parsed = std::get<ParsedRequest>(parse_binary(binary_infer_request(
      {"a", "b"}, {"c", "d"},
      {{"outputs", {{{"name", "probabilities"}, {"parameters", {{"binary_data", true}}}}, {{"name", "label"}}}}})));
  ASSERT_EQ(parsed.outputs.size(), 2u);
  runtime::InferenceRequest done;
  done.first = parsed.first;
  MatchResult m;
  m.label = "exact_match";
  m.p_not_match = 0.125f;
  m.p_partial_match = 0.25f;
  m.p_exact_match = 0.625f;
  done.matches = {m, m};
  const ResponseBody body = render_response(Endpoint::KServeInfer, parsed, done);
  ASSERT_TRUE(body.inference_header_length.has_value());
  const json header = json::parse(body.bytes.substr(0, *body.inference_header_length));
  EXPECT_EQ(header["outputs"][0]["name"], "probabilities");
  EXPECT_EQ(header["outputs"][0]["parameters"]["binary_data_size"], 24);
  EXPECT_FALSE(header["outputs"][0].contains("data"));
  EXPECT_EQ(header["outputs"][1]["data"], json({"exact_match", "exact_match"}));
  EXPECT_EQ(read_fp32_tensor(std::string_view(body.bytes).substr(*body.inference_header_length)),
            (std::vector<float>{0.125f, 0.25f, 0.625f, 0.125f, 0.25f, 0.625f}));
  // binary_data_output makes every output binary; JSON-only requests get no header length.
  const auto all = std::get<ParsedRequest>(
      parse_binary(binary_infer_request({"a", "b"}, {"c", "d"}, {{"parameters", {{"binary_data_output", true}}}})));
  const ResponseBody all_body = render_response(Endpoint::KServeInfer, all, done);
  const json all_header = json::parse(all_body.bytes.substr(0, *all_body.inference_header_length));
  EXPECT_EQ(all_header["outputs"][0]["parameters"]["binary_data_size"], 2 * (4 + 11));
  EXPECT_EQ(read_bytes_tensor(std::string_view(all_body.bytes).substr(*all_body.inference_header_length, 30)),
            (std::vector<std::string>{"exact_match", "exact_match"}));
  const auto json_only = std::get<ParsedRequest>(parse_request(
      Endpoint::KServeInfer, R"({"inputs":[{"name":"pairs","datatype":"BYTES","data":["a","c","b","d"]}]})", 8));
  EXPECT_FALSE(render_response(Endpoint::KServeInfer, json_only, done).inference_header_length);
}

}  // namespace
}  // namespace geoalign::serve
