#include "serve/parse_kind.h"

#include "geo/parse_json.h"
#include "geoalign/error.h"
#include "serve/search_request.h"

namespace geoalign::serve {

namespace {

class ParseKind final : public runtime::RequestKind {
 public:
  // Never consulted: every item is answered in prepare() and none reaches a batch.
  runtime::ModelPass pass() const override { return runtime::ModelPass::Embed; }

  void accept(runtime::InferenceRequest& request) const override {
    auto* parse = dynamic_cast<JsonResultsRequest*>(&request);
    if (parse == nullptr) throw Error("a parse request must be a JsonResultsRequest");
    parse->results.resize(parse->size());
  }

  bool prepare(runtime::BatchItem& item, const runtime::BatchContext& context) const override {
    auto& request = static_cast<JsonResultsRequest&>(*item.request);  // accept() checked the type
    const std::string normalized = context.scorer.folder().normalizer.normalize(request.first[item.index]);
    request.results[item.index] = parse_answer(context.scorer, normalized);
    return false;
  }

  void store(runtime::BatchItem&, runtime::ModelOutput, const runtime::BatchContext&) const override {
    throw Error("parse items have no model output");
  }
};

}  // namespace

const runtime::RequestKind& parse_kind() {
  static const ParseKind kind;
  return kind;
}

bool can_parse(const runtime::PairScorer& scorer) { return scorer.folder().head != nullptr; }

nlohmann::json parse_answer(const runtime::PairScorer& scorer, std::string_view normalized, bool guess) {
  if (!can_parse(scorer)) throw Error("this model has no parser");
  return geo::parse_json(scorer.folder().head->comparer().parser().parse(normalized, {.guess = guess}));
}

}  // namespace geoalign::serve
