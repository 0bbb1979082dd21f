#include "runtime/batcher.h"

namespace geoalign::runtime {

namespace {

class MatchKind final : public RequestKind {
 public:
  ModelPass pass() const override { return ModelPass::Classify; }

  void accept(InferenceRequest& request) const override {
    if (request.second.size() != request.first.size()) {
      throw Error("a match request needs as many second addresses as first ones");
    }
    request.matches.resize(request.size());
  }

  // Normalized first: the cache key and every later stage read the normalized pair, so
  // invisible characters can neither change an answer nor poison the cache.
  bool prepare(BatchItem& item, const BatchContext& context) const override {
    InferenceRequest& request = *item.request;
    NormalizedPair pair = context.scorer.normalize(request.first[item.index], request.second[item.index]);
    if (auto hit = context.cache.get(context.scorer.cache_key(pair))) {
      if (context.observer) context.observer->on_cache_lookup(true);
      request.matches[item.index] = std::move(*hit);
      return false;
    }
    if (context.observer && context.cache.enabled()) context.observer->on_cache_lookup(false);
    item.input = context.scorer.input_for(pair);
    item.state = std::move(pair);
    return true;
  }

  bool completes(const BatchContext& context) const override { return context.scorer.compares(); }

  void complete(BatchItem& item, const BatchContext& context) const override {
    context.scorer.compare(std::any_cast<const NormalizedPair&>(item.state), item.input);
  }

  void store(BatchItem& item, ModelOutput output, const BatchContext& context) const override {
    auto& result = std::get<Classification>(output).result;
    context.cache.put(context.scorer.cache_key(std::any_cast<const NormalizedPair&>(item.state)), result);
    item.request->matches[item.index] = std::move(result);
  }
};

}  // namespace

const RequestKind& match_kind() {
  static const MatchKind kind;
  return kind;
}

}  // namespace geoalign::runtime
