#include "serve/explain_kind.h"

#include "geoalign/error.h"
#include "match/head_explanation.h"
#include "match/pair_features.h"
#include "serve/parse_kind.h"
#include "serve/search_request.h"

namespace geoalign::serve {

namespace {

using runtime::BatchContext;
using runtime::BatchItem;

// What an item carries from its earlier stages to its explanation.
struct Explaining {
  runtime::NormalizedPair pair;
  std::vector<float> encoder_probabilities;
  std::size_t label = 0;
};

nlohmann::json explanation(const runtime::PairScorer& scorer, const Explaining& state,
                           const std::vector<float>& pair_features) {
  const auto& head = *scorer.folder().head;
  nlohmann::json features = nlohmann::json::array();
  // For a head in canonical order, what each input weighs is asked of the pair as it was
  // given (its order input as given), one of the two readings the symmetric answer averages.
  for (const auto& input : match::strongest_inputs(head, pair_features, state.encoder_probabilities,
                                                   state.pair.swapped, state.label, kExplainedInputs)) {
    features.push_back({{"name", input.name}, {"value", input.value}, {"influence", input.influence}});
  }
  // The chains as the head compared them: without the admin guess, of the prefix it reads;
  // in the order the pair was given, whichever order the head read it in.
  nlohmann::json first = parse_answer(scorer, match::compared_prefix(state.pair.a), false);
  nlohmann::json second = parse_answer(scorer, match::compared_prefix(state.pair.b), false);
  if (state.pair.swapped) std::swap(first, second);
  return {{"parses", {std::move(first), std::move(second)}}, {"features", std::move(features)}};
}

class ExplainKind final : public runtime::RequestKind {
 public:
  runtime::ModelPass pass() const override { return runtime::ModelPass::Classify; }

  void accept(runtime::InferenceRequest& request) const override {
    auto* explain = dynamic_cast<JsonResultsRequest*>(&request);
    if (explain == nullptr) throw Error("an explained match request must be a JsonResultsRequest");
    if (request.second.size() != request.first.size()) {
      throw Error("a match request needs as many second addresses as first ones");
    }
    request.matches.resize(request.size());
    explain->results.resize(request.size());
  }

  bool prepare(BatchItem& item, const BatchContext& context) const override {
    if (!can_explain(context.scorer)) throw Error("this model has no match head to explain its answers");
    const auto& request = *item.request;
    Explaining state{context.scorer.normalize(request.first[item.index], request.second[item.index]), {}, 0};
    item.input = context.scorer.tokenize(state.pair);
    item.state = std::move(state);
    return true;
  }

  bool completes(const BatchContext&) const override { return true; }

  void complete(BatchItem& item, const BatchContext& context) const override {
    context.scorer.compare(std::any_cast<const Explaining&>(item.state).pair, item.input);
  }

  void store(BatchItem& item, runtime::ModelOutput output, const BatchContext&) const override {
    auto& classified = std::get<runtime::Classification>(output);
    auto& state = std::any_cast<Explaining&>(item.state);
    state.encoder_probabilities = std::move(classified.encoder_probabilities);
    state.label = classified.result.label_id;
    item.request->matches[item.index] = std::move(classified.result);
  }

  bool has_after_stage() const override { return true; }

  void after(BatchItem& item, const BatchContext& context) const override {
    auto& request = static_cast<JsonResultsRequest&>(*item.request);  // accept() checked the type
    request.results[item.index] =
        explanation(context.scorer, std::any_cast<const Explaining&>(item.state), item.input.pair_features);
  }
};

}  // namespace

const runtime::RequestKind& explain_kind() {
  static const ExplainKind kind;
  return kind;
}

bool can_explain(const runtime::PairScorer& scorer) { return scorer.folder().head != nullptr; }

}  // namespace geoalign::serve
