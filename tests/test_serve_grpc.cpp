// KServe v2 over gRPC (serve --grpc-port), on `geoalign serve` as a process: the service
// NVIDIA's and KServe's gRPC clients call, checked with a client made from the same
// service definition against the HTTP server's own answers.
#include <gtest/gtest.h>

#include <grpcpp/grpcpp.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <regex>

#include "kserve_v2.grpc.pb.h"
#include "support/cli_run.h"
#include "support/http_client.h"
#include "support/serve_process.h"
#include "support/temp_dir.h"

namespace geoalign::testing {
namespace {

using nlohmann::json;

const std::string kKey = "gak-grpc-5Rt8Wq";

const std::vector<std::pair<std::string, std::string>> kPairs = {
    {"杭州市西湖区文三路478号华星科技大厦", "文三路478号华星大厦"},
    {"北京市朝阳区建国路88号", "上海市浦东新区世纪大道100号"},
    {"深圳市南山区科技园科苑路15号", "南山区科苑路15号"},
};

// A server with gRPC on a port of its choosing, and a client stub for it.
struct GrpcServe {
  explicit GrpcServe(std::vector<std::string> args) : process(with_model(std::move(args))) {
    EXPECT_TRUE(process.wait_ready()) << process.log();
    std::smatch found;
    const std::string log = process.log();
    EXPECT_TRUE(std::regex_search(log, found, std::regex("KServe v2 gRPC on [^:]+:([0-9]+)"))) << log;
    port = static_cast<unsigned short>(std::stoi(found[1]));
    stub = inference::GRPCInferenceService::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  }
  static std::vector<std::string> with_model(std::vector<std::string> args) {
    args.insert(args.begin(), {"--model", fixture_model().string(), "--grpc-port", "0"});
    return args;
  }
  ServeProcess process;
  unsigned short port = 0;
  std::unique_ptr<inference::GRPCInferenceService::Stub> stub;
};

std::unique_ptr<grpc::ClientContext> context(const std::string& key = "") {
  auto c = std::make_unique<grpc::ClientContext>();
  if (!key.empty()) c->AddMetadata("authorization", "Bearer " + key);
  return c;
}

inference::ModelInferRequest infer_request(bool raw) {
  inference::ModelInferRequest request;
  request.set_model_name("geoalign");
  request.set_id("req-1");
  for (int column = 0; column < 2; ++column) {
    auto* input = request.add_inputs();
    input->set_name(column == 0 ? "addr1" : "addr2");
    input->set_datatype("BYTES");
    input->add_shape(static_cast<std::int64_t>(kPairs.size()));
    std::string data;
    for (const auto& pair : kPairs) {
      const std::string& text = column == 0 ? pair.first : pair.second;
      if (!raw) {
        input->mutable_contents()->add_bytes_contents(text);
        continue;
      }
      const auto size = static_cast<std::uint32_t>(text.size());
      for (int b = 0; b < 4; ++b) data.push_back(static_cast<char>((size >> (8 * b)) & 0xff));
      data += text;
    }
    if (raw) request.add_raw_input_contents(data);
  }
  return request;
}

// BYTES elements of a raw output: a 4-byte little-endian length, then the bytes.
std::vector<std::string> bytes_elements(const std::string& raw) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at + 4 <= raw.size();) {
    std::uint32_t size = 0;
    for (int b = 0; b < 4; ++b) size |= static_cast<std::uint32_t>(static_cast<unsigned char>(raw[at + b])) << (8 * b);
    out.push_back(raw.substr(at + 4, size));
    at += 4 + size;
  }
  return out;
}

std::vector<float> fp32_elements(const std::string& raw) {
  std::vector<float> out(raw.size() / 4);
  std::memcpy(out.data(), raw.data(), out.size() * 4);
  return out;
}

// The same pairs through /v1/match, the HTTP server's answer.
json http_results(unsigned short port) {
  json pairs = json::array();
  for (const auto& [a, b] : kPairs) pairs.push_back({a, b});
  const auto r = http_request(port, "POST", "/v1/match", json{{"pairs", pairs}}.dump());
  EXPECT_EQ(r.status, 200) << r.body;
  return json::parse(r.body)["results"];
}

TEST(ServeGrpc, HealthMetadataConfigAndInferAnswerAsHttpDoes) {
  GrpcServe server({});
  {
    inference::ServerLiveResponse live;
    ASSERT_TRUE(server.stub->ServerLive(context().get(), {}, &live).ok());
    EXPECT_TRUE(live.live());
    inference::ServerReadyResponse ready;
    ASSERT_TRUE(server.stub->ServerReady(context().get(), {}, &ready).ok());
    EXPECT_TRUE(ready.ready());
    inference::ModelReadyRequest which;
    which.set_name("geoalign");
    inference::ModelReadyResponse model_ready;
    ASSERT_TRUE(server.stub->ModelReady(context().get(), which, &model_ready).ok());
    EXPECT_TRUE(model_ready.ready());
  }
  {
    inference::ServerMetadataResponse metadata;
    ASSERT_TRUE(server.stub->ServerMetadata(context().get(), {}, &metadata).ok());
    const json http = json::parse(http_request(server.process.port(), "GET", "/v2").body);
    EXPECT_EQ(metadata.name(), http["name"]);
    EXPECT_EQ(metadata.version(), http["version"]);
  }
  {
    inference::ModelMetadataRequest which;
    which.set_name("geoalign");
    inference::ModelMetadataResponse metadata;
    ASSERT_TRUE(server.stub->ModelMetadata(context().get(), which, &metadata).ok());
    EXPECT_EQ(metadata.name(), "geoalign");
    ASSERT_EQ(metadata.inputs_size(), 2);
    EXPECT_EQ(metadata.inputs(0).name(), "addr1");
    EXPECT_EQ(metadata.inputs(0).datatype(), "BYTES");
    ASSERT_EQ(metadata.outputs_size(), 3);
    EXPECT_EQ(metadata.outputs(2).name(), "probabilities");
    EXPECT_EQ(metadata.outputs(2).shape_size(), 2);
  }
  {
    inference::ModelConfigRequest which;
    which.set_name("geoalign");
    inference::ModelConfigResponse config;
    ASSERT_TRUE(server.stub->ModelConfig(context().get(), which, &config).ok());
    const json http = json::parse(http_request(server.process.port(), "GET", "/v2/models/geoalign/config").body);
    EXPECT_EQ(config.config().max_batch_size(), http["max_batch_size"].get<int>());
    EXPECT_EQ(config.config().input(0).data_type(), inference::TYPE_STRING);
    EXPECT_TRUE(config.config().input(0).has_reshape());  // a scalar per pair: dims [1] read as []
    EXPECT_EQ(config.config().input(0).reshape().shape_size(), 0);
    EXPECT_EQ(config.config().output(1).data_type(), inference::TYPE_FP32);
    EXPECT_EQ(config.config().dynamic_batching().max_queue_delay_microseconds(),
              http["dynamic_batching"]["max_queue_delay_microseconds"].get<std::uint64_t>());
  }
  const json want = http_results(server.process.port());
  for (const bool raw : {false, true}) {
    inference::ModelInferResponse answer;
    const auto status = server.stub->ModelInfer(context().get(), infer_request(raw), &answer);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(answer.model_name(), "geoalign");
    EXPECT_EQ(answer.id(), "req-1");
    ASSERT_EQ(answer.outputs_size(), 3);
    ASSERT_EQ(answer.raw_output_contents_size(), 3);
    EXPECT_EQ(answer.outputs(0).name(), "label");
    EXPECT_EQ(answer.outputs(2).shape_size(), 2);
    const auto labels = bytes_elements(answer.raw_output_contents(0));
    const auto scores = fp32_elements(answer.raw_output_contents(1));
    const auto probabilities = fp32_elements(answer.raw_output_contents(2));
    ASSERT_EQ(labels.size(), kPairs.size());
    ASSERT_EQ(probabilities.size(), 3 * kPairs.size());
    for (std::size_t i = 0; i < kPairs.size(); ++i) {
      EXPECT_EQ(labels[i], want[i]["label"]) << i;
      EXPECT_NEAR(scores[i], want[i]["score"].get<float>(), 1e-6) << i;
      EXPECT_NEAR(probabilities[3 * i + 2], want[i]["probabilities"]["exact_match"].get<float>(), 1e-6) << i;
    }
  }
  // The outputs a request names, in its order.
  auto request = infer_request(false);
  request.add_outputs()->set_name("score");
  inference::ModelInferResponse one;
  ASSERT_TRUE(server.stub->ModelInfer(context().get(), request, &one).ok());
  ASSERT_EQ(one.outputs_size(), 1);
  EXPECT_EQ(one.outputs(0).name(), "score");
}

TEST(ServeGrpc, BadRequestsGetAStatusThatSaysWhy) {
  GrpcServe server({});
  const auto status_of = [&](const inference::ModelInferRequest& request) {
    inference::ModelInferResponse answer;
    return server.stub->ModelInfer(context().get(), request, &answer);
  };
  auto other = infer_request(false);
  other.set_model_name("another");
  EXPECT_EQ(status_of(other).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(status_of(other).error_message().find("\"another\""), std::string::npos);

  inference::ModelInferRequest empty;
  empty.set_model_name("geoalign");
  EXPECT_EQ(status_of(empty).error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  auto invalid = infer_request(false);
  invalid.mutable_inputs(1)->mutable_contents()->set_bytes_contents(1, "\xff\xfe");
  const auto refused = status_of(invalid);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(refused.error_message().find("addr2[1] is not valid UTF-8"), std::string::npos) << refused.error_message();

  auto short_raw = infer_request(true);
  short_raw.set_raw_input_contents(0, short_raw.raw_input_contents(0).substr(0, 10));
  EXPECT_EQ(status_of(short_raw).error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  auto unknown_output = infer_request(false);
  unknown_output.add_outputs()->set_name("embedding");
  EXPECT_EQ(status_of(unknown_output).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  // The server goes on answering.
  inference::ModelInferResponse answer;
  EXPECT_TRUE(server.stub->ModelInfer(context().get(), infer_request(false), &answer).ok());
}

TEST(ServeGrpc, KeysGuardInferenceAndMetadataAsOverHttp) {
  GrpcServe server({"--api-key", kKey});
  inference::ModelInferResponse answer;
  EXPECT_EQ(server.stub->ModelInfer(context().get(), infer_request(false), &answer).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(server.stub->ModelInfer(context("gak-wrong").get(), infer_request(false), &answer).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(server.stub->ModelInfer(context(kKey).get(), infer_request(false), &answer).ok());
  inference::ModelMetadataRequest which;
  which.set_name("geoalign");
  inference::ModelMetadataResponse metadata;
  EXPECT_EQ(server.stub->ModelMetadata(context().get(), which, &metadata).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(server.stub->ModelMetadata(context(kKey).get(), which, &metadata).ok());
  // Health stays open by default, as over HTTP.
  inference::ServerLiveResponse live;
  EXPECT_TRUE(server.stub->ServerLive(context().get(), {}, &live).ok());
  EXPECT_EQ(server.process.log().find(kKey), std::string::npos) << server.process.log();
}

TEST(ServeGrpc, TheModelNameIsTheServers) {
  GrpcServe server({"--model-name", "addresses"});
  auto request = infer_request(false);
  request.set_model_name("addresses");
  inference::ModelInferResponse answer;
  ASSERT_TRUE(server.stub->ModelInfer(context().get(), request, &answer).ok());
  EXPECT_EQ(answer.model_name(), "addresses");
  EXPECT_EQ(server.stub->ModelInfer(context().get(), infer_request(false), &answer).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

// loadtest --grpc: every call answered, and a wrong key counted as the status it gets.
TEST(ServeGrpc, LoadtestDrivesItAndCountsRefusals) {
  GrpcServe server({"--api-key", kKey});
  const std::string common = "loadtest --grpc 127.0.0.1:" + std::to_string(server.port) +
                             " --concurrency 2 --duration 300ms --warmup 0s --chart \"\" --input " +
                             (source_dir() / "examples/sample_pairs.tsv").string();
  const auto good = run_cli(common + " --api-key " + kKey);
  ASSERT_EQ(good.exit_code, 0) << good.err;
  // The level's row: clients, calls/s, four percentiles, errors.
  std::smatch row;
  ASSERT_TRUE(std::regex_search(good.out, row, std::regex("\\n2 +([0-9.]+) +[0-9. ]+ +(\\S+)\\n"))) << good.out;
  EXPECT_GT(std::stod(row[1]), 0.0) << good.out;
  EXPECT_EQ(row[2], "0") << good.out;
  const auto refused = run_cli(common + " --api-key gak-wrong");
  ASSERT_EQ(refused.exit_code, 0) << refused.err;
  EXPECT_NE(refused.out.find("grpc_UNAUTHENTICATED="), std::string::npos) << refused.out;
}

}  // namespace
}  // namespace geoalign::testing
