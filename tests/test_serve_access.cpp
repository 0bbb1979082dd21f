// Who may use the server: API keys (serve --api-key, --api-keys-file, --open-endpoints)
// and browsers on other origins (--cors-allow-origin), on `geoalign serve` as a process,
// so the options, the log and SIGHUP are the ones a deployment gets.
#include <gtest/gtest.h>

#include <signal.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "geoalign/error.h"
#include "loadtest/load_generator.h"
#include "serve/api_keys.h"
#include "serve/cors.h"
#include "serve/routes.h"
#include "support/http_client.h"
#include "support/serve_process.h"
#include "support/temp_dir.h"

namespace geoalign::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using serve::ApiKeys;
using serve::CorsPolicy;

// Keys no log line could hold by chance.
const std::string kKey = "gak-7Qm2Zr9X", kOtherKey = "gak-second-Lp4w", kWrongKey = "gak-WRONG-guess-81";

std::vector<std::string> with_model(std::vector<std::string> args) {
  args.insert(args.begin(), {"--model", fixture_model().string()});
  return args;
}

std::map<std::string, std::string> bearer(const std::string& key) { return {{"Authorization", "Bearer " + key}}; }

// A body each POST route accepts (search has no index here and answers 404 with any key).
std::string body_for(const serve::Route& route) {
  if (route.path == std::string_view("/v1/match")) return R"({"pairs": [["杭州市文三路90号", "杭州文三路90号"]]})";
  if (route.path == std::string_view("/v1/embed")) return R"({"addresses": ["杭州市文三路90号"]})";
  if (route.path == std::string_view("/v1/parse")) return R"({"addresses": ["杭州市文三路90号"]})";
  if (route.path == std::string_view("/v1/search")) return R"({"queries": ["杭州市文三路90号"]})";
  if (route.path == std::string_view("/rerank")) return R"({"query": "杭州市文三路90号", "texts": ["杭州文三路90号"]})";
  if (route.path == std::string_view("/v1/embeddings")) return R"({"input": "杭州市文三路90号"})";
  return R"({"inputs": [{"name": "addr1", "shape": [1], "datatype": "BYTES", "data": ["杭州市文三路90号"]},
                       {"name": "addr2", "shape": [1], "datatype": "BYTES", "data": ["杭州文三路90号"]}]})";
}

HttpResponse call(unsigned short port, const serve::Route& route, const std::map<std::string, std::string>& headers) {
  return http_request(port, std::string(route.method), serve::route_target(route),
                      route.method == std::string_view("POST") ? body_for(route) : "", headers);
}

std::uint64_t counter(const std::string& metrics, const std::string& name) {
  const auto at = metrics.find("\n" + name + " ");
  return at == std::string::npos ? 0 : std::stoull(metrics.substr(at + name.size() + 2));
}

bool log_says(const ServeProcess& server, const std::string& text, std::chrono::milliseconds limit = 10s) {
  for (const auto until = std::chrono::steady_clock::now() + limit; std::chrono::steady_clock::now() < until;) {
    if (server.log().find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

// Every route of the table: the health group answers without a key, every other route
// answers 401 (with WWW-Authenticate and a JSON error) without one or with a wrong one,
// and as it would without keys with either key. No key, right or wrong, reaches the log.
TEST(ServeAccess, KeysGuardEveryEndpointButTheOpenOnes) {
  ServeProcess server(with_model({"--api-key", kKey, "--api-key", kOtherKey}));
  ASSERT_TRUE(server.wait_ready()) << server.log();
  std::uint64_t refused = 0;
  for (const auto& route : serve::routes()) {
    const bool open = serve::route_access_group(route.id) == "health";
    for (const auto& headers : {std::map<std::string, std::string>{}, bearer(kWrongKey), bearer(kKey + "x"),
                                bearer(kKey.substr(0, 6)), std::map<std::string, std::string>{{"Authorization", kKey}}}) {
      const auto r = call(server.port(), route, headers);
      if (open) {
        EXPECT_EQ(r.status, 200) << route.path;
        continue;
      }
      ++refused;
      EXPECT_EQ(r.status, 401) << route.path;
      EXPECT_EQ(r.headers.count("www-authenticate") ? r.headers.at("www-authenticate") : "", "Bearer") << route.path;
      EXPECT_EQ(json::parse(r.body)["type"], "unauthorized") << route.path;
    }
    for (const auto& key : {kKey, kOtherKey}) {
      const auto r = call(server.port(), route, bearer(key));
      const int expected = route.path == std::string_view("/v1/search") ? 404 : 200;
      EXPECT_EQ(r.status, expected) << route.path << ": " << r.body;
    }
  }
  // The scheme's name is case-insensitive.
  EXPECT_EQ(http_request(server.port(), "GET", "/metrics", "", {{"Authorization", "bearer " + kOtherKey}}).status, 200);
  const auto metrics = http_request(server.port(), "GET", "/metrics", "", bearer(kKey)).body;
  EXPECT_EQ(counter(metrics, "geoalign_unauthorized_requests_total"), refused);
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait_exit(20s), 0) << server.log();
  for (const auto& key : {kKey, kOtherKey, kWrongKey, kKey.substr(4)}) {
    EXPECT_EQ(server.log().find(key), std::string::npos) << "the log holds a key:\n" << server.log();
  }
}

// --api-keys-file is read again on SIGHUP: a key taken out stops working and a new one
// works at once; a file that cannot be read keeps the keys in use and says which line.
TEST(ServeAccess, TheKeysFileIsReadAgainOnSighup) {
  TempDir dir;
  const auto file = dir / "keys.txt";
  write_file(file, "# the team's keys\n\n  " + kKey + "  \n");
  ServeProcess server(with_model({"--api-keys-file", file.string()}));
  ASSERT_TRUE(server.wait_ready()) << server.log();
  const std::string match = R"({"pairs": [["杭州市文三路90号", "杭州文三路90号"]]})";
  EXPECT_EQ(http_request(server.port(), "POST", "/v1/match", match, bearer(kKey)).status, 200);
  EXPECT_EQ(http_request(server.port(), "POST", "/v1/match", match, bearer(kOtherKey)).status, 401);

  write_file(file, kOtherKey + "\n");
  server.signal(SIGHUP);
  ASSERT_TRUE(log_says(server, "SIGHUP: 1 API keys in use")) << server.log();
  EXPECT_EQ(http_request(server.port(), "POST", "/v1/match", match, bearer(kKey)).status, 401);
  EXPECT_EQ(http_request(server.port(), "POST", "/v1/match", match, bearer(kOtherKey)).status, 200);

  write_file(file, kOtherKey + "\nhas a blank " + kWrongKey + "\n");
  server.signal(SIGHUP);
  ASSERT_TRUE(log_says(server, file.string() + ":2: a blank or control character")) << server.log();
  EXPECT_TRUE(log_says(server, "the 1 API keys in use stay")) << server.log();
  EXPECT_EQ(http_request(server.port(), "POST", "/v1/match", match, bearer(kOtherKey)).status, 200);
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait_exit(20s), 0) << server.log();
  for (const auto& key : {kKey, kOtherKey, kWrongKey}) EXPECT_EQ(server.log().find(key), std::string::npos) << server.log();
}

// --open-endpoints names the groups answered without a key (replacing the default,
// health); a wrong group, the option without keys, a missing or empty keys file are
// refused at start, naming what is wrong.
TEST(ServeAccess, OpenEndpointsAndBadAccessOptions) {
  {
    ServeProcess server(with_model({"--api-key", kKey, "--open-endpoints", "metrics,openapi"}));
    ASSERT_TRUE(server.wait_ready()) << server.log();
    EXPECT_EQ(http_request(server.port(), "GET", "/metrics").status, 200);
    EXPECT_EQ(http_request(server.port(), "GET", "/openapi.json").status, 200);
    EXPECT_EQ(http_request(server.port(), "GET", "/v2/health/ready").status, 401);
    EXPECT_EQ(http_request(server.port(), "GET", "/v2/health/ready", "", bearer(kKey)).status, 200);
  }
  TempDir dir;
  write_file(dir / "empty.txt", "# nothing yet\n");
  const std::vector<std::tuple<std::vector<std::string>, int, std::string>> refused = {
      {{"--api-key", kKey, "--open-endpoints", "health,inference"}, 2, "unknown group \"inference\""},
      {{"--open-endpoints", "metrics"}, 2, "give --api-key or --api-keys-file too"},
      {{"--api-keys-file", (dir / "missing.txt").string()}, 1, "cannot open the API keys file"},
      {{"--api-keys-file", (dir / "empty.txt").string()}, 1, "holds no key"},
      {{"--api-key", "two words"}, 1, "--api-key 1: a blank or control character"},
      {{"--cors-allow-origin", "http://app.test/"}, 2, "is not an origin"},
  };
  for (const auto& [args, status, message] : refused) {
    ServeProcess server(with_model(args));
    EXPECT_EQ(server.wait_exit(20s), status) << message << "\n" << server.log();
    EXPECT_NE(server.log().find(message), std::string::npos) << server.log();
  }
}

// A preflight from an allowed origin is answered 204 with what the browser needs, without
// a key; answers to that origin carry Access-Control-Allow-Origin; another origin gets
// neither (the browser then keeps the answer from its page), and without the option no
// CORS header is sent at all.
TEST(ServeAccess, CorsAllowsTheOriginsGivenAndNoOthers) {
  const std::string allowed = "http://app.test:8000", other = "http://elsewhere.test";
  const std::string match = R"({"pairs": [["杭州市文三路90号", "杭州文三路90号"]]})";
  const auto preflight = [&](unsigned short port, const std::string& origin) {
    return http_request(port, "OPTIONS", "/v1/match", "",
                        {{"Origin", origin}, {"Access-Control-Request-Method", "POST"},
                         {"Access-Control-Request-Headers", "authorization, content-type"}});
  };
  {
    ServeProcess server(with_model({"--cors-allow-origin", allowed, "--api-key", kKey}));
    ASSERT_TRUE(server.wait_ready()) << server.log();
    const auto ok = preflight(server.port(), allowed);
    EXPECT_EQ(ok.status, 204);
    EXPECT_EQ(ok.headers.at("access-control-allow-origin"), allowed);
    EXPECT_EQ(ok.headers.at("access-control-allow-methods"), "POST");
    EXPECT_NE(ok.headers.at("access-control-allow-headers").find("Authorization"), std::string::npos);
    const auto refused = preflight(server.port(), other);
    EXPECT_EQ(refused.status, 405);
    EXPECT_EQ(refused.headers.count("access-control-allow-origin"), 0u);
    auto with_origin = bearer(kKey);
    with_origin["Origin"] = allowed;
    const auto answer = http_request(server.port(), "POST", "/v1/match", match, with_origin);
    EXPECT_EQ(answer.status, 200);
    EXPECT_EQ(answer.headers.at("access-control-allow-origin"), allowed);
    EXPECT_EQ(answer.headers.at("vary"), "Origin");
    with_origin["Origin"] = other;
    EXPECT_EQ(http_request(server.port(), "POST", "/v1/match", match, with_origin).headers.count("access-control-allow-origin"),
              0u);
  }
  {
    ServeProcess server(with_model({"--cors-allow-origin", "*"}));
    ASSERT_TRUE(server.wait_ready()) << server.log();
    EXPECT_EQ(preflight(server.port(), other).headers.at("access-control-allow-origin"), "*");
  }
  {
    ServeProcess server(with_model({}));
    ASSERT_TRUE(server.wait_ready()) << server.log();
    const auto r = preflight(server.port(), allowed);
    EXPECT_EQ(r.status, 405);
    for (const char* name : {"access-control-allow-origin", "vary"}) EXPECT_EQ(r.headers.count(name), 0u) << name;
  }
}

// loadtest --api-key: every request carries the key; without it every one is refused.
TEST(ServeAccess, LoadtestSendsItsKey) {
  ServeProcess server(with_model({"--api-key", kKey}));
  ASSERT_TRUE(server.wait_ready()) << server.log();
  auto target = loadtest::Target::parse("http://127.0.0.1:" + std::to_string(server.port()) + "/v1/match");
  const std::vector<std::string> bodies = {R"({"pairs": [["杭州市文三路90号", "杭州文三路90号"]]})"};
  loadtest::LoadOptions options;
  options.concurrency = 2;
  options.duration = 300ms;
  options.warmup = 0ms;
  const auto refused = loadtest::run_level(target, bodies, options);
  EXPECT_EQ(refused.ok, 0u);
  EXPECT_GT(refused.errors.count("http_401") ? refused.errors.at("http_401") : 0, 0u);
  target.api_key = kKey;
  const auto served = loadtest::run_level(target, bodies, options);
  EXPECT_GT(served.ok, 0u);
  EXPECT_EQ(served.error_count(), 0u);
}

TEST(ApiKeys, AdmitsOnlyAWholeKeyAfterBearer) {
  const ApiKeys keys({kKey, kOtherKey}, {});
  EXPECT_TRUE(keys.admits("Bearer " + kKey));
  EXPECT_TRUE(keys.admits("BEARER " + kOtherKey));
  EXPECT_TRUE(keys.admits("Bearer  " + kKey + " "));  // blanks around the token
  for (const std::string& refused : std::vector<std::string>{std::string(), kKey, "Basic " + kKey, "Bearer", "Bearer ",
                                                               "Bearer " + kKey + "0",
                                     "Bearer " + kKey.substr(0, kKey.size() - 1), "Bearer " + kKey + " " + kOtherKey}) {
    EXPECT_FALSE(keys.admits(refused)) << refused;
  }
  EXPECT_THROW(ApiKeys({}, {}), Error);
  EXPECT_THROW(ApiKeys({""}, {}), Error);
  EXPECT_THROW(ApiKeys({std::string(ApiKeys::kMaxKeyBytes + 1, 'k')}, {}), Error);
}

TEST(CorsPolicy, OriginsAreSchemeHostAndPort) {
  for (const char* good : {"*", "http://localhost:3000", "https://app.example.com", "http://[::1]:8080"}) {
    EXPECT_NO_THROW(CorsPolicy({good})) << good;
  }
  for (const char* bad : {"", "localhost:3000", "http://app.test/", "http://app.test/path", "https://", "http://a b"}) {
    EXPECT_THROW(CorsPolicy({bad}), Error) << bad;
  }
  const CorsPolicy none;
  EXPECT_FALSE(none.enabled());
  EXPECT_TRUE(none.answer_headers("http://app.test").empty());
  const CorsPolicy some({"http://app.test"});
  EXPECT_FALSE(some.preflight("http://app.test", "DELETE", "POST").has_value());
  EXPECT_TRUE(some.preflight("http://app.test", "HEAD", "GET").has_value());
}

}  // namespace
}  // namespace geoalign::testing
