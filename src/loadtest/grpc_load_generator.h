#pragma once

#include <string>
#include <utility>
#include <vector>

#include "loadtest/load_generator.h"

namespace geoalign::loadtest {

// A KServe v2 gRPC server to load (loadtest --grpc HOST:PORT).
struct GrpcTarget {
  std::string address;     // host:port
  std::string model_name;  // the server's --model-name
  std::string api_key;     // sent as "authorization: Bearer KEY" metadata when not empty
};

// Closed loop over gRPC: `options.concurrency` calls of ModelInfer in flight at all times,
// one pair each (taken round robin from `pairs`), over a few HTTP/2 connections, as
// run_level does over HTTP; errors are counted by gRPC status ("grpc_UNAVAILABLE", ...).
LevelResult run_grpc_level(const GrpcTarget& target, const std::vector<std::pair<std::string, std::string>>& pairs,
                           const LoadOptions& options);

}  // namespace geoalign::loadtest
