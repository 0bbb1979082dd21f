#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <future>
#include <thread>

#include "backend/device.h"
#include "backend/memory.h"
#include "backend/threads.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/model_options.h"
#include "cli/pair_scoring.h"
#include "model/model_folder.h"
#include "model/precision.h"
#include "serve/grpc/kserve_grpc_server.h"
#include "serve/http_server.h"
#include "serve/routes.h"
#include "serve/search_kind.h"
#include "text/excerpt.h"

namespace geoalign::cli {

namespace {

// Each keep-alive connection is a file descriptor; the usual soft limit of 1024 would
// cap the server below a thousand clients.
void raise_open_file_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// Waits for one request through the batcher; throws when it fails.
void run_to_end(runtime::Batcher& batcher, const std::shared_ptr<runtime::InferenceRequest>& request) {
  std::promise<void> finished;
  request->done = [&finished](runtime::InferenceRequest&) { finished.set_value(); };
  if (!batcher.submit(request)) throw Error("warm-up could not be queued");
  finished.get_future().wait();
  if (request->outcome != runtime::InferenceRequest::Outcome::Ok) throw Error("warm-up failed: " + request->error);
}

// Runs a few batches of every size class through the model before readiness, so the
// first real requests do not pay for first-touch allocation and primitive creation, and
// one search through every stage when there is an index.
void warm_up(runtime::Batcher& batcher, const serve::SearchKind* search) {
  for (std::size_t n : {std::size_t{1}, batcher.options().max_batch_size}) {
    auto request = std::make_shared<runtime::InferenceRequest>();
    request->kind = &runtime::match_kind();
    for (std::size_t i = 0; i < n; ++i) {
      request->first.push_back("浙江省杭州市西湖区文三路478号华星科技大厦" + std::to_string(i));
      request->second.push_back("杭州文三路478号华星大厦" + std::to_string(i));
    }
    run_to_end(batcher, request);
  }
  if (search) run_to_end(batcher, search->make_request({"浙江省杭州市西湖区文三路478号"}, {}));
}

// --api-key, --api-keys-file, --open-endpoints and --cors-allow-origin. A key is never
// echoed in an error.
void read_access_options(const Args& args, serve::ServerOptions& options) {
  const std::vector<std::string> keys = args.all("api-key");
  const std::string keys_file = args.value("api-keys-file");
  if (!keys.empty() || !keys_file.empty()) options.api_keys = std::make_shared<serve::ApiKeys>(keys, keys_file);
  options.open_groups.clear();
  if (args.value("open-endpoints") != "none") {
    const auto openable = serve::openable_access_groups();
    for (const std::string& group : args.list("open-endpoints")) {
      if (std::find(openable.begin(), openable.end(), group) == openable.end()) {
        std::string known;
        for (const auto name : openable) known += std::string(name) + ", ";
        throw UsageError("--open-endpoints: unknown group \"" + text::excerpt(group) + "\" (" + known + "or none)");
      }
      options.open_groups.insert(group);
    }
  }
  if (args.given("open-endpoints") && !options.api_keys) {
    throw UsageError("--open-endpoints says which endpoints need no API key: give --api-key or --api-keys-file too");
  }
  try {
    options.cors = serve::CorsPolicy(args.all("cors-allow-origin"));
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

}  // namespace

int run_serve(int argc, char** argv, int first) {
  Args args("serve",
            {kModelOption,
             {"index", true, "index folder (geoalign index build) for POST /v1/search, built with --model's weights", ""},
             {"host", true, "address to listen on", "127.0.0.1"},
             {"port", true, "port to listen on (0 = any free port)", "8080"},
             {"max-batch-size", true, "pairs per batch at most", "64"},
             {"max-batch-tokens", true, "tokens per batch at most (0 = max-batch-size x max_length)", "0"},
             {"max-queue-delay-us", true, "longest a pair waits for its batch to fill", "2000"},
             {"max-queue", true, "pairs waiting at most before answering 429", "4096"},
             {"max-pairs-per-request", true, "pairs (or addresses) in one request at most", "1024"},
             {"max-body-bytes", true, "request body size at most", "1048576"},
             {"timeout-ms", true, "per-request timeout (0 = none); answers 504", "30000"},
             {"read-timeout-ms", true, "a request's first byte to its last, at most (0 = none)", "30000"},
             {"idle-timeout-ms", true, "a keep-alive connection waits this long for its next request (0 = for ever)", "60000"},
             {"write-timeout-ms", true, "writing one response, at most (0 = none)", "30000"},
             {"drain-timeout-ms", true, "on SIGTERM, wait this long for open connections, then exit anyway (0 = for ever)", "25000"},
             {"cache-size", true, "pair results kept in an LRU cache (0 = off)", "0"},
             {"threads", true, "model threads, 0 = one per core", "0"},
             {"search-threads", true, "threads for search's lookup and rerank, parsing and explanations, 0 = one per core", "0"},
             {"max-connections", true, "connections open at once at most; more are answered 503 (0 = no cap)", "8192"},
             {"max-unread-bytes", true,
              "answer bytes that clients have not read yet, over all connections, at most; beyond it inference "
              "requests are answered 503 (0 = no cap)",
              "536870912"},
             {"background-priority", true,
              "idle: work beside the model (search's rerank, parsing, JSON of large requests) runs only on cores the "
              "model leaves free, so it never slows a batch; normal: it competes with the model",
              "idle"},
             {"pin-threads", true,
              "auto: the model's threads each on a core of their own when they are one per core this process may "
              "use; on: also with fewer threads (under taskset); off: the scheduler places them",
              "auto"},
             {"api-key", true,
              "a key requests must send as Authorization: Bearer KEY (repeatable); without any key, none is needed",
              ""},
             {"api-keys-file", true, "a file of keys, one per line (# comments), read again on SIGHUP", ""},
             {"open-endpoints", true,
              "with keys: the groups of endpoints answered without one (health, metadata, metrics, openapi, "
              "playground, comma-separated, or none)",
              "health"},
             {"cors-allow-origin", true,
              "a web page origin (scheme://host[:port]) whose scripts may call the server, or * for any "
              "(repeatable); without it browsers keep other origins' pages from reading answers",
              ""},
             {"grpc-port", true,
              "also serve KServe v2 over gRPC on this port (Triton's gRPC clients; 0 = any free port), sharing the "
              "batcher, keys and limits; off when not given",
              ""},
             {"model-name", true,
              "the model's name in KServe v2 routes (/v2/models/NAME/infer), metadata and answers: 1 to 128 of "
              "A-Z a-z 0-9 _ - .",
              std::string(serve::kDefaultModelName)},
             kPrecisionOption,
             kDeviceOption,
             kParserOption,
             kAliasesOption,
             kOrderedOption},
            "");
  args.parse(argc, argv, first);
  if (args.flag("help")) {
    std::cout << args.usage()
              << "\nEndpoints: POST /v1/match, POST /v1/embed, POST /v1/parse, POST /v1/search (with --index),\n"
                 "POST /rerank (text-embeddings-inference's schema), POST /v1/embeddings (OpenAI's schema),\n"
                 "KServe v2 (/v2/health/live, /v2/health/ready, /v2/models/NAME, /v2/models/NAME/infer; NAME:\n"
                 "--model-name),\n"
                 "GET /metrics, GET /openapi.json, and GET /: the playground, a page to try them in a browser.\n";
    return 0;
  }
  if (!args.positional().empty()) throw UsageError("serve takes no positional arguments");

  runtime::BatcherOptions batching;
  batching.max_batch_size = static_cast<std::size_t>(args.integer("max-batch-size", 1, 4096));
  batching.max_batch_tokens = static_cast<std::size_t>(args.integer("max-batch-tokens", 0, 1 << 24));
  batching.max_queue_delay = std::chrono::microseconds(args.integer("max-queue-delay-us", 0, 10'000'000));
  batching.max_queue = static_cast<std::size_t>(args.integer("max-queue", 1, 1 << 24));
  batching.cache_size = static_cast<std::size_t>(args.integer("cache-size", 0, 1 << 26));
  batching.after_threads = static_cast<std::size_t>(args.integer("search-threads", 0, 1024));
  const std::string priority = args.value("background-priority");
  if (priority != "idle" && priority != "normal") {
    throw UsageError("--background-priority must be idle or normal, not \"" + text::excerpt(priority) + "\"");
  }
  batching.after_threads_idle = priority == "idle";
  const std::string pin = args.value("pin-threads");
  if (pin != "auto" && pin != "on" && pin != "off") {
    throw UsageError("--pin-threads must be auto, on or off, not \"" + text::excerpt(pin) + "\"");
  }
  batching.pin_model_threads = pin == "auto" ? PinThreads::Auto : pin == "on" ? PinThreads::On : PinThreads::Off;
  serve::ServerOptions server_options;
  server_options.host = args.value("host");
  server_options.port = static_cast<std::uint16_t>(args.integer("port", 0, 65535));
  server_options.max_items_per_request = static_cast<std::size_t>(args.integer("max-pairs-per-request", 1, 1 << 20));
  server_options.max_body_bytes = static_cast<std::size_t>(args.integer("max-body-bytes", 1024, 1L << 30));
  server_options.timeout = std::chrono::milliseconds(args.integer("timeout-ms", 0, 3'600'000));
  server_options.read_timeout = std::chrono::milliseconds(args.integer("read-timeout-ms", 0, 3'600'000));
  server_options.idle_timeout = std::chrono::milliseconds(args.integer("idle-timeout-ms", 0, 3'600'000));
  server_options.write_timeout = std::chrono::milliseconds(args.integer("write-timeout-ms", 0, 3'600'000));
  server_options.drain_timeout = std::chrono::milliseconds(args.integer("drain-timeout-ms", 0, 3'600'000));
  server_options.max_connections = static_cast<std::size_t>(args.integer("max-connections", 0, 1 << 24));
  server_options.max_unread_bytes = static_cast<std::size_t>(args.integer("max-unread-bytes", 0, 1L << 40));
  server_options.json_workers_idle = batching.after_threads_idle;
  server_options.model_name = args.value("model-name");
  if (!serve::is_valid_model_name(server_options.model_name)) {
    throw UsageError("--model-name must be 1 to " + std::to_string(serve::kMaxModelNameBytes) +
                     " of A-Z a-z 0-9 _ - ., not \"" + text::excerpt(server_options.model_name) + "\"");
  }
  read_access_options(args, server_options);
  // Warm-up sends one full batch; a queue that cannot hold one would leave a server
  // that never becomes ready.
  if (batching.max_queue < batching.max_batch_size) {
    throw UsageError("--max-queue (" + std::to_string(batching.max_queue) + ") must be at least --max-batch-size (" +
                     std::to_string(batching.max_batch_size) + "): a batch could never fill");
  }
  set_num_threads(threads_option(args));

  // A closed log pipe (geoalign serve 2>&1 | head -1) must not end the server at its next
  // log line: writes to it fail instead. A hangup while the model loads is ignored too;
  // the server logs later ones (Server::run) and goes on.
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGHUP, SIG_IGN);
  raise_open_file_limit();
  const std::string model_dir = model_dir_option(args);
  // Search's candidates are reranked by the rerank head, as `geoalign search` does; /v1/match
  // and the other kinds run the engine's cross-encoder and match head through the batcher.
  // Loaded before listening: a server that cannot use its GPU must not start.
  engine::EngineOptions engine_options = cli::engine_options(args);
  engine_options.head = engine::Head::Rerank;
  engine_options.reading = reading_option(args);
  const auto engine = engine::Engine::load(model_dir, engine_options);
  const runtime::PairScorer& scorer = engine->scorer();
  scorer.require_classifier();
  std::unique_ptr<serve::SearchKind> search;
  if (!args.value("index").empty()) search = serve::SearchKind::open(args.value("index"), model_dir, *engine);
  serve::Metrics metrics;
  runtime::Batcher batcher(scorer, batching, &metrics);
  serve::Server server(scorer, batcher, metrics, server_options, search.get());
  const std::uint16_t port = server.listen();
  std::fprintf(stderr, "geoalign serve: listening on http://%s:%u (warming up)\n", server_options.host.c_str(), port);
  std::unique_ptr<serve::GrpcServer> grpc;
  if (args.given("grpc-port")) {
    const auto grpc_port = static_cast<std::uint16_t>(args.integer("grpc-port", 0, 65535));
    grpc = std::make_unique<serve::GrpcServer>(scorer, batcher, server_options, grpc_port,
                                               [&server] { return server.ready(); });
    std::fprintf(stderr, "geoalign serve: KServe v2 gRPC on %s:%u\n", server_options.host.c_str(), grpc->port());
  }
  if (server_options.api_keys) {
    std::string open;
    for (const auto& group : server_options.open_groups) open += (open.empty() ? "" : ", ") + group;
    std::fprintf(stderr, "geoalign serve: %zu API keys; answered without one: %s\n", server_options.api_keys->size(),
                 open.empty() ? "nothing" : open.c_str());
  } else if (server_options.host != "127.0.0.1" && server_options.host != "localhost" && server_options.host != "::1") {
    std::fprintf(stderr, "geoalign serve: no API key set: anyone who reaches %s:%u can use this server "
                 "(--api-key or --api-keys-file)\n", server_options.host.c_str(), port);
  }

  // A server that cannot warm up would answer 503 for ever: stop it instead.
  std::atomic<bool> warm_up_failed{false}, serving_ended{false};
  std::thread warm([&] {
    try {
      warm_up(batcher, search.get());
      server.set_ready(true);
      std::fprintf(stderr, "geoalign serve: ready (open / in a browser for the playground)\n");
    } catch (const std::exception& e) {
      if (serving_ended) return;  // stopped (SIGTERM) while warming up: not a failure
      std::fprintf(stderr, "geoalign serve: %s; stopping\n", e.what());
      warm_up_failed = true;
      server.stop();
    }
  });
  // The batcher finishes every accepted request (warm-up's too) before the warm-up
  // thread is joined, also when run() throws.
  auto finish = [&] {
    serving_ended = true;
    if (grpc) grpc->stop();  // its calls in flight are answered before the batcher stops
    batcher.shutdown();
    warm.join();
  };
  try {
    server.run();
  } catch (...) {
    finish();
    throw;
  }
  finish();
  if (warm_up_failed) return 1;
  std::fprintf(stderr, "geoalign serve: stopped\n");
  return 0;
}

}  // namespace geoalign::cli
