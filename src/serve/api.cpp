#include "serve/api.h"

#include <nlohmann/json.hpp>

#include "serve/search_request.h"
#include "text/unicode.h"
#include "text/utf8.h"

namespace geoalign::serve {

namespace {

using nlohmann::json;

// Bounds of /v1/search's counts, as `geoalign search` takes them.
constexpr std::uint64_t kMaxCount = 10000;

ApiError bad(const std::string& message) { return {400, "invalid_request", message}; }

// Empty and whitespace-only addresses carry nothing to match.
std::optional<ApiError> check_text(const std::string& s, const std::string& where) {
  if (text::find_invalid_utf8(s)) return ApiError{422, "invalid_text", where + " is not valid UTF-8"};
  if (text::unicode::is_blank(s)) return ApiError{422, "invalid_text", where + " is empty"};
  return std::nullopt;
}

ApiError too_large(std::size_t n, const char* what, std::size_t max_items) {
  return {413, "too_large", std::to_string(n) + " " + what + " in one request; the limit is " + std::to_string(max_items)};
}

std::optional<ApiError> take_strings(const json& array, const std::string& where, std::vector<std::string>& out) {
  for (std::size_t i = 0; i < array.size(); ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    if (!array[i].is_string()) return bad(at + " must be a string");
    out.push_back(array[i].get<std::string>());
    if (auto e = check_text(out.back(), at)) return e;
  }
  return std::nullopt;
}

std::variant<ParsedRequest, ApiError> parse_match(const json& body, std::size_t max_items) {
  if (!body.contains("pairs")) return bad("missing field \"pairs\"");
  const json& pairs = body["pairs"];
  if (!pairs.is_array()) return bad("\"pairs\" must be an array of [addr1, addr2] arrays");
  if (pairs.empty()) return bad("\"pairs\" is empty");
  if (pairs.size() > max_items) return too_large(pairs.size(), "pairs", max_items);
  ParsedRequest r;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::string at = "pairs[" + std::to_string(i) + "]";
    const json& p = pairs[i];
    if (!p.is_array() || p.size() != 2 || !p[0].is_string() || !p[1].is_string()) {
      return bad(at + " must be an array of two strings");
    }
    r.first.push_back(p[0].get<std::string>());
    r.second.push_back(p[1].get<std::string>());
    if (auto e = check_text(r.first.back(), at + "[0]")) return *e;
    if (auto e = check_text(r.second.back(), at + "[1]")) return *e;
  }
  return r;
}

std::variant<ParsedRequest, ApiError> parse_embed(const json& body, std::size_t max_items) {
  if (!body.contains("addresses")) return bad("missing field \"addresses\"");
  const json& a = body["addresses"];
  if (!a.is_array()) return bad("\"addresses\" must be an array of strings");
  if (a.empty()) return bad("\"addresses\" is empty");
  if (a.size() > max_items) return too_large(a.size(), "addresses", max_items);
  ParsedRequest r;
  if (auto e = take_strings(a, "addresses", r.first)) return *e;
  return r;
}

// An optional count field: absent leaves `value` as it is.
std::optional<ApiError> take_count(const json& body, const char* name, std::uint64_t min, std::uint64_t max,
                                   std::size_t& value) {
  if (!body.contains(name)) return std::nullopt;
  const json& v = body[name];
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() < min || v.get<std::uint64_t>() > max) {
    return bad("\"" + std::string(name) + "\" must be an integer from " + std::to_string(min) + " to " + std::to_string(max));
  }
  value = static_cast<std::size_t>(v.get<std::uint64_t>());
  return std::nullopt;
}

std::variant<ParsedRequest, ApiError> parse_search(const json& body, std::size_t max_items) {
  if (!body.contains("queries")) return bad("missing field \"queries\"");
  const json& queries = body["queries"];
  if (!queries.is_array()) return bad("\"queries\" must be an array of strings");
  if (queries.size() > max_items) return too_large(queries.size(), "queries", max_items);
  ParsedRequest r;
  if (auto e = take_strings(queries, "queries", r.first)) return *e;
  if (auto e = take_count(body, "k", 1, kMaxCount, r.search.k)) return *e;
  if (auto e = take_count(body, "rerank", 0, kMaxCount, r.search.rerank)) return *e;
  if (body.contains("region")) {
    const json& region = body["region"];
    if (!region.is_string() || text::unicode::is_blank(region.get<std::string>())) {
      return bad("\"region\" must name a province, city or district");
    }
    r.search.region = region.get<std::string>();
  }
  return r;
}

// KServe v2: BYTES inputs "addr1" and "addr2" of shape [N] (or [N, 1]), or one input of
// shape [N, 2] holding the pairs row by row.
std::variant<ParsedRequest, ApiError> parse_kserve(const json& body, std::size_t max_items) {
  if (!body.contains("inputs") || !body["inputs"].is_array()) return bad("missing array field \"inputs\"");
  ParsedRequest r;
  if (body.contains("id")) {
    if (!body["id"].is_string()) return bad("\"id\" must be a string");
    r.id = body["id"].get<std::string>();
  }
  const json* addr1 = nullptr;
  const json* addr2 = nullptr;
  const json* pairs = nullptr;
  for (const json& input : body["inputs"]) {
    if (!input.is_object() || !input.contains("name") || !input["name"].is_string() || !input.contains("data") ||
        !input["data"].is_array()) {
      return bad("each input needs a string \"name\" and a \"data\" array");
    }
    if (input.contains("datatype") && input["datatype"] != "BYTES") return bad("inputs must have datatype BYTES");
    const std::string name = input["name"];
    if (name == "addr1") addr1 = &input;
    if (name == "addr2") addr2 = &input;
    if (name == "pairs") pairs = &input;
  }
  auto too_many = [&](std::size_t n) { return too_large(n, "pairs", max_items); };
  if (pairs != nullptr) {
    const json& data = (*pairs)["data"];
    // Data may come flat ([a0, b0, a1, b1, ...]) or nested ([[a0, b0], ...]).
    std::vector<std::string> values;
    if (data.size() > 0 && data[0].is_array()) {
      for (const json& row : data) {
        if (!row.is_array() || row.size() != 2) return bad("\"pairs\" rows must hold two strings");
        if (auto e = take_strings(row, "pairs", values)) return *e;
      }
    } else if (auto e = take_strings(data, "pairs", values)) {
      return *e;
    }
    if (values.size() % 2 != 0) return bad("\"pairs\" must have shape [N, 2]");
    if (values.size() / 2 > max_items) return too_many(values.size() / 2);
    for (std::size_t i = 0; i < values.size(); i += 2) {
      r.first.push_back(values[i]);
      r.second.push_back(values[i + 1]);
    }
  } else if (addr1 != nullptr && addr2 != nullptr) {
    if ((*addr1)["data"].size() != (*addr2)["data"].size()) return bad("addr1 and addr2 must have the same length");
    if ((*addr1)["data"].size() > max_items) return too_many((*addr1)["data"].size());
    if (auto e = take_strings((*addr1)["data"], "addr1", r.first)) return *e;
    if (auto e = take_strings((*addr2)["data"], "addr2", r.second)) return *e;
  } else {
    return bad("expected BYTES inputs \"addr1\" and \"addr2\", or \"pairs\" of shape [N, 2]");
  }
  if (r.first.empty()) return bad("no pairs in the request");
  return r;
}

json match_json(const MatchResult& m) {
  return {{"label", m.label},
          {"score", m.score},
          {"probabilities", {{"not_match", m.p_not_match}, {"partial_match", m.p_partial_match}, {"exact_match", m.p_exact_match}}}};
}

}  // namespace

std::optional<Endpoint> inference_endpoint(std::string_view target) {
  if (target == "/v1/match") return Endpoint::Match;
  if (target == "/v1/embed") return Endpoint::Embed;
  if (target == "/v2/models/geoalign/infer") return Endpoint::KServeInfer;
  if (target == "/v1/search") return Endpoint::Search;
  return std::nullopt;
}

std::variant<ParsedRequest, ApiError> parse_request(Endpoint endpoint, std::string_view body, std::size_t max_items) {
  json parsed;
  try {
    parsed = json::parse(body);
  } catch (const json::parse_error& e) {
    return ApiError{400, "invalid_json", "request body is not valid JSON (byte " + std::to_string(e.byte) + ")"};
  } catch (const json::exception&) {  // e.g. a number too large for any type
    return ApiError{400, "invalid_json", "request body is not valid JSON (a value is out of range)"};
  }
  if (!parsed.is_object()) return bad("request body must be a JSON object");
  switch (endpoint) {
    case Endpoint::Match: return parse_match(parsed, max_items);
    case Endpoint::Embed: return parse_embed(parsed, max_items);
    case Endpoint::KServeInfer: return parse_kserve(parsed, max_items);
    case Endpoint::Search: return parse_search(parsed, max_items);
  }
  return bad("unknown endpoint");
}

std::string render_response(Endpoint endpoint, const ParsedRequest& parsed, const runtime::InferenceRequest& done) {
  const std::size_t n = done.size();
  if (endpoint == Endpoint::Match) {
    json results = json::array();
    for (const auto& m : done.matches) results.push_back(match_json(m));
    return json{{"results", std::move(results)}}.dump();
  }
  if (endpoint == Endpoint::Embed) {
    return json{{"embeddings", done.vectors}, {"dimension", done.vectors.empty() ? 0 : done.vectors[0].size()}}.dump();
  }
  if (endpoint == Endpoint::Search) {
    const auto& search = dynamic_cast<const SearchRequest&>(done);
    return json{{"results", search.results}}.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  json labels = json::array(), scores = json::array(), probs = json::array();
  for (const auto& m : done.matches) {
    labels.push_back(m.label);
    scores.push_back(m.score);
    probs.push_back(m.p_not_match);
    probs.push_back(m.p_partial_match);
    probs.push_back(m.p_exact_match);
  }
  json out = {{"model_name", "geoalign"},
              {"model_version", "1"},
              {"outputs",
               {{{"name", "label"}, {"datatype", "BYTES"}, {"shape", {n}}, {"data", labels}},
                {{"name", "score"}, {"datatype", "FP32"}, {"shape", {n}}, {"data", scores}},
                {{"name", "probabilities"}, {"datatype", "FP32"}, {"shape", {n, 3}}, {"data", probs}}}}};
  if (!parsed.id.empty()) out["id"] = parsed.id;
  return out.dump();
}

std::string render_error(const ApiError& error) {
  return json{{"error", error.message}, {"type", error.type}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string render_model_metadata(const std::vector<std::string>& labels, std::size_t embedding_dim) {
  return json{{"name", "geoalign"},
              {"versions", {"1"}},
              {"platform", "geoalign"},
              {"labels", labels},
              {"embedding_dimension", embedding_dim},
              {"inputs",
               {{{"name", "addr1"}, {"datatype", "BYTES"}, {"shape", {-1}}},
                {{"name", "addr2"}, {"datatype", "BYTES"}, {"shape", {-1}}}}},
              {"outputs",
               {{{"name", "label"}, {"datatype", "BYTES"}, {"shape", {-1}}},
                {{"name", "score"}, {"datatype", "FP32"}, {"shape", {-1}}},
                {{"name", "probabilities"}, {"datatype", "FP32"}, {"shape", {-1, 3}}}}}}
      .dump();
}

}  // namespace geoalign::serve
