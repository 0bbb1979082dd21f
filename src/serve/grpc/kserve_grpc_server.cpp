#include "serve/grpc/kserve_grpc_server.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "kserve_v2.grpc.pb.h"
#include "runtime/batcher.h"
#include "runtime/worker_pool.h"
#include "serve/api.h"
#include "serve/kserve_model.h"
#include "serve/routes.h"

namespace geoalign::serve {

namespace {

using grpc::Status;
using grpc::StatusCode;
using nlohmann::json;

Status error_status(const ApiError& e) {
  const StatusCode code = e.status == 404   ? StatusCode::NOT_FOUND
                          : e.status == 413 ? StatusCode::RESOURCE_EXHAUSTED
                          : e.status == 429 ? StatusCode::RESOURCE_EXHAUSTED
                          : e.status == 503 ? StatusCode::UNAVAILABLE
                          : e.status == 504 ? StatusCode::DEADLINE_EXCEEDED
                          : e.status >= 500 ? StatusCode::INTERNAL
                                            : StatusCode::INVALID_ARGUMENT;
  return Status(code, e.message);
}

// The JSON form of a gRPC inference request, for the HTTP path's one parser: each input's
// elements from its contents, or, when the request carries raw_input_contents, the
// binary data that parse_kserve_request reads as HTTP's binary extension does.
json as_json(const inference::ModelInferRequest& request, std::string& binary) {
  json body = {{"inputs", json::array()}};
  if (!request.id().empty()) body["id"] = request.id();
  const bool raw = request.raw_input_contents_size() > 0;
  for (int i = 0; i < request.inputs_size(); ++i) {
    const auto& input = request.inputs(i);
    json tensor = {{"name", input.name()}, {"datatype", input.datatype()}, {"shape", json::array()}};
    // As JSON reads them: a size is an unsigned number, and a negative one stays signed
    // for the parser to refuse.
    for (const auto d : input.shape()) {
      if (d >= 0) {
        tensor["shape"].push_back(static_cast<std::uint64_t>(d));
      } else {
        tensor["shape"].push_back(d);
      }
    }
    if (raw) {
      const std::string& data = i < request.raw_input_contents_size() ? request.raw_input_contents(i) : std::string();
      tensor["parameters"] = {{"binary_data_size", data.size()}};
      binary += data;
    } else {
      tensor["data"] = json::array();
      for (const auto& element : input.contents().bytes_contents()) tensor["data"].push_back(element);
    }
    body["inputs"].push_back(std::move(tensor));
  }
  if (request.outputs_size() > 0) {
    body["outputs"] = json::array();
    for (const auto& output : request.outputs()) body["outputs"].push_back({{"name", output.name()}});
  }
  return body;
}

void fill_metadata(const json& doc, inference::ModelMetadataResponse& out) {
  out.set_name(doc["name"].get<std::string>());
  for (const auto& v : doc["versions"]) out.add_versions(v.get<std::string>());
  out.set_platform(doc["platform"].get<std::string>());
  const auto fill = [](const json& tensors, auto add) {
    for (const auto& t : tensors) {
      auto* m = add();
      m->set_name(t["name"].get<std::string>());
      m->set_datatype(t["datatype"].get<std::string>());
      for (const auto& d : t["shape"]) m->add_shape(d.get<std::int64_t>());
    }
  };
  fill(doc["inputs"], [&] { return out.add_inputs(); });
  fill(doc["outputs"], [&] { return out.add_outputs(); });
}

void fill_config(const json& doc, inference::ModelConfig& out) {
  out.set_name(doc["name"].get<std::string>());
  out.set_platform(doc["platform"].get<std::string>());
  out.set_backend(doc["backend"].get<std::string>());
  out.set_max_batch_size(doc["max_batch_size"].get<int>());
  const auto type_of = [](const json& t) {
    inference::DataType type = inference::TYPE_INVALID;
    inference::DataType_Parse(t["data_type"].get<std::string>(), &type);
    return type;
  };
  const auto fill = [&](const json& t, auto* m) {
    m->set_name(t["name"].get<std::string>());
    m->set_data_type(type_of(t));
    for (const auto& d : t["dims"]) m->add_dims(d.get<std::int64_t>());
    if (t.contains("reshape")) {
      auto* reshape = m->mutable_reshape();
      for (const auto& d : t["reshape"]["shape"]) reshape->add_shape(d.get<std::int64_t>());
    }
  };
  for (const auto& t : doc["input"]) fill(t, out.add_input());
  for (const auto& t : doc["output"]) fill(t, out.add_output());
  out.mutable_dynamic_batching()->set_max_queue_delay_microseconds(
      doc["dynamic_batching"]["max_queue_delay_microseconds"].get<std::uint64_t>());
}

// A ModelInfer call in the batcher: answered from the batcher's thread when the pairs are
// done, so no gRPC thread waits for the model. It deletes itself when gRPC is done with it.
class InferCall final : public grpc::ServerUnaryReactor {
 public:
  InferCall(std::string model_name, std::shared_ptr<ParsedRequest> parsed,
            std::shared_ptr<runtime::InferenceRequest> request, inference::ModelInferResponse* out)
      : model_name_(std::move(model_name)), parsed_(std::move(parsed)), request_(std::move(request)), out_(out) {}

  // Once the batcher is done with the request: the answer, or the status that says why
  // there is none.
  void answer() noexcept {
    const runtime::InferenceRequest& done = *request_;
    try {
      switch (done.outcome) {
        case runtime::InferenceRequest::Outcome::Ok: break;
        case runtime::InferenceRequest::Outcome::TimedOut: return Finish(Status(StatusCode::DEADLINE_EXCEEDED, done.error));
        case runtime::InferenceRequest::Outcome::Cancelled: return Finish(Status(StatusCode::CANCELLED, "cancelled"));
        default: return Finish(Status(StatusCode::INTERNAL, done.error));
      }
      out_->set_model_name(model_name_);
      out_->set_model_version("1");
      out_->set_id(parsed_->id);
      for (const KServeOutput& output : parsed_->outputs) {
        const KServeTensor tensor = kserve_tensor(output.name, done);
        auto* t = out_->add_outputs();
        t->set_name(output.name);
        t->set_datatype(tensor.datatype);
        for (const auto d : tensor.shape) t->add_shape(d);
        append_tensor(*out_->add_raw_output_contents(), tensor);
      }
      Finish(Status::OK);
    } catch (const std::exception& e) {  // out of memory: the call still ends
      Finish(Status(StatusCode::INTERNAL, e.what()));
    }
  }

  // The client went: its pairs are skipped, as a closed HTTP connection's are.
  void OnCancel() override { request_->cancelled = true; }
  void OnDone() override { delete this; }

 private:
  std::string model_name_;
  std::shared_ptr<ParsedRequest> parsed_;
  std::shared_ptr<runtime::InferenceRequest> request_;
  inference::ModelInferResponse* out_;
};

class Service final : public inference::GRPCInferenceService::CallbackService {
 public:
  Service(const runtime::PairScorer& scorer, runtime::Batcher& batcher, const ServerOptions& options,
          std::function<bool()> ready, runtime::WorkerPool& answers)
      : scorer_(scorer), batcher_(batcher), options_(options), ready_(std::move(ready)), answers_(answers) {}

  grpc::ServerUnaryReactor* ServerLive(grpc::CallbackServerContext* context, const inference::ServerLiveRequest*,
                                       inference::ServerLiveResponse* out) override {
    return answer(context, "health", {}, [&] { out->set_live(true); });
  }

  grpc::ServerUnaryReactor* ServerReady(grpc::CallbackServerContext* context, const inference::ServerReadyRequest*,
                                        inference::ServerReadyResponse* out) override {
    return answer(context, "health", {}, [&] { out->set_ready(ready_()); });
  }

  grpc::ServerUnaryReactor* ModelReady(grpc::CallbackServerContext* context,
                                       const inference::ModelReadyRequest* request,
                                       inference::ModelReadyResponse* out) override {
    return answer(context, "health", request->name(), [&] { out->set_ready(ready_()); });
  }

  grpc::ServerUnaryReactor* ServerMetadata(grpc::CallbackServerContext* context,
                                           const inference::ServerMetadataRequest*,
                                           inference::ServerMetadataResponse* out) override {
    return answer(context, "metadata", {}, [&] {
      const json doc = json::parse(render_server_metadata());
      out->set_name(doc["name"].get<std::string>());
      out->set_version(doc["version"].get<std::string>());
      for (const auto& e : doc["extensions"]) out->add_extensions(e.get<std::string>());
    });
  }

  grpc::ServerUnaryReactor* ModelMetadata(grpc::CallbackServerContext* context,
                                          const inference::ModelMetadataRequest* request,
                                          inference::ModelMetadataResponse* out) override {
    return answer(context, "metadata", request->name(), [&] {
      fill_metadata(json::parse(render_model_metadata(options_.model_name, scorer_.labels(),
                                                      scorer_.folder().embedding.dimension())),
                    *out);
    });
  }

  grpc::ServerUnaryReactor* ModelConfig(grpc::CallbackServerContext* context,
                                        const inference::ModelConfigRequest* request,
                                        inference::ModelConfigResponse* out) override {
    return answer(context, "metadata", request->name(), [&] {
      const auto& batching = batcher_.options();
      fill_config(json::parse(render_model_config(options_.model_name, batching.max_batch_size,
                                                  batching.max_queue_delay)),
                  *out->mutable_config());
    });
  }

  grpc::ServerUnaryReactor* ModelInfer(grpc::CallbackServerContext* context,
                                       const inference::ModelInferRequest* request,
                                       inference::ModelInferResponse* out) override {
    const auto finish = [context](const Status& status) {
      auto* reactor = context->DefaultReactor();
      reactor->Finish(status);
      return reactor;
    };
    if (auto refused = refuse(context, "inference", request->model_name())) return finish(*refused);
    if (!ready_()) return finish(Status(StatusCode::UNAVAILABLE, "the model is warming up"));
    std::string binary;
    json body = as_json(*request, binary);
    auto parsed = parse_kserve_request(body, binary, options_.max_items_per_request);
    if (auto* e = std::get_if<ApiError>(&parsed)) return finish(error_status(*e));
    auto p = std::make_shared<ParsedRequest>(std::move(std::get<ParsedRequest>(parsed)));

    auto inference = std::make_shared<runtime::InferenceRequest>();
    inference->kind = &runtime::match_kind();
    inference->first = std::move(p->first);
    inference->second = std::move(p->second);
    if (options_.timeout.count() > 0) inference->deadline = runtime::Clock::now() + options_.timeout;
    auto* call = new InferCall(options_.model_name, p, inference, out);
    // `done` runs on the model's thread: the answer is built and sent on another, as the
    // HTTP server hands its answers to its I/O thread, so the next batch does not wait.
    inference->done = [call, answers = &answers_](runtime::InferenceRequest&) noexcept {
      try {
        answers->post([call] { call->answer(); });
      } catch (...) {  // out of memory for the task: answer here
        call->answer();
      }
    };
    try {
      if (!batcher_.submit(inference)) {
        call->Finish(Status(StatusCode::RESOURCE_EXHAUSTED, "the queue is full; try again shortly"));
      }
    } catch (const std::exception& e) {  // a kind that refuses the request: not answered by the batcher
      call->Finish(Status(StatusCode::INTERNAL, e.what()));
    }
    return call;
  }

 private:
  // A call answered at once: `fill` writes the response unless the call is refused.
  template <typename Fill>
  grpc::ServerUnaryReactor* answer(grpc::CallbackServerContext* context, std::string_view group,
                                   std::string_view model, Fill fill) const {
    auto* reactor = context->DefaultReactor();
    if (auto refused = refuse(context, group, model)) {
      reactor->Finish(*refused);
    } else {
      fill();
      reactor->Finish(Status::OK);
    }
    return reactor;
  }

  // An error status when the call may not go on: no key where one is needed (keys come
  // as "authorization: Bearer KEY" metadata, as HTTP's header), or another model's name
  // (an empty name means this server's one model).
  std::optional<Status> refuse(grpc::CallbackServerContext* context, std::string_view group,
                               std::string_view model) const {
    const auto& metadata = context->client_metadata();
    const auto it = metadata.find("authorization");
    if (!options_.admits(group, it == metadata.end() ? std::nullopt
                                                     : std::optional<std::string_view>(std::string_view(
                                                           it->second.data(), it->second.size())))) {
      return Status(StatusCode::UNAUTHENTICATED, "this server needs an API key: authorization: Bearer KEY");
    }
    if (!model.empty() && model != options_.model_name) {
      return Status(StatusCode::NOT_FOUND, "no model \"" + std::string(model) + "\" here; this server's is \"" +
                                               options_.model_name + "\"");
    }
    return std::nullopt;
  }

  const runtime::PairScorer& scorer_;
  runtime::Batcher& batcher_;
  const ServerOptions& options_;
  std::function<bool()> ready_;
  runtime::WorkerPool& answers_;
};

}  // namespace

struct GrpcServer::Impl {
  Impl(const runtime::PairScorer& scorer, runtime::Batcher& batcher, ServerOptions given,
       std::function<bool()> ready)
      : options(std::move(given)), service(scorer, batcher, options, std::move(ready), answers) {}
  ServerOptions options;
  // Outlives the server, whose calls post their answers here until it is stopped.
  runtime::WorkerPool answers{1};
  Service service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
};

GrpcServer::GrpcServer(const runtime::PairScorer& scorer, runtime::Batcher& batcher, const ServerOptions& options,
                       std::uint16_t port, std::function<bool()> ready)
    : impl_(std::make_unique<Impl>(scorer, batcher, options, std::move(ready))) {
  grpc::ServerBuilder builder;
  const std::string address = options.host + ":" + std::to_string(port);
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &impl_->port);
  builder.RegisterService(&impl_->service);
  // A request's body is bounded as HTTP's is; answers are bounded by the items a request may hold.
  builder.SetMaxReceiveMessageSize(static_cast<int>(std::min<std::size_t>(options.max_body_bytes, INT32_MAX)));
  builder.SetMaxSendMessageSize(-1);
  impl_->server = builder.BuildAndStart();
  if (!impl_->server || impl_->port == 0) throw Error("cannot listen for gRPC on " + address);
}

GrpcServer::~GrpcServer() { stop(); }

std::uint16_t GrpcServer::port() const { return static_cast<std::uint16_t>(impl_->port); }

void GrpcServer::stop() {
  if (!impl_->server) return;
  impl_->server->Shutdown(std::chrono::system_clock::now() + impl_->options.drain_timeout);
  impl_->server->Wait();
  impl_->server.reset();
}

}  // namespace geoalign::serve
