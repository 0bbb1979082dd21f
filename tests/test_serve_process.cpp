// `geoalign serve` as a child process: start-up checks, descriptor exhaustion and
// shutdown, which an in-process server cannot show.
#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/affinity.h"
#include "support/gpu.h"
#include "support/raw_client.h"
#include "support/serve_process.h"

namespace geoalign::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

std::vector<std::string> with_model(std::vector<std::string> args) {
  args.insert(args.begin(), {"--model", fixture_model().string()});
  return args;
}

std::uint64_t counter(const std::string& metrics, const std::string& name) {
  const auto at = metrics.find("\n" + name + " ");
  return at == std::string::npos ? 0 : std::stoull(metrics.substr(at + name.size() + 2));
}

std::string get_request(const std::string& target) { return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"; }

// --max-queue below the batch size made warm-up throw and left a process answering 503
// forever; now it is refused at start.
TEST(ServeProcess, QueueSmallerThanABatchIsRefusedAtStart) {
  ServeProcess server(with_model({"--max-batch-size", "64", "--max-queue", "32"}));
  const auto status = server.wait_exit(20s);
  ASSERT_TRUE(status.has_value()) << "still running:\n" << server.log();
  EXPECT_EQ(*status, 2);
  EXPECT_NE(server.log().find("--max-queue"), std::string::npos) << server.log();
}

// A model name that cannot stand in a path is a usage error, before the model loads.
TEST(ServeProcess, AModelNameThatIsNotAPathSegmentIsRefusedAtStart) {
  ServeProcess server(with_model({"--model-name", "a/b"}));
  const auto status = server.wait_exit(20s);
  ASSERT_TRUE(status.has_value()) << "still running:\n" << server.log();
  EXPECT_EQ(*status, 2);
  EXPECT_NE(server.log().find("--model-name must be 1 to 128 of A-Z a-z 0-9 _ - ., not \"a/b\""), std::string::npos)
      << server.log();
}

// A server asked for a GPU it cannot use stops before listening, saying why; it never
// serves from the CPU instead.
TEST(ServeProcess, AGpuThatCannotBeUsedStopsItAtStart) {
  const std::string why = gpu_refusal();
  if (why.empty()) GTEST_SKIP() << "this machine has a usable GPU";
  ServeProcess server(with_model({"--device", "cuda"}));
  const auto status = server.wait_exit(20s);
  ASSERT_TRUE(status.has_value()) << "still running:\n" << server.log();
  EXPECT_EQ(*status, 1);
  EXPECT_NE(server.log().find(why), std::string::npos) << server.log();
  EXPECT_EQ(server.log().find("listening"), std::string::npos) << server.log();
}

// The CPUs each thread of process `pid` may run on, one entry per thread.
std::vector<std::vector<int>> thread_affinities(pid_t pid) {
  std::vector<std::vector<int>> out;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    auto cpus = cpus_of_thread(std::stoi(task.path().filename().string()));
    if (!cpus.empty()) out.push_back(std::move(cpus));
  }
  return out;
}

// The CPUs the threads of a server started with `args` are pinned to, one entry per
// pinned thread, once warm-up has run a batch; every other thread may use all of them.
std::vector<int> pinned_threads(const std::vector<std::string>& args) {
  const std::size_t cpus = cpus_of_thread().size();
  ServeProcess server(with_model(args));
  EXPECT_TRUE(server.wait_ready()) << server.log();  // warm-up has run a batch
  std::vector<int> pinned;
  for (const auto& affinity : thread_affinities(server.pid())) {
    if (affinity.size() == 1 && cpus > 1) {
      pinned.push_back(affinity[0]);
    } else {
      EXPECT_EQ(affinity.size(), cpus);
    }
  }
  return pinned;
}

// Under /v1/parse load the scheduler left the model's thread and its OpenMP worker on one
// core in 4 ms turns (p99 of /v1/match 36-63 ms against 5 alone). --pin-threads auto (the
// default) gives each model thread a CPU of its own when there is one per allowed CPU,
// and leaves a smaller team alone; on pins a smaller team too; off pins nothing; anything
// else is a usage error. Nothing but the model's threads is pinned.
TEST(ServeProcess, TheModelsThreadsArePinnedEachToACpuOfItsOwn) {
  const std::vector<int> allowed = cpus_of_thread();
  ServeProcess bad(with_model({"--pin-threads", "always"}));
  EXPECT_EQ(bad.wait_exit(20s), 2) << bad.log();
  EXPECT_NE(bad.log().find("--pin-threads"), std::string::npos) << bad.log();
  if (allowed.size() < 2) GTEST_SKIP() << "one CPU: pinned and unpinned threads look the same";

  EXPECT_EQ(pinned_threads({"--threads", "1", "--pin-threads", "on"}), std::vector<int>{allowed[0]});
  EXPECT_TRUE(pinned_threads({"--threads", "1", "--pin-threads", "auto"}).empty());
  EXPECT_TRUE(pinned_threads({"--threads", "1", "--pin-threads", "off"}).empty());
  // A team of one thread per CPU: under ThreadSanitizer (OMP_NUM_THREADS=1 there, as
  // libgomp's uninstrumented workers give false reports) only the one-thread cases run.
  if (const char* omp = std::getenv("OMP_NUM_THREADS"); omp != nullptr && std::string(omp) == "1") return;
  const std::string team = std::to_string(allowed.size());
  std::vector<int> pinned = pinned_threads({"--threads", team, "--pin-threads", "auto"});
  std::sort(pinned.begin(), pinned.end());
  EXPECT_EQ(pinned, allowed);  // each on a CPU of its own, every CPU used
  EXPECT_TRUE(pinned_threads({"--threads", team, "--pin-threads", "off"}).empty());
}

// One failed accept (EMFILE) used to stop accepting for good. With 64 descriptors, 100
// connections exhaust them; once they close, the server accepts again and /metrics
// counts the errors.
TEST(ServeProcess, AcceptsAgainAfterDescriptorExhaustion) {
#if defined(__SANITIZE_ADDRESS__)
  // The sanitizer build also has UBSan, whose vptr check probes memory through a pipe:
  // out of descriptors, it reports every virtual call it has not cached (such as
  // error_code::message()) as an invalid vptr. The Release and TSan runs cover this test.
  GTEST_SKIP() << "UBSan's vptr check needs free descriptors";
#endif
  ServeProcess server(with_model({}), 64);
  ASSERT_TRUE(server.wait_ready()) << server.log();
  RawClient keeper(server.port());  // accepted before the exhaustion, kept alive
  RawClient::Response r;
  keeper.send(get_request("/v2/health/live"));
  ASSERT_FALSE(keeper.read(r)) << server.log();
  std::vector<std::unique_ptr<RawClient>> flood;
  for (int i = 0; i < 100; ++i) flood.push_back(std::make_unique<RawClient>(server.port()));
  // Wait (on the kept connection) until the server has met the limit.
  std::uint64_t errors = 0;
  for (auto until = std::chrono::steady_clock::now() + 20s; errors == 0 && std::chrono::steady_clock::now() < until;) {
    keeper.send(get_request("/metrics"));
    r = {};
    ASSERT_FALSE(keeper.read(r)) << server.log();
    errors = counter(r.body(), "geoalign_accept_errors_total");
    if (errors == 0) std::this_thread::sleep_for(20ms);
  }
  EXPECT_GT(errors, 0u) << server.log();
  flood.clear();
  RawClient fresh(server.port());
  fresh.send(get_request("/v2/health/live"));
  r = {};
  EXPECT_FALSE(fresh.read(r, 20s)) << server.log();
  EXPECT_EQ(r.result_int(), 200);
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait_exit(20s), 0) << server.log();
}

// Every signal that would end the process drains it as SIGTERM does: SIGQUIT, SIGUSR1 and
// SIGUSR2 killed it at once, losing the requests it had accepted. SIGHUP is logged and
// ignored (57 accepted requests were lost to it).
TEST(ServeProcess, TerminatingSignalsDrainAndAHangupIsIgnored) {
  for (const int sig : {SIGQUIT, SIGUSR1, SIGUSR2}) {
    ServeProcess server(with_model({}));
    ASSERT_TRUE(server.wait_ready()) << server.log();
    server.signal(SIGHUP);
    RawClient client(server.port());
    client.send(get_request("/v2/health/live"));
    RawClient::Response r;
    ASSERT_FALSE(client.read(r)) << server.log();
    EXPECT_EQ(r.result_int(), 200);
    for (auto until = std::chrono::steady_clock::now() + 10s;
         server.log().find("SIGHUP ignored") == std::string::npos && std::chrono::steady_clock::now() < until;) {
      std::this_thread::sleep_for(10ms);
    }
    EXPECT_NE(server.log().find("SIGHUP ignored"), std::string::npos) << server.log();
    server.signal(sig);
    EXPECT_EQ(server.wait_exit(20s), 0) << "signal " << sig << ":\n" << server.log();
    EXPECT_NE(server.log().find("draining"), std::string::npos) << server.log();
  }
}

// With its log pipe closed (`geoalign serve 2>&1 | head -1` once head has exited), the
// server's next log line raised SIGPIPE and ended it.
TEST(ServeProcess, AClosedLogPipeLeavesTheServerRunning) {
  const unsigned short port = ServeProcess::free_port();
  ServeProcess server(with_model({"--port", std::to_string(port)}), ServeProcess::Log::ClosedPipe);
  ASSERT_TRUE(server.wait_answering(port)) << "exit status " << server.wait_exit(0ms).value_or(-1);
  server.signal(SIGHUP);  // logs a line
  std::this_thread::sleep_for(200ms);
  EXPECT_TRUE(server.wait_answering(port, 5s)) << "exit status " << server.wait_exit(0ms).value_or(-1);
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait_exit(20s), 0);
}

// Past --max-connections a connection is answered 503 and closed; one that closes makes
// room for the next.
TEST(ServeProcess, ConnectionsPastTheCapAreAnswered503) {
  ServeProcess server(with_model({"--max-connections", "2"}));
  ASSERT_TRUE(server.wait_ready()) << server.log();
  auto first = std::make_unique<RawClient>(server.port());
  RawClient second(server.port());
  RawClient::Response r;
  first->send(get_request("/v2/health/live"));
  ASSERT_FALSE(first->read(r)) << server.log();  // both accepted by now
  second.send(get_request("/v2/health/live"));
  ASSERT_FALSE(second.read(r)) << server.log();
  RawClient third(server.port());
  third.send(get_request("/v2/health/live"));
  r = {};
  ASSERT_FALSE(third.read(r)) << server.log();
  EXPECT_EQ(r.result_int(), 503);
  EXPECT_EQ(r[boost::beast::http::field::retry_after], "1");
  EXPECT_EQ(json::parse(r.body())["type"], "unavailable");
  EXPECT_TRUE(third.closed_by_server());
  first.reset();
  for (auto until = std::chrono::steady_clock::now() + 20s; std::chrono::steady_clock::now() < until;) {
    RawClient next(server.port());
    next.send(get_request("/metrics"));
    r = {};
    ASSERT_FALSE(next.read(r)) << server.log();
    if (r.result_int() == 200) {
      EXPECT_EQ(counter(r.body(), "geoalign_refused_connections_total"), 1u) << r.body();
      break;
    }
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(r.result_int(), 200);
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait_exit(20s), 0) << server.log();
}

// A client that never reads a large response used to keep SIGTERM, a second SIGTERM and
// SIGINT from ending the process. Now the drain deadline (or a second signal) ends it.
// The response (16,384 embeddings, ~6 MB) outgrows both sockets' buffers, so its write
// stalls; `stalled` says the server got that far (its counter shows the answer).
struct StalledClient {
  std::unique_ptr<RawClient> client;
  bool stalled = false;
};

StalledClient stalled_embed_client(ServeProcess& server) {
  json addresses = json::array();
  for (int i = 0; i < 16384; ++i) addresses.push_back("建国路" + std::to_string(i) + "号");
  StalledClient result{std::make_unique<RawClient>(server.port(), 4096)};
  result.client->send(post_request("/v1/embed", json{{"addresses", addresses}}.dump()));
  RawClient probe(server.port());
  for (auto until = std::chrono::steady_clock::now() + 120s; std::chrono::steady_clock::now() < until;) {
    probe.send(get_request("/metrics"));
    RawClient::Response r;
    if (probe.read(r)) break;
    if (r.body().find("geoalign_requests_total{endpoint=\"/v1/embed\",code=\"200\"} 1") != std::string::npos) {
      result.stalled = true;
      break;
    }
    std::this_thread::sleep_for(20ms);
  }
  return result;
}

// No per-request timeout: on a slow machine the embedding must still end in a 200.
const std::vector<std::string> kBigEmbedOptions = {"--max-pairs-per-request", "16384", "--max-queue", "16384",
                                                   "--max-body-bytes",       "4194304", "--write-timeout-ms", "600000",
                                                   "--timeout-ms",           "0"};

TEST(ServeProcess, DrainDeadlineEndsAProcessStuckOnAClientThatNeverReads) {
  auto options = kBigEmbedOptions;
  options.insert(options.end(), {"--drain-timeout-ms", "500"});
  ServeProcess server(with_model(options));
  ASSERT_TRUE(server.wait_ready()) << server.log();
  const auto client = stalled_embed_client(server);
  ASSERT_TRUE(client.stalled) << "the embedding never finished:\n" << server.log();
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait_exit(20s), 0) << server.log();
  EXPECT_NE(server.log().find("drain deadline"), std::string::npos) << server.log();
}

TEST(ServeProcess, SecondSignalEndsTheDrainAtOnce) {
  auto options = kBigEmbedOptions;
  options.insert(options.end(), {"--drain-timeout-ms", "600000"});
  ServeProcess server(with_model(options));
  ASSERT_TRUE(server.wait_ready()) << server.log();
  const auto client = stalled_embed_client(server);
  ASSERT_TRUE(client.stalled) << "the embedding never finished:\n" << server.log();
  server.signal(SIGTERM);
  EXPECT_FALSE(server.wait_exit(200ms).has_value()) << server.log();  // still draining
  server.signal(SIGINT);
  EXPECT_EQ(server.wait_exit(20s), 0) << server.log();
}

}  // namespace
}  // namespace geoalign::testing
