#pragma once

#include <any>
#include <chrono>
#include <memory>
#include <variant>
#include <vector>

#include "runtime/lru_cache.h"
#include "runtime/pair_scorer.h"

namespace geoalign::runtime {

using Clock = std::chrono::steady_clock;

struct InferenceRequest;
class BatchObserver;

// The model passes a batch can run. Items of every kind that uses the same pass share
// batches (an embed request's addresses ride with a search request's queries). Items of
// a kind with no pass (None: parsing) skip the model and go from the tokenizer thread
// straight to the after-model threads.
enum class ModelPass { Classify, Embed, None };
// The classify pass's answer for an item: the result, and the encoder's class
// probabilities that the match head read (what explaining the result needs).
struct Classification {
  MatchResult result;
  std::vector<float> encoder_probabilities;  // one per label, in id order
};
using ModelOutput = std::variant<Classification, std::vector<float>>;

// One item of a request on its way through the batcher: a pair to match, an address to
// embed, a query to search.
struct BatchItem {
  std::shared_ptr<InferenceRequest> request;
  std::size_t index = 0;     // in the request
  text::EncodedInput input;  // what the model reads
  std::any state;            // what the kind's later stages need from its earlier ones
  Clock::time_point enqueued{};
};

// What the batcher lends a kind's stages: its model and its result cache.
struct BatchContext {
  const PairScorer& scorer;
  LruCache<MatchResult>& cache;
  BatchObserver* observer;  // may be null
};

// One kind of request, described in one place. The batcher runs every item through
// the same stages and asks the request's kind what each stage does:
//   1. prepare, on the tokenizer thread, a slice of a request at a time: the item's model
//      input, unless the kind answers the item at once (a cache hit);
//   2. complete, at batch time over every core: input work worth doing only for items
//      about to run (the match head's parse-and-compare);
//   3. the model pass, over a batch of items of every kind with that pass();
//   4. store, on the model thread: the pass's output for the item;
//   5. after, when the kind has that stage, on the batcher's after-model threads, so
//      the model runs the next batch meanwhile (search's lookup and rerank).
// A kind whose pass() is None has only stage 5 (its items are not prepared). A stage that
// throws fails the item's request alone. A kind holds no request's state (that lives in
// the request and its items), and its stages run concurrently.
class RequestKind {
 public:
  virtual ~RequestKind() = default;

  virtual ModelPass pass() const = 0;
  // On submit, before any stage: checks the request (throws Error) and sizes its results.
  virtual void accept(InferenceRequest& request) const = 0;
  // Fills item.input; false when the item is answered without the model.
  virtual bool prepare(BatchItem& item, const BatchContext& context) const = 0;
  virtual bool completes(const BatchContext&) const { return false; }
  virtual void complete(BatchItem&, const BatchContext&) const {}
  virtual void store(BatchItem& item, ModelOutput output, const BatchContext& context) const = 0;
  virtual bool has_after_stage() const { return false; }
  virtual void after(BatchItem&, const BatchContext&) const {}
};

// Pairs to classify (request.first[i], request.second[i] -> request.matches[i]), through
// the cache and the match head's compare stage.
const RequestKind& match_kind();
// Addresses to embed (request.first[i] -> request.vectors[i]).
const RequestKind& embed_kind();

}  // namespace geoalign::runtime
