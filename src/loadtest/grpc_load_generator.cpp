#include "loadtest/grpc_load_generator.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <memory>

#include "geoalign/error.h"
#include "kserve_v2.grpc.pb.h"

namespace geoalign::loadtest {

namespace {

using Clock = std::chrono::steady_clock;

// Calls share a connection per this many clients: HTTP/2 multiplexes them, and a few
// connections keep one socket's ordering from setting the pace.
constexpr std::size_t kClientsPerConnection = 16;

const char* status_name(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::CANCELLED: return "grpc_CANCELLED";
    case grpc::StatusCode::INVALID_ARGUMENT: return "grpc_INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "grpc_DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "grpc_NOT_FOUND";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "grpc_RESOURCE_EXHAUSTED";
    case grpc::StatusCode::UNAUTHENTICATED: return "grpc_UNAUTHENTICATED";
    case grpc::StatusCode::UNAVAILABLE: return "grpc_UNAVAILABLE";
    case grpc::StatusCode::INTERNAL: return "grpc_INTERNAL";
    default: return "grpc_other";
  }
}

struct Call {
  grpc::ClientContext context;
  inference::ModelInferResponse response;
  grpc::Status status;
  std::unique_ptr<grpc::ClientAsyncResponseReader<inference::ModelInferResponse>> reader;
  Clock::time_point sent;
};

}  // namespace

LevelResult run_grpc_level(const GrpcTarget& target, const std::vector<std::pair<std::string, std::string>>& pairs,
                           const LoadOptions& options) {
  if (pairs.empty()) throw Error("no pairs to send");
  if (options.rate > 0) throw Error("--grpc runs closed-loop levels (--concurrency), not --rate");
  std::vector<inference::ModelInferRequest> requests;
  requests.reserve(pairs.size());
  for (const auto& [a, b] : pairs) {
    inference::ModelInferRequest request;
    request.set_model_name(target.model_name);
    for (const auto& [name, text] : {std::pair{"addr1", &a}, std::pair{"addr2", &b}}) {
      auto* input = request.add_inputs();
      input->set_name(name);
      input->set_datatype("BYTES");
      input->add_shape(1);
      input->mutable_contents()->add_bytes_contents(*text);
    }
    requests.push_back(std::move(request));
  }
  std::vector<std::unique_ptr<inference::GRPCInferenceService::Stub>> stubs;
  const std::size_t connections = std::max<std::size_t>(1, (options.concurrency + kClientsPerConnection - 1) /
                                                               kClientsPerConnection);
  for (std::size_t c = 0; c < connections; ++c) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // a connection of its own, not a shared one
    stubs.push_back(inference::GRPCInferenceService::NewStub(
        grpc::CreateCustomChannel(target.address, grpc::InsecureChannelCredentials(), args)));
  }

  grpc::CompletionQueue queue;
  // A call's context cannot be reused: each send makes the slot a new one.
  std::vector<std::unique_ptr<Call>> calls(options.concurrency);
  std::size_t next_request = 0, in_flight = 0;
  const auto start = Clock::now();
  const auto measure_from = start + options.warmup;
  const auto end = measure_from + options.duration;
  const auto send = [&](std::size_t slot) {
    calls[slot] = std::make_unique<Call>();
    Call& call = *calls[slot];
    if (!target.api_key.empty()) call.context.AddMetadata("authorization", "Bearer " + target.api_key);
    call.sent = Clock::now();
    const auto& request = requests[next_request++ % requests.size()];
    call.reader = stubs[slot % stubs.size()]->AsyncModelInfer(&call.context, request, &queue);
    call.reader->Finish(&call.response, &call.status, reinterpret_cast<void*>(slot));
    ++in_flight;
  };
  for (std::size_t slot = 0; slot < calls.size(); ++slot) send(slot);

  LevelResult result;
  result.concurrency = options.concurrency;
  void* tag = nullptr;
  bool ok = false;
  while (in_flight > 0 && queue.Next(&tag, &ok)) {
    --in_flight;
    const auto slot = reinterpret_cast<std::size_t>(tag);
    const Call& call = *calls[slot];
    const auto now = Clock::now();
    if (call.sent >= measure_from && now <= end) {
      if (ok && call.status.ok()) {
        ++result.ok;
        result.latencies_ms.push_back(std::chrono::duration<double, std::milli>(now - call.sent).count());
      } else {
        ++result.errors[ok ? status_name(call.status.error_code()) : "grpc_other"];
      }
    }
    if (now < end) send(slot);
  }
  queue.Shutdown();
  while (queue.Next(&tag, &ok)) {
  }
  result.seconds = std::chrono::duration<double>(options.duration).count();
  std::sort(result.latencies_ms.begin(), result.latencies_ms.end());
  return result;
}

}  // namespace geoalign::loadtest
