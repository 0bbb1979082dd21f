#include "serve/parse_kind.h"

#include "geo/parse_json.h"
#include "geoalign/error.h"
#include "serve/search_request.h"

namespace geoalign::serve {

namespace {

// Parsing needs no model: each item goes from the tokenizer thread to the after-model
// threads, which parse it (a CRF parse of a long address costs milliseconds: on the
// tokenizer thread a parse request held every /v1/match back).
class ParseKind final : public runtime::RequestKind {
 public:
  runtime::ModelPass pass() const override { return runtime::ModelPass::None; }

  void accept(runtime::InferenceRequest& request) const override {
    auto* parse = dynamic_cast<JsonResultsRequest*>(&request);
    if (parse == nullptr) throw Error("a parse request must be a JsonResultsRequest");
    parse->results.resize(parse->size());
  }

  bool prepare(runtime::BatchItem&, const runtime::BatchContext&) const override { return true; }

  void store(runtime::BatchItem&, runtime::ModelOutput, const runtime::BatchContext&) const override {
    throw Error("parse items have no model output");
  }

  bool has_after_stage() const override { return true; }

  void after(runtime::BatchItem& item, const runtime::BatchContext& context) const override {
    auto& request = static_cast<JsonResultsRequest&>(*item.request);  // accept() checked the type
    const std::string normalized = context.scorer.folder().normalizer.normalize(request.first[item.index]);
    request.results[item.index] = parse_answer(context.scorer, normalized);
  }
};

}  // namespace

const runtime::RequestKind& parse_kind() {
  static const ParseKind kind;
  return kind;
}

bool can_parse(const runtime::PairScorer& scorer) { return scorer.folder().parser->available(); }

nlohmann::json parse_answer(const runtime::PairScorer& scorer, std::string_view normalized, bool guess) {
  return geo::parse_json(scorer.folder().parser->get().parse(normalized, {.guess = guess}));
}

}  // namespace geoalign::serve
