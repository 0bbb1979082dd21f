#include "serve/api.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "geoalign/parser.h"
#include "serve/compat_api.h"
#include "serve/kserve_binary.h"
#include "serve/request_checks.h"
#include "serve/routes.h"
#include "serve/search_request.h"
#include "text/excerpt.h"
#include "text/markup.h"
#include "text/unicode.h"
#include "text/utf8.h"

namespace geoalign::serve {

namespace {

using nlohmann::json;

// Bounds of /v1/search's counts, as `geoalign search` takes them.
constexpr std::uint64_t kMaxCount = 10000;
// Hits one search request may ask for (queries × k): the response is rendered on the I/O
// thread, and 100 queries at k = 10,000 were 100 MB that held every other client for
// seconds and a gigabyte of memory.
constexpr std::uint64_t kMaxHitsPerRequest = 100000;
// Pairs one search request may rerank (queries × rerank): 1,024 queries at rerank 100.
// 1,024 at 10,000 were ten million pairs, both cores for the whole request timeout.
constexpr std::uint64_t kMaxRerankPerRequest = 102400;


std::variant<ParsedRequest, ApiError> parse_match(const json& body, std::size_t max_items) {
  if (!body.contains("pairs")) return bad_request("missing field \"pairs\"");
  const json& pairs = body["pairs"];
  if (!pairs.is_array()) return bad_request("\"pairs\" must be an array of [addr1, addr2] arrays");
  if (pairs.size() > max_items) return too_many_items(pairs.size(), "pairs", max_items);
  ParsedRequest r;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::string at = "pairs[" + std::to_string(i) + "]";
    const json& p = pairs[i];
    if (!p.is_array() || p.size() != 2 || !p[0].is_string() || !p[1].is_string()) {
      return bad_request(at + " must be an array of two strings");
    }
    r.first.push_back(p[0].get<std::string>());
    r.second.push_back(p[1].get<std::string>());
    if (auto e = check_text(r.first.back(), at + "[0]")) return *e;
    if (auto e = check_text(r.second.back(), at + "[1]")) return *e;
  }
  if (auto e = take_flag(body, "explain", r.explain)) return *e;
  return r;
}

// /v1/embed's and /v1/parse's body: {"addresses": [...]}.
// /v1/embed's and /v1/parse's addresses; a parse reads each whole, so one longer than the
// parser takes is refused here (embeddings read the first max_length tokens of any).
std::variant<ParsedRequest, ApiError> parse_addresses(const json& body, std::size_t max_items, bool parsed_whole) {
  if (!body.contains("addresses")) return bad_request("missing field \"addresses\"");
  const json& a = body["addresses"];
  if (!a.is_array()) return bad_request("\"addresses\" must be an array of strings");
  if (a.size() > max_items) return too_many_items(a.size(), "addresses", max_items);
  ParsedRequest r;
  if (auto e = take_strings(a, "addresses", r.first)) return *e;
  for (std::size_t i = 0; parsed_whole && i < r.first.size(); ++i) {
    const std::size_t chars = std::count_if(r.first[i].begin(), r.first[i].end(),
                                            [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
    if (chars > AddressParser::kMaxChars) {
      return ApiError{422, "invalid_text",
                      "addresses[" + std::to_string(i) + "] is " + std::to_string(chars) +
                          " characters long; the parser reads at most " + std::to_string(AddressParser::kMaxChars)};
    }
  }
  return r;
}

// An optional count field: absent leaves `value` as it is.
std::optional<ApiError> take_count(const json& body, const char* name, std::uint64_t min, std::uint64_t max,
                                   std::size_t& value) {
  if (!body.contains(name)) return std::nullopt;
  const json& v = body[name];
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() < min || v.get<std::uint64_t>() > max) {
    return bad_request("\"" + std::string(name) + "\" must be an integer from " + std::to_string(min) + " to " + std::to_string(max));
  }
  value = static_cast<std::size_t>(v.get<std::uint64_t>());
  return std::nullopt;
}

std::variant<ParsedRequest, ApiError> parse_search(const json& body, std::size_t max_items) {
  if (!body.contains("queries")) return bad_request("missing field \"queries\"");
  const json& queries = body["queries"];
  if (!queries.is_array()) return bad_request("\"queries\" must be an array of strings");
  if (queries.size() > max_items) return too_many_items(queries.size(), "queries", max_items);
  ParsedRequest r;
  if (auto e = take_strings(queries, "queries", r.first)) return *e;
  if (auto e = take_count(body, "k", 1, kMaxCount, r.search.k)) return *e;
  if (auto e = take_count(body, "rerank", 0, kMaxCount, r.search.rerank)) return *e;
  if (r.first.size() * r.search.k > kMaxHitsPerRequest) {
    return ApiError{413, "too_large",
                    std::to_string(r.first.size()) + " queries at k = " + std::to_string(r.search.k) + " ask for " +
                        std::to_string(r.first.size() * r.search.k) + " results; the limit is " +
                        std::to_string(kMaxHitsPerRequest) + " per request (fewer queries, or a smaller k)"};
  }
  if (r.first.size() * r.search.rerank > kMaxRerankPerRequest) {
    return ApiError{413, "too_large",
                    std::to_string(r.first.size()) + " queries at rerank = " + std::to_string(r.search.rerank) +
                        " would rerank " + std::to_string(r.first.size() * r.search.rerank) + " pairs; the limit is " +
                        std::to_string(kMaxRerankPerRequest) + " per request (fewer queries, or a smaller rerank)"};
  }
  if (body.contains("ordered")) {
    if (!body["ordered"].is_boolean()) return bad_request("\"ordered\" must be true or false");
    r.search.reading = body["ordered"].get<bool>() ? PairReading::Ordered : PairReading::Symmetric;
  }
  if (body.contains("region")) {
    const json& region = body["region"];
    if (!region.is_string() || text::unicode::is_blank(region.get<std::string>())) {
      return bad_request("\"region\" must name a province, city or district");
    }
    r.search.region = region.get<std::string>();
  }
  return r;
}

constexpr const char* kKServeOutputs[] = {"label", "score", "probabilities"};

// A boolean in an object's "parameters", if set.
std::variant<bool, ApiError> flag_parameter(const json& object, const char* name, bool otherwise) {
  if (!object.contains("parameters")) return otherwise;
  const json& parameters = object["parameters"];
  if (!parameters.is_object()) return bad_request("\"parameters\" must be an object");
  if (!parameters.contains(name)) return otherwise;
  if (!parameters[name].is_boolean()) return bad_request("\"" + std::string(name) + "\" must be true or false");
  return parameters[name].get<bool>();
}

// The outputs a KServe request asks for: those it names, in its order, or all of them.
// Each comes back binary when its parameters.binary_data says so, or else when the
// request's parameters.binary_data_output does.
std::optional<ApiError> take_outputs(const json& body, std::vector<KServeOutput>& outputs) {
  auto all_binary = flag_parameter(body, "binary_data_output", false);
  if (auto* e = std::get_if<ApiError>(&all_binary)) return *e;
  const bool binary = std::get<bool>(all_binary);
  if (!body.contains("outputs")) {
    for (const char* name : kKServeOutputs) outputs.push_back({name, binary});
    return std::nullopt;
  }
  if (!body["outputs"].is_array()) return bad_request("\"outputs\" must be an array");
  for (const json& output : body["outputs"]) {
    if (!output.is_object() || !output.contains("name") || !output["name"].is_string()) {
      return bad_request("each output needs a string \"name\"");
    }
    const std::string name = output["name"];
    if (std::find(std::begin(kKServeOutputs), std::end(kKServeOutputs), name) == std::end(kKServeOutputs)) {
      return bad_request("no output \"" + text::excerpt(name) + "\"; the outputs are label, score and probabilities");
    }
    auto flag = flag_parameter(output, "binary_data", binary);
    if (auto* e = std::get_if<ApiError>(&flag)) return *e;
    outputs.push_back({name, std::get<bool>(flag)});
  }
  return std::nullopt;
}

// A KServe input's strings, flat or nested by row ([[a], [b]] for shape [N, 1]; [[a0, b0],
// ...] for [N, 2]), checked against its "shape" where it gives one: `columns` is what the
// second dimension must be, and a shape of one dimension is allowed only for 1.
std::optional<ApiError> take_tensor(const json& input, const std::string& name, std::size_t columns,
                                    std::vector<std::string>& values) {
  const json& data = input["data"];
  if (!data.empty() && data[0].is_array()) {
    for (std::size_t r = 0; r < data.size(); ++r) {
      const json& row = data[r];
      if (!row.is_array() || row.size() != columns) {
        return bad_request("\"" + name + "\" rows must hold " + std::to_string(columns) + (columns == 1 ? " string" : " strings"));
      }
      // Named as the JSON nests it: pairs[2][1], addr1[2][0].
      if (auto e = take_strings(row, name + "[" + std::to_string(r) + "]", values)) return *e;
    }
  } else if (auto e = take_strings(data, name, values)) {
    return *e;
  }
  const std::string expected = columns == 1 ? "[N] or [N, 1]" : "[N, " + std::to_string(columns) + "]";
  if (!input.contains("shape")) {
    if (values.size() % columns != 0) return bad_request("\"" + name + "\" must have shape " + expected);
    return std::nullopt;
  }
  const json& shape = input["shape"];
  const bool well_formed = shape.is_array() && std::all_of(shape.begin(), shape.end(), [](const json& d) {
    return d.is_number_unsigned();
  });
  const bool fits = well_formed && ((shape.size() == 1 && columns == 1) ||
                                    (shape.size() == 2 && shape[1].get<std::uint64_t>() == columns));
  if (!fits || values.size() % columns != 0 || shape[0].get<std::uint64_t>() != values.size() / columns) {
    return bad_request("\"" + name + "\" has shape " + shape.dump() + " and " + std::to_string(values.size()) +
               " strings; expected shape " + expected + " with N * " + std::to_string(columns) + " strings");
  }
  return std::nullopt;
}

// KServe v2: BYTES inputs "addr1" and "addr2" of shape [N] (or [N, 1]), or one input of
// shape [N, 2] holding the pairs row by row.
std::variant<ParsedRequest, ApiError> parse_kserve(const json& body, std::size_t max_items) {
  if (!body.contains("inputs") || !body["inputs"].is_array()) return bad_request("missing array field \"inputs\"");
  ParsedRequest r;
  if (auto e = take_outputs(body, r.outputs)) return *e;
  if (body.contains("id")) {
    if (!body["id"].is_string()) return bad_request("\"id\" must be a string");
    r.id = body["id"].get<std::string>();
  }
  const json* addr1 = nullptr;
  const json* addr2 = nullptr;
  const json* pairs = nullptr;
  for (const json& input : body["inputs"]) {
    if (!input.is_object() || !input.contains("name") || !input["name"].is_string() || !input.contains("data") ||
        !input["data"].is_array()) {
      return bad_request("each input needs a string \"name\" and a \"data\" array");
    }
    if (input.contains("datatype") && input["datatype"] != "BYTES") return bad_request("inputs must have datatype BYTES");
    const std::string name = input["name"];
    const json** slot = name == "addr1" ? &addr1 : name == "addr2" ? &addr2 : name == "pairs" ? &pairs : nullptr;
    if (slot == nullptr) return bad_request("no input \"" + text::excerpt(name) + "\"; the inputs are addr1 and addr2, or pairs");
    if (*slot != nullptr) return bad_request("input \"" + name + "\" is given twice");
    *slot = &input;
  }
  if (pairs != nullptr && (addr1 != nullptr || addr2 != nullptr)) {
    return bad_request("give either \"pairs\" or \"addr1\" and \"addr2\", not both");
  }
  auto too_many = [&](std::size_t n) { return too_many_items(n, "pairs", max_items); };
  if (pairs != nullptr) {
    std::vector<std::string> values;
    const json& data = (*pairs)["data"];
    const std::size_t rows = !data.empty() && data[0].is_array() ? data.size() : data.size() / 2;
    if (rows > max_items) return too_many(rows);  // before reading a huge request's strings
    if (auto e = take_tensor(*pairs, "pairs", 2, values)) return *e;
    if (values.size() / 2 > max_items) return too_many(values.size() / 2);
    for (std::size_t i = 0; i < values.size(); i += 2) {
      r.first.push_back(values[i]);
      r.second.push_back(values[i + 1]);
    }
  } else if (addr1 != nullptr && addr2 != nullptr) {
    if ((*addr1)["data"].size() > max_items) return too_many((*addr1)["data"].size());
    if (auto e = take_tensor(*addr1, "addr1", 1, r.first)) return *e;
    if (auto e = take_tensor(*addr2, "addr2", 1, r.second)) return *e;
    if (r.first.size() != r.second.size()) return bad_request("addr1 and addr2 must have the same length");
  } else {
    return bad_request("expected BYTES inputs \"addr1\" and \"addr2\", or \"pairs\" of shape [N, 2]");
  }
  return r;
}

json match_json(const MatchResult& m) {
  return {{"label", m.label},
          {"score", m.score},
          {"probabilities", {{"not_match", m.p_not_match}, {"partial_match", m.p_partial_match}, {"exact_match", m.p_exact_match}}}};
}

// One output tensor, as JSON data or appended to `binary`.
json kserve_output(const KServeOutput& output, const runtime::InferenceRequest& done, std::string& binary) {
  const KServeTensor values = kserve_tensor(output.name, done);
  json tensor = {{"name", output.name}, {"datatype", values.datatype}, {"shape", values.shape}};
  const bool bytes = values.datatype == "BYTES";
  if (!output.binary) {
    tensor["data"] = bytes ? json(values.labels) : json(values.values);
    return tensor;
  }
  const std::size_t before = binary.size();
  append_tensor(binary, values);
  tensor["parameters"] = {{"binary_data_size", binary.size() - before}};
  return tensor;
}

ResponseBody render_kserve(const ParsedRequest& parsed, const runtime::InferenceRequest& done) {
  std::string binary;
  json outputs = json::array();
  for (const KServeOutput& output : parsed.outputs) outputs.push_back(kserve_output(output, done, binary));
  json out = {{"model_name", parsed.model}, {"model_version", "1"}, {"outputs", std::move(outputs)}};
  if (!parsed.id.empty()) out["id"] = parsed.id;
  ResponseBody body{out.dump(), {}};
  if (std::any_of(parsed.outputs.begin(), parsed.outputs.end(), [](const KServeOutput& o) { return o.binary; })) {
    body.inference_header_length = body.bytes.size();
    body.bytes += binary;
  }
  return body;
}

}  // namespace

KServeTensor kserve_tensor(std::string_view name, const runtime::InferenceRequest& done) {
  const auto n = static_cast<std::int64_t>(done.size());
  KServeTensor tensor;
  if (name == "label") {
    for (const auto& m : done.matches) tensor.labels.push_back(m.label);
    tensor.datatype = "BYTES";
    tensor.shape = {n};
    return tensor;
  }
  for (const auto& m : done.matches) {
    if (name == "score") {
      tensor.values.push_back(m.score);
    } else {
      tensor.values.insert(tensor.values.end(), {m.p_not_match, m.p_partial_match, m.p_exact_match});
    }
  }
  tensor.datatype = "FP32";
  tensor.shape = name == "score" ? std::vector<std::int64_t>{n} : std::vector<std::int64_t>{n, 3};
  return tensor;
}

void append_tensor(std::string& out, const KServeTensor& tensor) {
  if (tensor.datatype == "BYTES") {
    append_bytes(out, tensor.labels);
  } else {
    append_fp32(out, tensor.values);
  }
}

std::variant<ParsedRequest, ApiError> parse_kserve_request(nlohmann::json& body, std::string_view binary,
                                                           std::size_t max_items) {
  if (auto e = inline_binary_inputs(body, binary)) return *e;
  return parse_kserve(body, max_items);
}

std::optional<Endpoint> inference_endpoint(std::string_view target) {
  const Route* route = find_route(target);
  return route == nullptr ? std::nullopt : route->endpoint;
}

std::variant<ParsedRequest, ApiError> parse_request(Endpoint endpoint, std::string_view body, std::size_t max_items,
                                                    std::optional<std::string_view> inference_header_length) {
  std::string_view binary;
  if (inference_header_length) {
    if (endpoint != Endpoint::KServeInfer) {
      return bad_request("Inference-Header-Content-Length (binary tensor data) applies to /v2/models/{model}/infer only");
    }
    auto split = split_binary_body(body, *inference_header_length);
    if (auto* e = std::get_if<ApiError>(&split)) return *e;
    body = std::get<BinaryBody>(split).json;
    binary = std::get<BinaryBody>(split).binary;
  }
  json parsed;
  try {
    parsed = json::parse(body);
  } catch (const json::parse_error& e) {
    // An empty body or bytes that are not UTF-8 are said to be what they are, not a JSON
    // syntax error (looked for only here: a body that parses is valid UTF-8).
    if (body.empty()) return ApiError{400, "invalid_json", "request body is empty (a JSON object was expected)"};
    if (const auto at = text::find_invalid_utf8(body)) {
      return ApiError{400, "invalid_json", "request body is not valid UTF-8 (byte " + std::to_string(*at + 1) + ")"};
    }
    return ApiError{400, "invalid_json", "request body is not valid JSON (byte " + std::to_string(e.byte) + ")"};
  } catch (const json::exception&) {  // e.g. a number too large for any type
    return ApiError{400, "invalid_json", "request body is not valid JSON (a value is out of range)"};
  }
  if (!parsed.is_object()) return bad_request("request body must be a JSON object");
  std::optional<ApiError> unknown;
  switch (endpoint) {
    case Endpoint::Match: unknown = unknown_field(parsed, {"pairs", "explain"}); break;
    case Endpoint::Embed:
    case Endpoint::Parse: unknown = unknown_field(parsed, {"addresses"}); break;
    case Endpoint::Search: unknown = unknown_field(parsed, {"queries", "k", "rerank", "region", "ordered"}); break;
    case Endpoint::KServeInfer:
    case Endpoint::TeiRerank:  // the schemas' own parsers check their fields
    case Endpoint::OpenAiEmbeddings: break;
  }
  if (unknown) return *unknown;
  switch (endpoint) {
    case Endpoint::Match: return parse_match(parsed, max_items);
    case Endpoint::Embed: return parse_addresses(parsed, max_items, false);
    case Endpoint::Parse: return parse_addresses(parsed, max_items, true);
    case Endpoint::KServeInfer: return parse_kserve_request(parsed, binary, max_items);
    case Endpoint::Search: return parse_search(parsed, max_items);
    case Endpoint::TeiRerank: return parse_tei_rerank(parsed, max_items);
    case Endpoint::OpenAiEmbeddings: return parse_openai_embeddings(parsed, max_items);
  }
  return bad_request("unknown endpoint");
}

ResponseBody render_response(Endpoint endpoint, const ParsedRequest& parsed, const runtime::InferenceRequest& done) {
  switch (endpoint) {
    case Endpoint::Match: {
      json results = json::array();
      for (const auto& m : done.matches) results.push_back(match_json(m));
      if (parsed.explain) {
        const auto& explanations = dynamic_cast<const JsonResultsRequest&>(done).results;
        for (std::size_t i = 0; i < explanations.size(); ++i) results[i]["explanation"] = explanations[i];
      }
      return {json{{"results", std::move(results)}}.dump(-1, ' ', false, json::error_handler_t::replace), {}};
    }
    case Endpoint::Embed:
      return {json{{"embeddings", done.vectors}, {"dimension", done.vectors.empty() ? 0 : done.vectors[0].size()}}.dump(),
              {}};
    case Endpoint::Search:
    case Endpoint::Parse: {
      const auto& results = dynamic_cast<const JsonResultsRequest&>(done).results;
      return {json{{"results", results}}.dump(-1, ' ', false, json::error_handler_t::replace), {}};
    }
    case Endpoint::KServeInfer: return render_kserve(parsed, done);
    case Endpoint::TeiRerank: return render_tei_rerank(parsed, done);
    case Endpoint::OpenAiEmbeddings: return render_openai_embeddings(parsed, done);
  }
  throw std::logic_error("render_response: unknown endpoint");
}

std::string render_error(const ApiError& error) {
  return json{{"error", error.message}, {"type", error.type}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace geoalign::serve
