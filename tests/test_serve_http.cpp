// The HTTP server on a loopback port, driven as clients would drive it.
#include <gtest/gtest.h>

#include <utility>  // Boost 1.74's asio/awaitable.hpp uses std::exchange without it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstring>
#include <future>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "geo/parse_json.h"
#include "geoalign/matcher.h"
#include "geoalign/parser.h"
#include "index/address_index.h"
#include "loadtest/load_generator.h"
#include "match/pair_features.h"
#include "serve/explain_kind.h"
#include "serve/http_server.h"
#include "serve/openapi.h"
#include "serve/playground.h"
#include "serve/search_kind.h"
#include "support/binary_tensors.h"
#include "support/http_client.h"
#include "support/json_schema.h"
#include "support/raw_client.h"
#include "support/temp_dir.h"
#include "text/normalize.h"

namespace geoalign::serve {
namespace {

using namespace geoalign::testing;
using nlohmann::json;

class RunningServer {
 public:
  explicit RunningServer(runtime::BatcherOptions batching = {}, ServerOptions options = {}, bool ready = true,
                         const std::filesystem::path& model = fixture_model(), const SearchKind* search = nullptr)
      : scorer_(model::ModelFolder::load(model)), batcher_(scorer_, batching, &metrics_) {
    options.port = 0;
    server_ = std::make_unique<Server>(scorer_, batcher_, metrics_, options, search);
    port_ = server_->listen();
    server_->set_ready(ready);
    thread_ = std::thread([this] { server_->run(); });
  }
  ~RunningServer() { stop(); }

  void stop() {
    if (!thread_.joinable()) return;
    server_->stop();
    thread_.join();
    batcher_.shutdown();
  }
  unsigned short port() const { return port_; }
  Server& server() { return *server_; }
  Metrics& metrics() { return metrics_; }
  runtime::Batcher& batcher() { return batcher_; }
  HttpResponse post(const std::string& target, const std::string& body) { return http_request(port_, "POST", target, body); }
  HttpResponse get(const std::string& target) { return http_request(port_, "GET", target); }

 private:
  runtime::PairScorer scorer_;
  Metrics metrics_;
  runtime::Batcher batcher_;
  std::unique_ptr<Server> server_;
  unsigned short port_ = 0;
  std::thread thread_;
};

// Waits for a condition instead of sleeping for a guessed time; false if it does not hold
// within the (generous) limit.
template <class Condition>
bool wait_for(Condition condition, std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  for (const auto until = std::chrono::steady_clock::now() + limit; !condition();) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

const std::vector<std::pair<std::string, std::string>> kPairs = {
    {"北京市朝阳区建国路88号", "北京朝阳建外88号"},
    {"杭州市西湖区文三路478号华星科技大厦A座1203室", "文三路478号华星大厦"},
    {"深圳市南山区科技园Ｂ栋３０１", "深圳南山科技园B栋301室"},
    {"上海市浦东新区陆家嘴环路1000号", "上海市黄浦区南京东路100号"},
};

std::string match_body(std::size_t n, std::size_t offset = 0) {
  json pairs = json::array();
  for (std::size_t i = 0; i < n; ++i) {
    const auto& p = kPairs[(i + offset) % kPairs.size()];
    pairs.push_back({p.first, p.second});
  }
  return json{{"pairs", pairs}}.dump();
}

TEST(ServeHttp, MatchAgreesWithOfflineScoring) {
  RunningServer server;
  const auto r = server.post("/v1/match", match_body(kPairs.size()));
  ASSERT_EQ(r.status, 200) << r.body;
  const auto results = json::parse(r.body)["results"];
  // One thread: the reference need not be fast, and OpenMP worker threads (libgomp is
  // not built with TSan) give false reports in the ThreadSanitizer run of scripts/test.sh.
  const auto matcher = Matcher::load(fixture_model(), {.precision = Precision::FP32, .threads = 1});
  std::vector<AddressPair> pairs;
  for (const auto& p : kPairs) pairs.push_back({p.first, p.second});
  const auto want = matcher.score(pairs);
  ASSERT_EQ(results.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(results[i]["label"], want[i].label);
    EXPECT_NEAR(results[i]["score"].get<float>(), want[i].score, 1e-5);
    EXPECT_NEAR(results[i]["probabilities"]["exact_match"].get<float>(), want[i].p_exact_match, 1e-5);
    EXPECT_NEAR(results[i]["probabilities"]["partial_match"].get<float>(), want[i].p_partial_match, 1e-5);
    EXPECT_NEAR(results[i]["probabilities"]["not_match"].get<float>(), want[i].p_not_match, 1e-5);
  }
  // The KServe v2 endpoint returns the same numbers.
  json inputs = json::array({{{"name", "addr1"}, {"datatype", "BYTES"}, {"shape", {kPairs.size()}}, {"data", json::array()}},
                             {{"name", "addr2"}, {"datatype", "BYTES"}, {"shape", {kPairs.size()}}, {"data", json::array()}}});
  for (const auto& p : kPairs) {
    inputs[0]["data"].push_back(p.first);
    inputs[1]["data"].push_back(p.second);
  }
  const auto k = server.post("/v2/models/geoalign/infer", json{{"inputs", inputs}}.dump());
  ASSERT_EQ(k.status, 200) << k.body;
  const auto outputs = json::parse(k.body)["outputs"];
  EXPECT_EQ(outputs[0]["data"][1], want[1].label);
  EXPECT_NEAR(outputs[1]["data"][2].get<float>(), want[2].score, 1e-5);
  EXPECT_EQ(outputs[2]["shape"], json({kPairs.size(), 3}));
}

// serve --model-name: Triton and KServe clients address the model by name; every KServe
// route, document and answer carries the name given, and another name is no route.
TEST(ServeHttp, TheModelNameGivenIsTheOneKServeClientsSee) {
  ServerOptions options;
  options.model_name = "addresses.v2";
  RunningServer server({}, options);
  for (const char* route : {"/v2/models/addresses.v2", "/v2/models/addresses.v2/config"}) {
    const auto r = server.get(route);
    ASSERT_EQ(r.status, 200) << route << r.body;
    EXPECT_EQ(json::parse(r.body)["name"], "addresses.v2") << route;
  }
  EXPECT_EQ(server.get("/v2/models/addresses.v2/ready").status, 200);
  for (const char* other : {"/v2/models/geoalign", "/v2/models/geoalign/ready", "/v2/models/addresses", "/v2/models/",
                            "/v2/models/addresses.v2/other"}) {
    EXPECT_EQ(server.get(other).status, 404) << other;
  }
  const json inputs = json::array({{{"name", "addr1"}, {"datatype", "BYTES"}, {"shape", {1}}, {"data", {"杭州市文三路478号"}}},
                                   {{"name", "addr2"}, {"datatype", "BYTES"}, {"shape", {1}}, {"data", {"文三路478号"}}}});
  const auto infer = server.post("/v2/models/addresses.v2/infer", json{{"inputs", inputs}}.dump());
  ASSERT_EQ(infer.status, 200) << infer.body;
  EXPECT_EQ(json::parse(infer.body)["model_name"], "addresses.v2");
  EXPECT_EQ(server.post("/v2/models/geoalign/infer", json{{"inputs", inputs}}.dump()).status, 404);
  // OpenAI's schema echoes the client's model, else the server's.
  EXPECT_EQ(json::parse(server.post("/v1/embeddings", R"({"input": "杭州"})").body)["model"], "addresses.v2");
  EXPECT_EQ(json::parse(server.post("/v1/embeddings", R"({"input": "杭州", "model": "m"})").body)["model"], "m");
  const auto page = server.get("/").body;
  EXPECT_NE(page.find("'/v2/models/addresses.v2'"), std::string::npos);
  EXPECT_EQ(page.find("{{model}}"), std::string::npos);
}

TEST(ServeHttp, AModelNameThatIsNotAPathSegmentIsRefused) {
  for (const std::string& bad : std::vector<std::string>{"", "a/b", "a b", "名字", "a?b", std::string(129, 'a')}) {
    ServerOptions options;
    options.model_name = bad;
    EXPECT_THROW(RunningServer({}, options), Error) << bad;
  }
}

// Bodies over 32 KiB are parsed, and answers of over 32 items rendered, on the JSON
// workers, so the I/O thread serves other connections meanwhile: the same answers, and
// the same errors, as small requests get on the I/O thread.
TEST(ServeHttp, LargeBodiesAndAnswersAreTheSameOffTheIoThread) {
  RunningServer server;
  json pairs = json::array();
  std::vector<AddressPair> want_pairs;
  for (std::size_t i = 0; i < 200; ++i) {
    const auto& p = kPairs[i % kPairs.size()];
    const std::string a = p.first + "附近" + std::to_string(i) + std::string(120, ' ');  // blanks: under max_length
    pairs.push_back({a, p.second});
    want_pairs.push_back({a, p.second});
  }
  const std::string body = json{{"pairs", pairs}}.dump();
  ASSERT_GT(body.size(), 32u * 1024);
  const auto r = server.post("/v1/match", body);
  ASSERT_EQ(r.status, 200) << r.body.substr(0, 300);
  const auto results = json::parse(r.body)["results"];
  const auto matcher = Matcher::load(fixture_model(), {.precision = Precision::FP32, .threads = 1});
  const auto want = matcher.score(want_pairs);
  ASSERT_EQ(results.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(results[i]["label"], want[i].label) << i;
    EXPECT_NEAR(results[i]["score"].get<float>(), want[i].score, 1e-5) << i;
  }
  const auto broken = server.post("/v1/match", body.substr(0, body.size() - 2));
  EXPECT_EQ(broken.status, 400);
  EXPECT_NE(json::parse(broken.body)["error"].get<std::string>().find("not valid JSON"), std::string::npos) << broken.body;
}

TEST(ServeHttp, EmbedReturnsOneVectorPerAddress) {
  RunningServer server;
  const auto r = server.post("/v1/embed", R"({"addresses":["北京市朝阳区","杭州"]})");
  ASSERT_EQ(r.status, 200) << r.body;
  const auto body = json::parse(r.body);
  EXPECT_EQ(body["embeddings"].size(), 2u);
  EXPECT_EQ(body["dimension"], 32);
  EXPECT_EQ(body["embeddings"][0].size(), 32u);
}

// TEI's /rerank: the query against each text is the /v1/match pair (query, text), its
// score P(exact_match) (or its log-odds), highest first, in the schema's shape.
TEST(ServeHttp, TeiRerankScoresEachTextAsMatchDoes) {
  ServerOptions options;
  options.max_items_per_request = 8;
  RunningServer server({}, options);
  const std::string query = "杭州市西湖区文三路478号";
  const std::vector<std::string> texts = {"文三路478号华星科技大厦", "北京市朝阳区建国路88号", "杭州西湖文三路478号",
                                          "深圳南山科技园B栋301室"};
  json pairs = json::array();
  for (const auto& t : texts) pairs.push_back({query, t});
  const auto matched = json::parse(server.post("/v1/match", json{{"pairs", pairs}}.dump()).body)["results"];
  const auto r = server.post("/rerank", json{{"query", query}, {"texts", texts}, {"return_text", true}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const auto ranked = json::parse(r.body);
  const json doc = json::parse(openapi_document());
  EXPECT_EQ(schema_problems(doc["components"]["schemas"]["TeiRerankResponse"], ranked, doc), std::vector<std::string>{});
  ASSERT_EQ(ranked.size(), texts.size());
  std::set<std::size_t> seen;
  for (std::size_t k = 0; k < ranked.size(); ++k) {
    const auto i = ranked[k]["index"].get<std::size_t>();
    seen.insert(i);
    EXPECT_EQ(ranked[k]["score"], matched[i]["probabilities"]["exact_match"]) << i;
    EXPECT_EQ(ranked[k]["text"], texts[i]);
    if (k > 0) {
      EXPECT_GE(ranked[k - 1]["score"].get<double>(), ranked[k]["score"].get<double>());
    }
  }
  EXPECT_EQ(seen.size(), texts.size());
  const auto raw = json::parse(server.post("/rerank", json{{"query", query}, {"texts", texts}, {"raw_scores", true}}.dump()).body);
  for (const auto& item : raw) {
    const double p = matched[item["index"].get<std::size_t>()]["probabilities"]["exact_match"].get<double>();
    EXPECT_NEAR(item["score"].get<double>(), std::log(p / (1 - p)), 1e-6);
    EXPECT_FALSE(item.contains("text"));
  }
  EXPECT_EQ(json::parse(server.post("/rerank", json{{"query", query}, {"texts", json::array()}}.dump()).body), json::array());
  const std::vector<std::pair<std::string, int>> refused = {
      {R"({"texts": ["a"]})", 400},
      {R"({"query": "杭州", "texts": "文三路"})", 400},
      {R"({"query": "杭州", "texts": ["文三路", " "]})", 422},
      {R"({"query": "杭州", "texts": ["文三路"], "top_n": 3})", 400},
      {R"({"query": "杭州", "texts": ["文三路"], "truncation_direction": "Up"})", 400},
      {R"({"query": "杭州", "texts": ["文三路"], "raw_scores": "yes"})", 400},
      {json{{"query", "杭州"}, {"texts", std::vector<std::string>(9, "文三路")}}.dump(), 413},
  };
  for (const auto& [body, status] : refused) EXPECT_EQ(server.post("/rerank", body).status, status) << body;
  EXPECT_NE(server.post("/rerank", R"({"query": "杭州", "texts": ["文三路", " "]})").body.find("texts[1]"), std::string::npos);
}

// Standard base64, for reading OpenAI's encoding_format base64 back.
std::string from_base64(const std::string& text) {
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::uint32_t bits = 0;
  int count = 0;
  for (const char c : text) {
    if (c == '=') break;
    bits = (bits << 6) | static_cast<std::uint32_t>(alphabet.find(c));
    if ((count += 6) >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xFF);
    }
  }
  return out;
}

// OpenAI's /v1/embeddings: /v1/embed's vectors in the schema's shape, as floats or base64,
// with the tokens the encoder read (each Chinese character one, plus [CLS] and [SEP]).
TEST(ServeHttp, OpenAiEmbeddingsAreEmbedsVectorsInTheirSchema) {
  RunningServer server;
  const std::vector<std::string> addresses = {"北京市朝阳区", "杭州"};
  const auto vectors = json::parse(server.post("/v1/embed", json{{"addresses", addresses}}.dump()).body)["embeddings"];
  const auto r = server.post("/v1/embeddings", json{{"input", addresses}, {"model", "text-embedding-3-small"}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const auto answer = json::parse(r.body);
  const json doc = json::parse(openapi_document());
  EXPECT_EQ(schema_problems(doc["components"]["schemas"]["OpenAiEmbeddingsResponse"], answer, doc),
            std::vector<std::string>{});
  EXPECT_EQ(answer["object"], "list");
  EXPECT_EQ(answer["model"], "text-embedding-3-small");
  ASSERT_EQ(answer["data"].size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(answer["data"][i]["object"], "embedding");
    EXPECT_EQ(answer["data"][i]["index"], i);
    EXPECT_EQ(answer["data"][i]["embedding"], vectors[i]);
  }
  EXPECT_EQ(answer["usage"]["prompt_tokens"], (6 + 2) + (2 + 2));
  EXPECT_EQ(answer["usage"]["total_tokens"], answer["usage"]["prompt_tokens"]);

  const auto one = json::parse(server.post("/v1/embeddings", R"({"input": "杭州", "encoding_format": "base64"})").body);
  EXPECT_EQ(one["model"], "geoalign");
  ASSERT_EQ(one["data"].size(), 1u);
  const std::string bytes = from_base64(one["data"][0]["embedding"].get<std::string>());
  std::vector<float> decoded(bytes.size() / sizeof(float));
  ASSERT_EQ(decoded.size() * sizeof(float), bytes.size());
  std::memcpy(decoded.data(), bytes.data(), bytes.size());
  EXPECT_EQ(json(decoded), vectors[1]);

  for (const char* body : {R"({"input": [[101, 102]]})", R"({"input": []})", R"({"input": "杭州", "encoding_format": "int8"})",
                           R"({"model": "x"})", R"({"input": "杭州", "dimensions": 64})", R"({"input": 5})"}) {
    EXPECT_EQ(server.post("/v1/embeddings", body).status, 400) << body;
  }
  EXPECT_EQ(server.post("/v1/embeddings", R"({"input": ["杭州", ""]})").status, 422);
}

TEST(ServeHttp, HealthMetadataMetricsAndRouting) {
  RunningServer server({}, {}, /*ready=*/false);
  EXPECT_EQ(server.get("/v2/health/live").status, 200);
  EXPECT_EQ(server.get("/v2/health/ready").status, 503);
  EXPECT_EQ(server.post("/v1/match", match_body(1)).status, 503);
  server.server().set_ready(true);
  EXPECT_EQ(server.get("/v2/health/ready").status, 200);
  EXPECT_EQ(json::parse(server.get("/v2/models/geoalign").body)["name"], "geoalign");
  EXPECT_EQ(server.post("/v1/match", match_body(3)).status, 200);
  EXPECT_EQ(server.get("/nowhere").status, 404);
  EXPECT_EQ(server.get("/v1/match").status, 405);
  const std::string metrics = server.get("/metrics").body;
  for (const char* name : {"geoalign_requests_total{endpoint=\"/v1/match\",code=\"200\"} 1", "geoalign_batch_size_bucket",
                           "geoalign_queue_duration_seconds_bucket", "geoalign_compute_duration_seconds_count",
                           "geoalign_batch_tokens_sum", "geoalign_queue_depth", "geoalign_cache_hits_total"}) {
    EXPECT_NE(metrics.find(name), std::string::npos) << name;
  }
}

TEST(ServeHttp, ErrorStatuses) {
  ServerOptions options;
  options.max_body_bytes = 4096;
  options.max_items_per_request = 16;
  RunningServer server({}, options);
  EXPECT_EQ(server.post("/v1/match", "{\"pairs\": [[").status, 400);
  EXPECT_EQ(server.post("/v1/match", R"({"pairs": [["a", 1]]})").status, 400);
  EXPECT_EQ(server.post("/v1/match", R"({"pairz": []})").status, 400);
  EXPECT_EQ(server.post("/v1/match", R"({"pairs": [["a", ""]]})").status, 422);
  EXPECT_EQ(server.post("/v1/match", "{\"pairs\": [[\"a\", \"\xC0\x80\"]]}").status, 400);
  const auto empty_body = server.post("/v1/match", "");
  EXPECT_EQ(empty_body.status, 400);
  EXPECT_EQ(json::parse(empty_body.body)["error"], "request body is empty (a JSON object was expected)");
  EXPECT_EQ(json::parse(server.post("/v1/match", "{\"pairs\": [[\"a\", \"\xC0\x80\"]]}").body)["error"],
            "request body is not valid UTF-8 (byte 19)");
  // An empty list asks for nothing and gets nothing, as search's does.
  const auto no_pairs = server.post("/v1/match", R"({"pairs": []})");
  EXPECT_EQ(no_pairs.status, 200);
  EXPECT_EQ(json::parse(no_pairs.body)["results"], json::array());
  const auto no_addresses = server.post("/v1/embed", R"({"addresses": []})");
  EXPECT_EQ(no_addresses.status, 200);
  EXPECT_EQ(json::parse(no_addresses.body)["embeddings"], json::array());
  const auto too_many = server.post("/v1/match", match_body(17));
  EXPECT_EQ(too_many.status, 413);
  EXPECT_EQ(json::parse(too_many.body)["type"], "too_large");
  EXPECT_EQ(server.post("/v1/match", R"({"pairs":[["a","b"]], "pad": ")" + std::string(5000, 'x') + "\"}").status, 413);
  // The server is still healthy after all of that.
  EXPECT_EQ(server.post("/v1/match", match_body(2)).status, 200);
}

TEST(ServeHttp, FullQueueAnswers429WithRetryAfter) {
  runtime::BatcherOptions batching;
  batching.max_queue = 4;
  RunningServer server(batching);
  server.batcher().pause();  // hold the first request in the queue
  auto waiting = std::async(std::launch::async, [&server] { return server.post("/v1/match", match_body(3)); });
  ASSERT_TRUE(wait_for([&] { return server.metrics().queue_depth.load() == 3; }));
  const auto r = server.post("/v1/match", match_body(2));  // would fit an empty queue
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.retry_after, "1");
  server.batcher().resume();
  EXPECT_EQ(waiting.get().status, 200);
  EXPECT_EQ(server.post("/v1/match", match_body(4)).status, 200);
}

// A request larger than the whole queue can never be accepted: 413, not "retry shortly".
TEST(ServeHttp, RequestLargerThanTheQueueGets413) {
  runtime::BatcherOptions batching;
  batching.max_queue = 4;
  RunningServer server(batching);
  const auto r = server.post("/v1/match", match_body(5));
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(json::parse(r.body)["type"], "too_large");
  EXPECT_EQ(r.retry_after, "");
  EXPECT_EQ(server.post("/v1/embed", R"({"addresses":["a","b","c","d","e"]})").status, 413);
  EXPECT_EQ(server.post("/v1/match", match_body(4)).status, 200);
}

TEST(ServeHttp, RequestTimeoutAnswers504) {
  ServerOptions options;
  options.timeout = std::chrono::milliseconds(50);
  RunningServer server({}, options);
  server.batcher().pause();  // the pair waits in the queue past its deadline
  EXPECT_EQ(server.post("/v1/match", match_body(1)).status, 504);
  server.batcher().resume();
  // The batcher skips the pair its client no longer waits for.
  ASSERT_TRUE(wait_for([&] { return server.metrics().queue_depth.load() == 0; }));
  EXPECT_EQ(server.metrics().pairs_scored.load(), 0u);
}

TEST(ServeHttp, DrainAnswersEveryAcceptedRequest) {
  RunningServer server;
  server.batcher().pause();
  std::vector<std::future<HttpResponse>> replies;
  for (std::size_t i = 0; i < 20; ++i) {
    replies.push_back(std::async(std::launch::async, [&server, i] { return server.post("/v1/match", match_body(1, i)); }));
  }
  // All read and queued, none answered; the drain begins as the model starts on them.
  ASSERT_TRUE(wait_for([&] { return server.metrics().queue_depth.load() == 20; }));
  server.batcher().resume();
  server.stop();
  for (auto& r : replies) EXPECT_EQ(r.get().status, 200);
}

std::uint64_t metric(const std::string& metrics, const std::string& name) {
  const auto at = metrics.find("\n" + name + " ");
  return at == std::string::npos ? UINT64_MAX : std::stoull(metrics.substr(at + name.size() + 2));
}

TEST(ServeHttp, RepeatedPairsComeFromTheCache) {
  runtime::BatcherOptions batching;
  batching.cache_size = 100;
  RunningServer server(batching);
  const auto first = server.post("/v1/match", match_body(1));
  const auto second = server.post("/v1/match", match_body(1));
  ASSERT_EQ(first.status, 200);
  EXPECT_EQ(first.body, second.body);
  const std::string metrics = server.get("/metrics").body;
  EXPECT_EQ(metric(metrics, "geoalign_cache_hits_total"), 1u);
  EXPECT_EQ(metric(metrics, "geoalign_cache_misses_total"), 1u);
  EXPECT_EQ(metric(metrics, "geoalign_items_total"), 1u);
}

// A client that resets its connection while its request waits is gone for good: the
// batcher skips its pairs.
TEST(ServeHttp, RequestsOfClientsThatHungUpAreSkipped) {
  RunningServer server;
  server.batcher().pause();
  {
    RawClient client(server.port());
    client.send(post_request("/v1/match", match_body(1)));
    ASSERT_TRUE(wait_for([&] { return server.metrics().queue_depth.load() == 1; }));
    client.reset();
  }
  // Let the server see the reset (and cancel the request) before the model may run it.
  ASSERT_TRUE(wait_for([&] { return server.metrics().hangups.load() == 1; }));
  server.batcher().resume();
  ASSERT_TRUE(wait_for([&] { return server.metrics().queue_depth.load() == 0; }));
  EXPECT_EQ(metric(server.get("/metrics").body, "geoalign_items_total"), 0u);
}

// Pipelined requests without a request timeout: the session used to be freed while its
// request was in flight, losing both answers.
TEST(ServeHttp, PipelinedRequestsWithoutTimeoutAreAnsweredInOrder) {
  ServerOptions options;
  options.timeout = std::chrono::milliseconds(0);
  RunningServer server({}, options);
  server.batcher().pause();
  RawClient client(server.port());
  client.send(post_request("/v1/match", match_body(2)));
  // The next requests arrive while the first waits in the queue.
  ASSERT_TRUE(wait_for([&] { return server.metrics().queue_depth.load() == 2; }));
  client.send(post_request("/v1/match", match_body(1)) + post_request("/v1/embed", R"({"addresses":["杭州","上海","北京"]})"));
  server.batcher().resume();
  for (std::size_t want : {2u, 1u}) {
    RawClient::Response r;
    ASSERT_FALSE(client.read(r));
    ASSERT_EQ(r.result_int(), 200) << r.body();
    EXPECT_EQ(json::parse(r.body())["results"].size(), want);
  }
  RawClient::Response r;
  ASSERT_FALSE(client.read(r));
  EXPECT_EQ(json::parse(r.body())["embeddings"].size(), 3u);
}

// A client that sends its request and then shuts down its write side still reads the
// answer.
TEST(ServeHttp, HalfClosedClientGetsItsResponse) {
  runtime::BatcherOptions batching;
  batching.max_queue_delay = std::chrono::milliseconds(50);
  RunningServer server(batching);
  RawClient client(server.port());
  client.send(post_request("/v1/match", match_body(3)));
  client.shutdown_send();
  RawClient::Response r;
  ASSERT_FALSE(client.read(r));
  EXPECT_EQ(r.result_int(), 200);
  EXPECT_EQ(json::parse(r.body())["results"].size(), 3u);
  EXPECT_TRUE(client.closed_by_server());
}

// curl sends `Expect: 100-continue` for bodies over 1 MiB and waits a second for the
// interim answer before sending the body anyway.
TEST(ServeHttp, ExpectContinueIsAnsweredBeforeTheBody) {
  ServerOptions options;
  options.max_body_bytes = 4096;
  RunningServer server({}, options);
  const std::string body = match_body(2);
  RawClient client(server.port());
  client.send("POST /v1/match HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: " +
              std::to_string(body.size()) + "\r\n\r\n");
  int status = 0;
  ASSERT_FALSE(client.read_header(status));  // no body sent yet
  EXPECT_EQ(status, 100);
  client.send(body);
  RawClient::Response r;
  ASSERT_FALSE(client.read(r));
  EXPECT_EQ(r.result_int(), 200);
  // A body over the limit is refused before it is sent.
  RawClient big(server.port());
  big.send("POST /v1/match HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 100000\r\n\r\n");
  ASSERT_FALSE(big.read_header(status));
  EXPECT_EQ(status, 413);
}

TEST(ServeHttp, MalformedHttpGets400AndOversizedHeaders431) {
  RunningServer server;
  const std::pair<std::string, int> cases[] = {
      {"GARBAGE\x01 / HTTP/9\r\n\r\n", 400},
      {"GET /v2/health/live HTTP/1.1\r\nHost: x\r\nCookie: " + std::string(kMaxHeaderBytes, 'c') + "\r\n\r\n", 431}};
  for (const auto& [request, want] : cases) {
    RawClient client(server.port());
    client.send(request);
    int status = 0;
    ASSERT_FALSE(client.read_header(status));
    EXPECT_EQ(status, want);
  }
  EXPECT_EQ(server.get("/v2/health/live").status, 200);
}

// HEAD answers with a GET's header and no body, so the next response on the connection
// is framed right; 405 says what is allowed; a query string does not change the route.
TEST(ServeHttp, HeadAllowAndQueryStrings) {
  RunningServer server;
  RawClient client(server.port());
  client.send("HEAD /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\nGET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n");
  int status = 0;
  ASSERT_FALSE(client.read_header(status));
  EXPECT_EQ(status, 200);
  RawClient::Response next;
  ASSERT_FALSE(client.read(next));
  EXPECT_EQ(next.result_int(), 200);
  EXPECT_EQ(next.body(), R"({"live":true})");
  const auto post_to_get = server.post("/v2/health/live", "");
  EXPECT_EQ(post_to_get.status, 405);
  EXPECT_EQ(post_to_get.headers.at("allow"), "GET, HEAD");
  EXPECT_EQ(server.get("/v1/match").headers.at("allow"), "POST");
  EXPECT_EQ(server.get("/v2/health/live?probe=1").status, 200);
  EXPECT_EQ(server.post("/v1/match?trace=1", match_body(1)).status, 200);
}

// A body over the limit gets its 413 even while the client is still sending it: the
// server reads the rest and drops it instead of resetting the connection.
TEST(ServeHttp, TooLargeBodyGets413WhileTheClientStillSends) {
  ServerOptions options;
  options.max_body_bytes = 4096;
  RunningServer server({}, options);
  const std::string body(1024 * 1024, ' ');  // far over the limit, and sent well within the 2 s linger
  RawClient client(server.port());
  client.send("POST /v1/match HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
  RawClient::Response response;
  ASSERT_FALSE(client.read(response));
  EXPECT_EQ(response.result_int(), 413);
  EXPECT_TRUE(client.closed_by_server());
  EXPECT_NE(server.get("/metrics").body.find("geoalign_requests_total{endpoint=\"/v1/match\",code=\"413\"} 1"),
            std::string::npos);
}

TEST(ServeHttp, LoadGeneratorDrivesTheServerWithoutErrors) {
  RunningServer server;
  const auto target = loadtest::Target::parse("http://127.0.0.1:" + std::to_string(server.port()) + "/v1/match");
  const std::vector<std::string> bodies = {match_body(1, 0), match_body(1, 1), match_body(1, 2)};
  loadtest::LoadOptions closed;
  closed.concurrency = 8;
  closed.duration = std::chrono::milliseconds(500);
  closed.warmup = std::chrono::milliseconds(100);
  const auto c = loadtest::run_level(target, bodies, closed);
  EXPECT_GT(c.ok, 0u);  // how many depends on the machine; that none fail does not
  EXPECT_EQ(c.error_count(), 0u);
  EXPECT_LE(c.percentile(50), c.percentile(99));
  loadtest::LoadOptions open = closed;
  open.rate = 100;
  const auto o = loadtest::run_level(target, bodies, open);
  // The open loop sends on a fixed schedule, 100/s for 0.5 s, whatever the server does
  // and however late its timers fire: exactly 50 requests, each answered or counted.
  EXPECT_EQ(o.ok + o.error_count(), 50u);
  EXPECT_EQ(o.error_count(), 0u);
}

// Many simultaneous keep-alive connections on one I/O thread, all answered.
TEST(ServeHttp, ThousandConcurrentConnections) {
  namespace asio = boost::asio;
  namespace beast = boost::beast;
  namespace http = beast::http;
  RunningServer server;
  constexpr int kConnections = 1000;
  asio::io_context io;
  const asio::ip::tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), server.port());
  struct Client {
    explicit Client(asio::io_context& c) : stream(c) {}
    beast::tcp_stream stream;
    beast::flat_buffer buffer;
    http::request<http::string_body> request;
    http::response<http::string_body> response;
  };
  std::vector<std::unique_ptr<Client>> clients;
  int connected = 0, ok = 0;
  for (int i = 0; i < kConnections; ++i) {
    clients.push_back(std::make_unique<Client>(io));
    clients.back()->stream.async_connect(endpoint, [&](beast::error_code ec) { connected += !ec; });
  }
  io.run();
  ASSERT_EQ(connected, kConnections);
  io.restart();
  for (int i = 0; i < kConnections; ++i) {
    Client& c = *clients[static_cast<std::size_t>(i)];
    c.request = {http::verb::post, "/v1/match", 11};
    c.request.set(http::field::host, "127.0.0.1");
    c.request.body() = match_body(1, static_cast<std::size_t>(i));
    c.request.prepare_payload();
    http::async_write(c.stream, c.request, [&c, &ok](beast::error_code ec, std::size_t) {
      if (ec) return;
      http::async_read(c.stream, c.buffer, c.response, [&c, &ok](beast::error_code rec, std::size_t) {
        ok += !rec && c.response.result_int() == 200;
      });
    });
  }
  io.run();
  EXPECT_EQ(ok, kConnections);
}

TEST(ServeHttp, IdleAndReadTimeoutsCloseSlowClients) {
  ServerOptions options;
  options.idle_timeout = std::chrono::milliseconds(200);
  options.read_timeout = std::chrono::milliseconds(300);
  RunningServer server({}, options);
  RawClient silent(server.port());  // connects, sends nothing
  RawClient slow(server.port());    // starts a request, never finishes it
  slow.send("POST /v1/match HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"pairs\":");
  EXPECT_TRUE(silent.closed_by_server());
  EXPECT_TRUE(slow.closed_by_server());
  EXPECT_TRUE(wait_for([&] { return server.metrics().idle_timeouts.load() >= 1 && server.metrics().read_timeouts.load() >= 1; }));
  // A keep-alive connection is closed once idle, after its answer.
  RawClient keep(server.port());
  keep.send("GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n");
  RawClient::Response r;
  ASSERT_FALSE(keep.read(r));
  EXPECT_EQ(r.result_int(), 200);
  EXPECT_TRUE(keep.closed_by_server());
}

std::string big_embed_body() {
  json addresses = json::array();
  for (int i = 0; i < 16384; ++i) addresses.push_back("北京市朝阳区建国路" + std::to_string(i) + "号");
  return json{{"addresses", addresses}}.dump();
}

// No per-request timeout: on a slow machine the embedding must still end in a 200
// (a 504 at 30 s would leave nothing for the write to stall on).
ServerOptions big_embed_options() {
  ServerOptions options;
  options.max_items_per_request = 16384;
  options.max_body_bytes = 4 << 20;
  options.timeout = std::chrono::milliseconds(0);
  return options;
}

runtime::BatcherOptions big_embed_batching() {
  runtime::BatcherOptions batching;
  batching.max_queue = 16384;
  return batching;
}

bool writing_started(RunningServer& server) {
  return server.metrics().render().find("geoalign_requests_total{endpoint=\"/v1/embed\",code=\"200\"} 1") !=
         std::string::npos;
}

// A client that never reads its (several MiB) answer is closed at the write timeout.
TEST(ServeHttp, WriteTimeoutClosesAClientThatNeverReads) {
  auto options = big_embed_options();
  options.write_timeout = std::chrono::milliseconds(300);
  RunningServer server(big_embed_batching(), options);
  RawClient stalled(server.port(), 4096);
  stalled.send(post_request("/v1/embed", big_embed_body()));
  // The embedding takes 2 s alone, and over a minute with a build competing for the cores.
  EXPECT_TRUE(wait_for([&] { return server.metrics().write_timeouts.load() == 1; }, std::chrono::seconds(300)));
  EXPECT_EQ(server.get("/v2/health/live").status, 200);
}

// Answers that clients do not read are held in memory until the write timeout; past
// --max-unread-bytes of them, inference is refused (503, Retry-After) rather than adding
// more, and once the client goes the server answers again.
TEST(ServeHttp, UnreadAnswersBeyondTheCapRefuseInferenceUntilTheClientGoes) {
  auto options = big_embed_options();
  options.write_timeout = std::chrono::milliseconds(0);
  options.max_unread_bytes = 1 << 20;
  RunningServer server(big_embed_batching(), options);
  auto stalled = std::make_unique<RawClient>(server.port(), 4096);
  stalled->send(post_request("/v1/embed", big_embed_body()));
  // The answer (16,384 vectors: megabytes of JSON) outgrows the sockets' buffers, so
  // most of it stays unread in the server's memory.
  ASSERT_TRUE(wait_for([&] { return server.metrics().unread_answer_bytes.load() > (1 << 20); },
                       std::chrono::seconds(300)));
  const auto refused = server.post("/v1/match", match_body(1));
  EXPECT_EQ(refused.status, 503);
  EXPECT_NE(refused.body.find("--max-unread-bytes"), std::string::npos) << refused.body;
  EXPECT_EQ(refused.retry_after, "1");
  EXPECT_EQ(server.get("/v2/health/live").status, 200);  // not inference: still answered
  EXPECT_NE(server.get("/metrics").body.find("geoalign_unread_answer_bytes "), std::string::npos);
  stalled->reset();
  ASSERT_TRUE(wait_for([&] { return server.metrics().unread_answer_bytes.load() == 0; }));
  EXPECT_EQ(server.post("/v1/match", match_body(1)).status, 200);
}

// With no write timeout, the drain deadline still ends stop() on such a client.
TEST(ServeHttp, DrainDeadlineBoundsShutdown) {
  auto options = big_embed_options();
  options.write_timeout = std::chrono::milliseconds(0);
  options.drain_timeout = std::chrono::milliseconds(300);
  RunningServer server(big_embed_batching(), options);
  RawClient stalled(server.port(), 4096);
  stalled.send(post_request("/v1/embed", big_embed_body()));
  ASSERT_TRUE(wait_for([&] { return writing_started(server); }, std::chrono::seconds(300)));
  auto stopped = std::async(std::launch::async, [&server] { server.stop(); });
  if (stopped.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    ADD_FAILURE() << "stop() did not return within 30 s";
    std::_Exit(1);  // the server thread cannot be joined; do not hang the test run
  }
}

// At the drain deadline a connection whose request still waits in the queue is closed
// too, and its request is cancelled (the batcher skips it) rather than left holding the
// connection's state.
TEST(ServeHttp, DrainDeadlineCancelsRequestsStillQueued) {
  ServerOptions options;
  options.timeout = std::chrono::milliseconds(0);
  options.drain_timeout = std::chrono::milliseconds(200);
  RunningServer server({}, options);
  server.batcher().pause();
  RawClient client(server.port());
  client.send(post_request("/v1/match", match_body(1)));
  ASSERT_TRUE(wait_for([&] { return server.metrics().queue_depth.load() == 1; }));
  auto stopped = std::async(std::launch::async, [&server] { server.stop(); });
  if (stopped.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    ADD_FAILURE() << "stop() did not return within 30 s";
    std::_Exit(1);
  }
  EXPECT_TRUE(client.closed_by_server());
  EXPECT_EQ(server.metrics().pairs_scored.load(), 0u);
}

// The shipped model has a match head (the fixture has none): the head's path through the
// server, and text padded with invisible characters and blanks, which must neither change
// the answer nor poison the cache for the clean pair (its key is the normalized pair).
TEST(ServeHttp, MatchHeadAnswersNoisyTextAsCleanTextAndTheCacheStaysRight) {
  const auto shipped = source_dir() / "models/default";
  if (!std::filesystem::exists(shipped / "match_head.json")) GTEST_SKIP() << "no shipped match head";
  runtime::BatcherOptions batching;
  batching.cache_size = 100;
  RunningServer server(batching, {}, true, shipped);
  const std::string a = "杭州市西湖区文三路478号华星科技大厦", b = "文三路478号华星大厦";
  const std::string noisy_a = std::string(300, ' ') + a + "\u3000";
  const std::string noisy_b = "\uFEFF文\u200B三\u200B路 478号\u00A0华星大厦\u200B";
  const auto noisy = server.post("/v1/match", json{{"pairs", json::array({json::array({noisy_a, noisy_b})})}}.dump());
  const auto clean = server.post("/v1/match", json{{"pairs", json::array({json::array({a, b})})}}.dump());
  ASSERT_EQ(noisy.status, 200) << noisy.body;
  ASSERT_EQ(clean.status, 200) << clean.body;
  EXPECT_EQ(metric(server.get("/metrics").body, "geoalign_cache_hits_total"), 1u);  // the clean pair hit

  const auto matcher = Matcher::load(shipped, {.precision = Precision::Auto});
  const auto want = matcher.score(std::vector<AddressPair>{{a, b}})[0];
  for (const auto* reply : {&noisy, &clean}) {
    const auto r = json::parse(reply->body)["results"][0];
    EXPECT_EQ(r["label"], want.label);
    EXPECT_NEAR(r["probabilities"]["exact_match"].get<float>(), want.p_exact_match, 1e-5);
    EXPECT_NEAR(r["probabilities"]["not_match"].get<float>(), want.p_not_match, 1e-5);
  }
}

// /v1/search over a small index built here with the shipped model, served beside
// /v1/match by the same batcher.
class ServeSearch : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const auto model = engine::Engine::load(shipped(), {.precision = Precision::FP32});
    index::AddressIndex ix(shipped(), *model);
    ix.add(*model, {{"hz1", "杭州市西湖区文三路478号华星科技大厦"},
                    {"hz2", "杭州市西湖区文三路90号东部软件园"},
                    {"bj1", "北京市朝阳区建国路88号SOHO现代城"},
                    {"bj2", "北京市海淀区中关村大街27号"},
                    {"sz1", "深圳市南山区科技园科苑路15号"}});
    ix.save(*dir_ / "ix");
    engine_ = engine::Engine::load(shipped(), {.precision = Precision::FP32, .head = engine::Head::Rerank}).release();
    search_ = SearchKind::open(*dir_ / "ix", shipped(), *engine_).release();
  }
  static void TearDownTestSuite() {
    delete search_;
    delete engine_;
    delete dir_;
  }
  static std::filesystem::path shipped() { return source_dir() / "models/default"; }
  static RunningServer* start(runtime::BatcherOptions batching = {}, ServerOptions options = {}) {
    return new RunningServer(batching, options, true, shipped(), search_);
  }

  static TempDir* dir_;
  static engine::Engine* engine_;
  static SearchKind* search_;
};
TempDir* ServeSearch::dir_ = nullptr;
engine::Engine* ServeSearch::engine_ = nullptr;
SearchKind* ServeSearch::search_ = nullptr;

// `serve --index` loaded the weights a second time for search, always on the CPU: search
// now parses, embeds and reranks with the server's own engine, on its device.
TEST_F(ServeSearch, SearchUsesTheServersEngineNotASecondCopy) {
  EXPECT_EQ(&search_->model(), engine_);
  EXPECT_EQ(search_->model().head(), engine::Head::Rerank);
}

std::vector<std::string> result_ids(const json& query_results) {
  std::vector<std::string> ids;
  for (const auto& hit : query_results["results"]) ids.push_back(hit["id"]);
  return ids;
}

TEST_F(ServeSearch, FindsEachQuerysPlaceFirstInQueryOrder) {
  std::unique_ptr<RunningServer> server(start());
  const std::vector<std::string> queries = {"文三路478号华星大厦", "北京朝阳建国路88号", "\u200B深圳 南山科苑路15号"};
  const auto r = server->post("/v1/search", json{{"queries", queries}, {"k", 3}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const auto results = json::parse(r.body)["results"];
  ASSERT_EQ(results.size(), 3u);
  for (std::size_t q = 0; q < queries.size(); ++q) {
    EXPECT_EQ(results[q]["query"], queries[q]);
    EXPECT_LE(results[q]["results"].size(), 3u);
  }
  EXPECT_EQ(result_ids(results[0]).at(0), "hz1");
  EXPECT_EQ(result_ids(results[1]).at(0), "bj1");
  EXPECT_EQ(result_ids(results[2]).at(0), "sz1");
  EXPECT_TRUE(results[0]["results"][0].contains("label"));
  EXPECT_EQ(results[0]["results"][0]["text"], "杭州市西湖区文三路478号华星科技大厦");
  // The same answers as `geoalign search`: the batcher's embeddings are the index model's.
  const auto model = engine::Engine::load(shipped(), {.precision = Precision::FP32, .head = engine::Head::Rerank});
  const auto ix = index::AddressIndex::open(*dir_ / "ix");
  const index::Searcher searcher(ix, *model);
  index::SearchOptions options;
  options.k = 3;
  const auto want = searcher.search(queries, options);
  for (std::size_t q = 0; q < queries.size(); ++q) {
    ASSERT_EQ(results[q]["results"].size(), want[q].size());
    for (std::size_t k = 0; k < want[q].size(); ++k) {
      EXPECT_EQ(results[q]["results"][k]["id"], ix.id(want[q][k].record));
      EXPECT_NEAR(results[q]["results"][k]["score"].get<float>(), want[q][k].score, 1e-4);
    }
  }
  // Counted by endpoint; /v1/match still works beside it.
  EXPECT_EQ(server->post("/v1/match", match_body(2)).status, 200);
  EXPECT_NE(server->get("/metrics").body.find("geoalign_requests_total{endpoint=\"/v1/search\",code=\"200\"} 1"),
            std::string::npos);
}

TEST_F(ServeSearch, RegionAndRerankOptions) {
  std::unique_ptr<RunningServer> server(start());
  const auto r = server->post("/v1/search", R"({"queries": ["文三路478号华星大厦"], "region": "北京市"})");
  ASSERT_EQ(r.status, 200) << r.body;
  const auto ids = result_ids(json::parse(r.body)["results"][0]);
  EXPECT_FALSE(ids.empty());
  for (const auto& id : ids) EXPECT_EQ(id.substr(0, 2), "bj");
  // Without rerank the fused order comes back, and no label.
  const auto plain = server->post("/v1/search", R"({"queries": ["文三路478号华星大厦"], "rerank": 0, "k": 2})");
  ASSERT_EQ(plain.status, 200) << plain.body;
  const auto hits = json::parse(plain.body)["results"][0]["results"];
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_FALSE(hits[0].contains("label"));
  const auto unknown = server->post("/v1/search", R"({"queries": ["杭州"], "region": "不存在的地方"})");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_NE(json::parse(unknown.body)["error"].get<std::string>().find("region"), std::string::npos) << unknown.body;
}

TEST_F(ServeSearch, BadRequestsNameTheirField) {
  std::unique_ptr<RunningServer> server(start());
  const auto error = [&](const std::string& body) {
    const auto r = server->post("/v1/search", body);
    return std::to_string(r.status) + " " + json::parse(r.body).value("error", "");
  };
  EXPECT_EQ(error("{\"queries\": ["), "400 request body is not valid JSON (byte 14)");
  EXPECT_EQ(error("{}"), "400 missing field \"queries\"");
  EXPECT_EQ(error(R"({"queries": "杭州"})"), "400 \"queries\" must be an array of strings");
  EXPECT_EQ(error(R"({"queries": ["杭州", 3]})"), "400 queries[1] must be a string");
  EXPECT_EQ(error(R"({"queries": ["杭州", " \u200B"]})"), "422 queries[1] is empty");
  EXPECT_EQ(error(R"({"queries": ["杭州"], "k": 0})"), "400 \"k\" must be an integer from 1 to 10000");
  EXPECT_EQ(error(R"({"queries": ["杭州"], "k": "3"})"), "400 \"k\" must be an integer from 1 to 10000");
  EXPECT_EQ(error(R"({"queries": ["杭州"], "rerank": -1})"), "400 \"rerank\" must be an integer from 0 to 10000");
  EXPECT_EQ(error(R"({"queries": ["杭州"], "region": 11})"), "400 \"region\" must name a province, city or district");
  // An error quotes a short prefix of a bad value, not the value (a 900 KB region came back whole).
  const std::string huge_region(900 * 1024, 'x');
  const auto unknown = server->post("/v1/search", R"({"queries": ["杭州"], "region": ")" + huge_region + "\"}");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_LT(unknown.body.size(), 400u);
  EXPECT_NE(unknown.body.find("xxxx... (921600 bytes)\\\" is not a known"), std::string::npos) << unknown.body.substr(0, 300);
  const std::string huge_key(200 * 1024, 'k');
  const auto misspelt = server->post("/v1/search", R"({"queries": ["杭州"], ")" + huge_key + R"(": 1})");
  EXPECT_EQ(misspelt.status, 400);
  EXPECT_LT(misspelt.body.size(), 400u);
  // No queries, no results.
  const auto empty = server->post("/v1/search", R"({"queries": []})");
  EXPECT_EQ(empty.status, 200);
  EXPECT_EQ(json::parse(empty.body), json::parse(R"({"results": []})"));
}

TEST_F(ServeSearch, QueueLimitsAndTimeoutsAsForMatch) {
  runtime::BatcherOptions batching;
  batching.max_queue = 4;
  ServerOptions options;
  options.timeout = std::chrono::milliseconds(20000);
  std::unique_ptr<RunningServer> server(start(batching, options));
  const std::string three = R"({"queries": ["杭州文三路", "北京建国路", "深圳科苑路"]})";
  const auto too_many = server->post("/v1/search", R"({"queries": ["a", "b", "c", "d", "e"]})");
  EXPECT_EQ(too_many.status, 413);
  EXPECT_EQ(json::parse(too_many.body)["type"], "too_large");
  server->batcher().pause();
  auto waiting = std::async(std::launch::async, [&] { return server->post("/v1/search", three); });
  ASSERT_TRUE(wait_for([&] { return server->metrics().queue_depth.load() == 3; }));
  const auto full = server->post("/v1/search", R"({"queries": ["杭州", "北京"]})");
  EXPECT_EQ(full.status, 429);
  EXPECT_EQ(full.retry_after, "1");
  server->batcher().resume();
  EXPECT_EQ(waiting.get().status, 200);

  ServerOptions short_timeout;
  short_timeout.timeout = std::chrono::milliseconds(50);
  std::unique_ptr<RunningServer> slow(start({}, short_timeout));
  slow->batcher().pause();
  EXPECT_EQ(slow->post("/v1/search", three).status, 504);
  slow->batcher().resume();
}

TEST(ServeHttp, SearchWithoutAnIndexSaysHowToStartOne) {
  RunningServer server;
  const auto r = server.post("/v1/search", R"({"queries": ["杭州"]})");
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(json::parse(r.body)["error"].get<std::string>().find("--index"), std::string::npos) << r.body;
}

}  // namespace
}  // namespace geoalign::serve

namespace geoalign::serve {
namespace {

std::filesystem::path shipped_model() { return source_dir() / "models/default"; }

TEST(ServeHttp, ParseAnswersWhatTheCliPrints) {
  if (!std::filesystem::exists(shipped_model() / "match_head.json")) GTEST_SKIP() << "no shipped match head";
  RunningServer server({}, {}, true, shipped_model());
  const std::vector<std::string> addresses = {"杭州市西湖区文三路478号华星科技大厦", "北京市朝阳区建国路88号",
                                              "深圳市南山区科技园Ｂ栋３０１", "杭州市江干区景芳路12号"};
  const auto r = server.post("/v1/parse", json{{"addresses", addresses}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const auto results = json::parse(r.body)["results"];
  // `geoalign parse` with its default normalization, through the same library calls.
  const AddressParser parser = AddressParser::load(shipped_model() / "parser");
  const text::AddressNormalizer normalizer(text::NormalizeOptions::addresses());
  ASSERT_EQ(results.size(), addresses.size());
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    EXPECT_EQ(results[i], geo::parse_json(parser.parse(normalizer.normalize(addresses[i])))) << addresses[i];
  }
  EXPECT_EQ(results[3]["admin"]["historical"]["district"]["name"], "江干区");  // a former name
  // Items answered without the model leave the queue, and the gauge says so.
  EXPECT_TRUE(wait_for([&] { return server.metrics().queue_depth.load() == 0; }));
  const auto nothing_to_parse = server.post("/v1/parse", R"({"addresses": []})");
  EXPECT_EQ(nothing_to_parse.status, 200);
  EXPECT_EQ(json::parse(nothing_to_parse.body)["results"], json::array());
  const auto blank = server.post("/v1/parse", R"({"addresses": ["杭州", " "]})");
  EXPECT_EQ(blank.status, 422);
  EXPECT_EQ(json::parse(blank.body)["error"], "addresses[1] is empty");
  EXPECT_EQ(server.get("/v1/parse").status, 405);
  // An address longer than the parser reads is refused before it is queued.
  const auto too_long = server.post("/v1/parse", json{{"addresses", {"杭州", std::string(70000, 'x')}}}.dump());
  EXPECT_EQ(too_long.status, 422);
  EXPECT_EQ(json::parse(too_long.body)["error"], "addresses[1] is 70000 characters long; the parser reads at most 65536");
}

TEST(ServeHttp, ParseWithoutAParserSaysSo) {
  // The fixture model has no match head and no parser/: with no bundled parser either,
  // it has none.
  const auto bundled = model::bundled_parser_dir();
  model::set_bundled_parser_dir("/nonexistent/parser");
  RunningServer server;
  model::set_bundled_parser_dir(bundled);
  const auto r = server.post("/v1/parse", R"({"addresses": ["杭州"]})");
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(json::parse(r.body)["error"].get<std::string>().find("parser"), std::string::npos) << r.body;
}

json pairs_json(std::span<const std::pair<std::string, std::string>> pairs) {
  json out = json::array();
  for (const auto& [a, b] : pairs) out.push_back({a, b});
  return out;
}

// "explain": the answers of a plain match, each with both parses as /v1/parse gives them
// and the head inputs the answer rests on, valued as `geoalign features` values them.
TEST(ServeHttp, ExplainedMatchShowsParsesAndTheInputsTheAnswerRestsOn) {
  if (!std::filesystem::exists(shipped_model() / "match_head.json")) GTEST_SKIP() << "no shipped match head";
  RunningServer server({}, {}, true, shipped_model());
  const std::span<const std::pair<std::string, std::string>> pairs(kPairs.data(), 3);
  const auto plain = server.post("/v1/match", json{{"pairs", pairs_json(pairs)}}.dump());
  const auto explained = server.post("/v1/match", json{{"pairs", pairs_json(pairs)}, {"explain", true}}.dump());
  ASSERT_EQ(plain.status, 200) << plain.body;
  ASSERT_EQ(explained.status, 200) << explained.body;
  const json doc = json::parse(openapi_document());
  const auto problems = schema_problems(doc["components"]["schemas"]["MatchResponse"], json::parse(explained.body), doc);
  EXPECT_TRUE(problems.empty()) << (problems.empty() ? "" : problems[0]);

  const auto want = json::parse(plain.body)["results"];
  const auto got = json::parse(explained.body)["results"];
  ASSERT_EQ(got.size(), pairs.size());
  const runtime::PairScorer scorer(model::ModelFolder::load(shipped_model()));
  const auto& names = match::pair_feature_names();
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto& [a, b] = pairs[i];
    EXPECT_FALSE(want[i].contains("explanation"));
    EXPECT_EQ(got[i]["label"], want[i]["label"]) << a;
    for (const char* label : {"not_match", "partial_match", "exact_match"}) {
      EXPECT_NEAR(got[i]["probabilities"][label].get<float>(), want[i]["probabilities"][label].get<float>(), 1e-6);
    }
    const auto& why = got[i]["explanation"];
    const auto parses = server.post("/v1/parse", json{{"addresses", {a, b}}}.dump());
    EXPECT_EQ(why["parses"], json::parse(parses.body)["results"]) << a;

    const auto input = scorer.encode_pair(a, b);
    const auto& features = why["features"];
    ASSERT_FALSE(features.empty()) << a;
    EXPECT_LE(features.size(), kExplainedInputs);
    for (std::size_t k = 0; k < features.size(); ++k) {
      const std::string name = features[k]["name"];
      const float value = features[k]["value"];
      if (k > 0) {
        EXPECT_GE(std::abs(features[k - 1]["influence"].get<float>()), std::abs(features[k]["influence"].get<float>()));
      }
      if (name.starts_with("encoder_p")) {
        EXPECT_TRUE(value >= 0 && value <= 1) << name;
        continue;
      }
      if (name == "order_swapped") {  // the shipped head reads pairs in canonical order
        EXPECT_EQ(value, input.order_swapped ? 1.0f : 0.0f) << a;
        continue;
      }
      const auto at = std::find(names.begin(), names.end(), name);
      ASSERT_NE(at, names.end()) << name;
      EXPECT_EQ(value, input.pair_features[static_cast<std::size_t>(at - names.begin())]) << name << " of " << a;
    }
  }
  const auto bad = server.post("/v1/match", R"({"pairs": [["杭州", "北京"]], "explain": "yes"})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(json::parse(bad.body)["error"], "\"explain\" must be true or false");
}

TEST(ServeHttp, ExplainWithoutAMatchHeadSaysSo) {
  RunningServer server;  // the fixture model has no match head
  const auto r = server.post("/v1/match", R"({"pairs": [["杭州", "北京"]], "explain": true})");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(json::parse(r.body)["error"].get<std::string>().find("match head"), std::string::npos) << r.body;
  EXPECT_EQ(server.post("/v1/match", R"({"pairs": [["杭州", "北京"]], "explain": false})").status, 200);
}

// GET / is the playground: HTML, with a policy that lets it reach nothing but its server,
// and nothing in it that names another origin.
TEST(ServeHttp, PlaygroundIsOnePageThatReachesOnlyItsServer) {
  RunningServer server;
  const auto r = server.get("/");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.headers.at("content-type"), "text/html; charset=utf-8");
  EXPECT_EQ(r.headers.at("content-security-policy"), kPlaygroundContentSecurityPolicy);
  EXPECT_TRUE(r.body.starts_with("<!doctype html>"));
  EXPECT_EQ(r.body, playground_page("geoalign"));
  EXPECT_NE(r.body.find("'/v2/models/geoalign'"), std::string::npos);  // the labels it shows
  for (const char* route : {"'/v1/match'", "'/v1/parse'", "'/v1/search'"}) {
    EXPECT_NE(r.body.find(route), std::string::npos) << route;
  }
  for (const char* elsewhere : {"http:", "https:", "//cdn", "src=\"", "@import", "url("}) {
    EXPECT_EQ(r.body.find(elsewhere), std::string::npos) << elsewhere;
  }
  EXPECT_EQ(server.post("/", "{}").status, 405);
  EXPECT_EQ(server.get("/index.html").status, 404);
}

TEST(ServeHttp, ModelConfigDescribesTheBatcherAndTheMetadatasTensors) {
  runtime::BatcherOptions batching;
  batching.max_batch_size = 16;
  batching.max_queue_delay = std::chrono::microseconds(3500);
  RunningServer server(batching);
  const auto r = server.get("/v2/models/geoalign/config");
  ASSERT_EQ(r.status, 200) << r.body;
  const auto config = json::parse(r.body);
  EXPECT_EQ(config["name"], "geoalign");
  EXPECT_EQ(config["max_batch_size"], 16);
  EXPECT_EQ(config["dynamic_batching"]["max_queue_delay_microseconds"], 3500);
  // The same tensors as the metadata, in Triton's terms: no batch dimension in dims.
  const auto metadata = json::parse(server.get("/v2/models/geoalign").body);
  for (const auto& [meta_key, config_key] : {std::pair{"inputs", "input"}, std::pair{"outputs", "output"}}) {
    ASSERT_EQ(metadata[meta_key].size(), config[config_key].size());
    for (std::size_t i = 0; i < metadata[meta_key].size(); ++i) {
      const auto& m = metadata[meta_key][i];
      const auto& c = config[config_key][i];
      EXPECT_EQ(m["name"], c["name"]);
      EXPECT_EQ(c["data_type"], m["datatype"] == "BYTES" ? "TYPE_STRING" : "TYPE_" + m["datatype"].get<std::string>());
      const json per_pair(m["shape"].begin() + 1, m["shape"].end());
      EXPECT_EQ(c.contains("reshape") ? c["reshape"]["shape"] : c["dims"], per_pair) << c;
    }
  }
  EXPECT_EQ(server.post("/v2/models/geoalign/config", "{}").status, 405);
  const auto extensions = json::parse(server.get("/v2").body)["extensions"];
  EXPECT_NE(std::find(extensions.begin(), extensions.end(), "binary_tensor_data"), extensions.end());
}

// Binary requests built by hand, as tritonclient.http sends them, against /v1/match.
TEST(ServeHttp, BinaryTensorDataAgreesWithMatch) {
  RunningServer server;
  std::vector<std::string> a, b;
  for (const auto& p : kPairs) {
    a.push_back(p.first);
    b.push_back(p.second);
  }
  const auto want = json::parse(server.post("/v1/match", match_body(kPairs.size())).body)["results"];
  const auto request = binary_infer_request(
      a, b,
      {{"outputs", {{{"name", "label"}, {"parameters", {{"binary_data", true}}}},
                    {{"name", "probabilities"}, {"parameters", {{"binary_data", true}}}},
                    {{"name", "score"}}}}});
  RawClient client(server.port());
  client.send(post_request("/v2/models/geoalign/infer", request.body,
                           "Inference-Header-Content-Length: " + request.header_length + "\r\n"));
  RawClient::Response response;
  ASSERT_FALSE(client.read(response));
  ASSERT_EQ(response.result_int(), 200) << response.body();
  ASSERT_NE(response.find("Inference-Header-Content-Length"), response.end());
  const std::size_t n = std::stoul(std::string(response["Inference-Header-Content-Length"]));
  const std::string& body = response.body();
  const auto header = json::parse(body.substr(0, n));
  const auto& outputs = header["outputs"];
  ASSERT_EQ(outputs.size(), 3u);
  const std::size_t label_bytes = outputs[0]["parameters"]["binary_data_size"];
  const std::size_t prob_bytes = outputs[1]["parameters"]["binary_data_size"];
  ASSERT_EQ(n + label_bytes + prob_bytes, body.size());
  const auto labels = read_bytes_tensor(std::string_view(body).substr(n, label_bytes));
  const auto probs = read_fp32_tensor(std::string_view(body).substr(n + label_bytes, prob_bytes));
  ASSERT_EQ(labels.size(), kPairs.size());
  ASSERT_EQ(probs.size(), 3 * kPairs.size());
  for (std::size_t i = 0; i < kPairs.size(); ++i) {
    EXPECT_EQ(labels[i], want[i]["label"]);
    EXPECT_NEAR(probs[3 * i], want[i]["probabilities"]["not_match"].get<float>(), 1e-6);
    EXPECT_NEAR(probs[3 * i + 1], want[i]["probabilities"]["partial_match"].get<float>(), 1e-6);
    EXPECT_NEAR(probs[3 * i + 2], want[i]["probabilities"]["exact_match"].get<float>(), 1e-6);
    EXPECT_NEAR(outputs[2]["data"][i].get<float>(), want[i]["score"].get<float>(), 1e-6);
  }
  // A header length past the body is a clear 400, and the connection goes on.
  client.send(post_request("/v2/models/geoalign/infer", request.body,
                           "Inference-Header-Content-Length: " + std::to_string(request.body.size() + 1) + "\r\n"));
  RawClient::Response refused;
  ASSERT_FALSE(client.read(refused));
  EXPECT_EQ(refused.result_int(), 400) << refused.body();
  EXPECT_NE(json::parse(refused.body()).value("error", "").find("Inference-Header-Content-Length"), std::string::npos)
      << refused.body();
  EXPECT_EQ(server.post("/v1/match", match_body(1)).status, 200);
}

// Every request example of /openapi.json, sent to a server with an index and a parser,
// gets the documented 200, and the answer fits the documented schema; so does every GET.
TEST_F(ServeSearch, OpenApiExamplesGetTheirDocumentedStatus) {
  std::unique_ptr<RunningServer> server(start());
  const auto served = server->get("/openapi.json");
  ASSERT_EQ(served.status, 200);
  const json doc = json::parse(served.body);
  for (const auto& [documented, item] : doc["paths"].items()) {
    // A documented path names the model {model}; the server's is the default.
    const std::string path = route_target(*find_route(documented, kModelPlaceholder));
    for (const auto& [method, operation] : item.items()) {
      const auto r = method == "post"
                         ? server->post(path, operation["requestBody"]["content"]["application/json"]["example"].dump())
                         : server->get(path);
      ASSERT_EQ(r.status, 200) << method << " " << path << ": " << r.body;
      const auto& content = operation["responses"]["200"]["content"];
      if (!content.contains("application/json")) continue;
      const auto problems = schema_problems(content["application/json"]["schema"], json::parse(r.body), doc);
      EXPECT_TRUE(problems.empty()) << method << " " << path << ": " << (problems.empty() ? "" : problems[0]);
    }
  }
  // An error answer fits the Error schema.
  const auto error = server->post("/v1/match", "{}");
  EXPECT_TRUE(schema_problems(doc["components"]["schemas"]["Error"], json::parse(error.body), doc).empty());
}

}  // namespace
}  // namespace geoalign::serve
