#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "index/searcher.h"
#include "runtime/inference_request.h"

namespace geoalign::serve {

// The JSON side of the HTTP API, free of any networking so it can be tested directly.

struct ApiError {
  int status;         // HTTP status
  std::string type;   // machine-readable: invalid_json, invalid_request, invalid_text, too_large, ...
  std::string message;
};

// TeiRerank and OpenAiEmbeddings take other servers' schemas (serve/compat_api.h).
enum class Endpoint { Match, Embed, KServeInfer, Search, Parse, TeiRerank, OpenAiEmbeddings };

// A KServe output a request asks for, and whether it comes back as binary data.
struct KServeOutput {
  std::string name;  // label, score or probabilities
  bool binary = false;
};

struct ParsedRequest {
  std::vector<std::string> first, second;  // pairs, addresses or queries
  std::string id;                           // KServe request id, echoed back
  std::vector<KServeOutput> outputs;        // KServe: in the order asked; all three when none is named
  index::SearchOptions search;              // /v1/search's; its region is a name (北京市), not yet a code
  bool explain = false;                     // /v1/match's "explain": each result comes with its explanation
  bool raw_scores = false, return_text = false;  // /rerank's
  bool base64 = false;                           // /v1/embeddings' encoding_format
  // The model answering: /v1/embeddings' "model" as the client sent it, else the server's
  // KServe model name (ServerOptions::model_name), which KServe answers carry.
  std::string model;
};

// A KServe v2 request as JSON (the HTTP body's, or one made from a gRPC request), with
// the binary data of its inputs that carry parameters.binary_data_size (Triton's binary
// extension; empty when none do): validated as parse_request validates the HTTP body.
std::variant<ParsedRequest, ApiError> parse_kserve_request(nlohmann::json& body, std::string_view binary,
                                                           std::size_t max_items);

// A KServe output's values for a finished match request: "label" (BYTES [N]), "score"
// (FP32 [N]) or "probabilities" (FP32 [N, 3]: not, partial, exact).
struct KServeTensor {
  std::string datatype;
  std::vector<std::int64_t> shape;
  std::vector<std::string> labels;  // BYTES
  std::vector<float> values;        // FP32, row-major
};
KServeTensor kserve_tensor(std::string_view name, const runtime::InferenceRequest& done);
// The tensor's wire form (serve/kserve_binary.h): BYTES length-prefixed, FP32 little-endian.
void append_tensor(std::string& out, const KServeTensor& tensor);

// The inference endpoint a request target names, if any.
std::optional<Endpoint> inference_endpoint(std::string_view target);

// Validates a request body for the endpoint: 400 for malformed JSON, wrong types or
// missing fields; 422 for empty or invalid text; 413 for more than max_items items.
// /v1/match, /v1/embed and /v1/parse need at least one item; /v1/search answers none
// with none. `inference_header_length` is the value of a KServe request's
// Inference-Header-Content-Length header: the body is binary (serve/kserve_binary.h).
std::variant<ParsedRequest, ApiError> parse_request(Endpoint endpoint, std::string_view body, std::size_t max_items,
                                                    std::optional<std::string_view> inference_header_length = {});

struct ResponseBody {
  std::string bytes;
  // Set when a KServe response carries binary outputs: the length of its JSON header,
  // sent as Inference-Header-Content-Length.
  std::optional<std::size_t> inference_header_length;
};

ResponseBody render_response(Endpoint endpoint, const ParsedRequest& parsed, const runtime::InferenceRequest& done);
std::string render_error(const ApiError& error);

}  // namespace geoalign::serve
