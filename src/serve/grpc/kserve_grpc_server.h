#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "runtime/batcher.h"
#include "serve/http_server.h"

namespace geoalign::serve {

// KServe v2 over gRPC (serve --grpc-port), beside the HTTP server and sharing what it
// has: the batcher (so gRPC and HTTP pairs fill the same batches), the model's name, the
// API keys (as "authorization: Bearer KEY" metadata), the groups open without one and
// the per-request limits and timeout. Answers ServerLive, ServerReady, ModelReady,
// ServerMetadata, ModelMetadata, ModelConfig and ModelInfer (contents or raw binary
// tensors); errors are gRPC statuses with geoalign's messages (INVALID_ARGUMENT for a bad
// request, UNAUTHENTICATED without a key, NOT_FOUND for another model's name,
// RESOURCE_EXHAUSTED when the queue is full, DEADLINE_EXCEEDED at the timeout).
class GrpcServer {
 public:
  // Binds host:port (0: a free port) and starts serving on gRPC's own threads. `ready`
  // says whether the model is warmed up (the HTTP server's readiness). Throws Error when
  // the address cannot be bound.
  GrpcServer(const runtime::PairScorer& scorer, runtime::Batcher& batcher, const ServerOptions& options,
             std::uint16_t port, std::function<bool()> ready);
  ~GrpcServer();
  GrpcServer(const GrpcServer&) = delete;
  GrpcServer& operator=(const GrpcServer&) = delete;

  std::uint16_t port() const;
  // Stops taking calls and finishes those in flight (up to the drain timeout).
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace geoalign::serve
