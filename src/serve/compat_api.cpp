#include "serve/compat_api.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>

#include "serve/request_checks.h"

namespace geoalign::serve {

namespace {

using nlohmann::json;

// Log-odds of P(exact) stay finite for probabilities that round to 0 or 1.
constexpr double kLogitClamp = 1e-7;

std::string base64_of(const std::vector<float>& values) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  static_assert(std::endian::native == std::endian::little, "OpenAI's base64 embeddings are little-endian float32");
  std::string bytes(values.size() * sizeof(float), '\0');
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t group = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      group = (group << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    }
    for (std::size_t k = 0; k < 4; ++k) out += k <= n ? kAlphabet[(group >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

}  // namespace

std::variant<ParsedRequest, ApiError> parse_tei_rerank(const json& body, std::size_t max_items) {
  if (auto e = unknown_field(body, {"query", "texts", "raw_scores", "return_text", "truncate", "truncation_direction"})) {
    return *e;
  }
  if (!body.contains("query") || !body["query"].is_string()) return bad_request("\"query\" must be a string");
  if (!body.contains("texts") || !body["texts"].is_array()) return bad_request("\"texts\" must be an array of strings");
  const json& texts = body["texts"];
  if (texts.size() > max_items) return too_many_items(texts.size(), "texts", max_items);
  ParsedRequest r;
  const std::string query = body["query"].get<std::string>();
  if (auto e = check_text(query, "query")) return *e;
  if (auto e = take_strings(texts, "texts", r.second)) return *e;
  r.first.assign(r.second.size(), query);
  bool truncate = false;  // geoalign reads any address as /v1/match does: accepted, no effect
  for (auto [name, flag] : {std::pair{"raw_scores", &r.raw_scores}, std::pair{"return_text", &r.return_text},
                            std::pair{"truncate", &truncate}}) {
    if (auto e = take_flag(body, name, *flag)) return *e;
  }
  if (body.contains("truncation_direction")) {
    const json& direction = body["truncation_direction"];
    if (!direction.is_string() || (direction != "Left" && direction != "Right")) {
      return bad_request("\"truncation_direction\" must be \"Left\" or \"Right\"");
    }
  }
  return r;
}

ResponseBody render_tei_rerank(const ParsedRequest& parsed, const runtime::InferenceRequest& done) {
  std::vector<std::size_t> order(done.matches.size());
  std::iota(order.begin(), order.end(), 0);
  // Highest first; equal scores keep the texts' order.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return done.matches[a].p_exact_match > done.matches[b].p_exact_match;
  });
  json out = json::array();
  for (const std::size_t i : order) {
    const double p = std::clamp(static_cast<double>(done.matches[i].p_exact_match), kLogitClamp, 1 - kLogitClamp);
    json item = {{"index", i}, {"score", parsed.raw_scores ? std::log(p / (1 - p)) : done.matches[i].p_exact_match}};
    if (parsed.return_text) item["text"] = done.second[i];
    out.push_back(std::move(item));
  }
  return {out.dump(-1, ' ', false, json::error_handler_t::replace), {}};
}

std::variant<ParsedRequest, ApiError> parse_openai_embeddings(const json& body, std::size_t max_items) {
  if (auto e = unknown_field(body, {"input", "model", "encoding_format", "user"})) return *e;
  if (!body.contains("input")) return bad_request("missing field \"input\"");
  const json& input = body["input"];
  ParsedRequest r;
  if (input.is_string()) {
    r.first.push_back(input.get<std::string>());
    if (auto e = check_text(r.first.back(), "input")) return *e;
  } else if (input.is_array()) {
    if (input.empty()) return bad_request("\"input\" must hold at least one text");
    if (input.size() > max_items) return too_many_items(input.size(), "inputs", max_items);
    if (!input[0].is_string()) {
      return bad_request("\"input\" must be a string or an array of strings (token ids are not taken: send the text)");
    }
    if (auto e = take_strings(input, "input", r.first)) return *e;
  } else {
    return bad_request("\"input\" must be a string or an array of strings");
  }
  if (body.contains("model")) {
    if (!body["model"].is_string()) return bad_request("\"model\" must be a string");
    r.model = body["model"].get<std::string>();
  }
  if (body.contains("encoding_format")) {
    const json& format = body["encoding_format"];
    if (!format.is_string() || (format != "float" && format != "base64")) {
      return bad_request("\"encoding_format\" must be \"float\" or \"base64\"");
    }
    r.base64 = format == "base64";
  }
  if (body.contains("user") && !body["user"].is_string()) return bad_request("\"user\" must be a string");
  return r;
}

ResponseBody render_openai_embeddings(const ParsedRequest& parsed, const runtime::InferenceRequest& done) {
  json data = json::array();
  for (std::size_t i = 0; i < done.vectors.size(); ++i) {
    json embedding = parsed.base64 ? json(base64_of(done.vectors[i])) : json(done.vectors[i]);
    data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", std::move(embedding)}});
  }
  const std::size_t tokens = done.tokens_read.load();
  json out = {{"object", "list"},
              {"data", std::move(data)},
              {"model", parsed.model},
              {"usage", {{"prompt_tokens", tokens}, {"total_tokens", tokens}}}};
  return {out.dump(-1, ' ', false, json::error_handler_t::replace), {}};
}

}  // namespace geoalign::serve
