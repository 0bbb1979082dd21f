#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "backend/threads.h"
#include "runtime/fair_queue.h"
#include "runtime/inference_request.h"
#include "runtime/lru_cache.h"
#include "runtime/pair_scorer.h"
#include "runtime/request_kind.h"

namespace geoalign::runtime {

struct BatcherOptions {
  std::size_t max_batch_size = 64;
  std::size_t max_batch_tokens = 0;  // 0: max_batch_size * the model's max_length
  std::chrono::microseconds max_queue_delay{2000};
  std::size_t max_queue = 4096;   // items (pairs, addresses, queries) not yet answered, over all requests
  std::size_t cache_size = 0;     // pair results kept in an LRU cache
  std::size_t after_threads = 0;  // for after-model stages (search's lookup and rerank); 0: one per core this process may use
  // After-model threads at the lowest priority (run_at_background_priority_on_this_thread):
  // their work never slows a batch, and waits while the model keeps every core busy.
  bool after_threads_idle = false;
  // The model's thread and its OpenMP workers each on a core of their own
  // (pin_team_to_cores), so background work never leaves two of them on one core.
  PinThreads pin_model_threads = PinThreads::Off;
};

// Where the batcher reports what it does (the server's metrics).
class BatchObserver {
 public:
  virtual ~BatchObserver() = default;
  virtual void on_batch(std::size_t sequences, std::size_t tokens, double compute_seconds) = 0;
  virtual void on_dequeued(double waited_seconds) = 0;
  virtual void on_queue_depth(std::int64_t depth) = 0;
  virtual void on_cache_lookup(bool hit) = 0;
};

// Dynamic batching. Requests from all connections join one queue; each request's kind
// (RequestKind) says what its items go through. A tokenizer thread prepares them a slice
// at a time (normalizes and tokenizes; answers cache hits), taking requests in turn so a
// large one cannot hold up the others. The model thread runs a batch as soon as it is
// idle and items are queued; it waits for more (up to max_queue_delay) only while the
// tokenizer is still turning queued requests into items. A batch takes items of one model
// pass from the waiting requests in turn, up to max_batch_size items and max_batch_tokens
// tokens, so a one-pair request rides in the next batch whatever is queued before it.
// Work a kind does at batch time (the match head's parse-and-compare) runs over every
// core, as in offline scoring. Items whose kind has an after-model stage go on to a small
// pool of threads that run it while the model runs the next batch, requests in turn;
// items of kinds without a model pass (parsing) go to that pool from the tokenizer, so
// their work never holds up the tokenizer. Large requests are split over batches and
// reassembled.
class Batcher {
 public:
  Batcher(const PairScorer& scorer, BatcherOptions options, BatchObserver* observer = nullptr);
  ~Batcher();
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // False when the queue cannot take the request's items (answer 429) or the batcher
  // is shutting down. Throws when the request has no kind or its kind refuses it.
  bool submit(const std::shared_ptr<InferenceRequest>& request);
  // Finishes every accepted request, then stops the threads.
  void shutdown();
  // While paused the model takes no new batch; requests still queue (and time out, or
  // are skipped when their client goes). For holding work in the queue on purpose, as
  // tests do; shutdown() ends a pause.
  void pause();
  void resume();
  std::size_t queued_items() const { return queued_.load(); }
  // Items tokenized and waiting for the model (tests wait on it while paused).
  std::size_t model_queue_items() const {
    std::lock_guard lock(mutex_);
    return lane_items_;
  }
  const BatcherOptions& options() const { return options_; }

 private:
  // The items of one request waiting for the model, in request order.
  struct Lane {
    ModelPass pass;
    std::deque<BatchItem> items;
  };

  void tokenizer_loop();
  void prepare_slice(const std::shared_ptr<InferenceRequest>& request, std::vector<BatchItem>& items, std::size_t& tokens);
  void hand_to_after_stage(std::vector<BatchItem>& items);
  void model_loop();
  void take_batch(std::vector<BatchItem>& batch);
  void run_batch(std::vector<BatchItem>& batch, model::BertModel::Workspace& ws);
  void complete_stage(std::vector<BatchItem*>& live);
  // Whether a batch is small enough to run complete_stage beside the encoder (one core each).
  bool completes_beside_encoder(const std::vector<BatchItem*>& live) const;
  // complete_stage(live) on one core while the encoder classifies all of them on another,
  // then the decision for the items that completed.
  std::vector<ModelOutput> classify_beside_completion(std::vector<BatchItem*>& live, model::BertModel::Workspace& ws);
  std::vector<ModelOutput> run_model(ModelPass pass, std::span<const text::EncodedInput* const> inputs,
                                     model::BertModel::Workspace& ws) const;
  void after_loop();
  void fail_item(BatchItem& item, const std::string& error);
  void count_queued(std::int64_t delta);
  void finish_item(InferenceRequest& request);
  void finish_request(InferenceRequest& request, InferenceRequest::Outcome outcome, const std::string& error);
  bool should_skip(BatchItem& item, Clock::time_point now);

  const PairScorer& scorer_;
  BatcherOptions options_;
  BatchObserver* observer_;
  LruCache<MatchResult> cache_;
  BatchContext context_;

  mutable std::mutex mutex_;
  std::condition_variable inbox_ready_, items_ready_, after_ready_;
  std::deque<std::shared_ptr<InferenceRequest>> inbox_;
  std::deque<Lane> lanes_;
  // Items past the model whose kind has an after stage, and items of kinds with no model
  // pass: taken a request at a time in turn, so one large search cannot hold a small one
  // back for longer than an item.
  FairQueue<const InferenceRequest*, BatchItem> after_queue_;
  std::size_t lane_items_ = 0, queued_tokens_ = 0;
  bool tokenizing_ = false;  // the tokenizer holds a request taken from the inbox
  std::atomic<std::size_t> queued_{0};
  std::mutex depth_mutex_;  // orders count_queued's changes and reports
  bool stopping_ = false, tokenizer_done_ = false, model_done_ = false, paused_ = false;
  std::thread tokenizer_thread_, model_thread_;
  std::vector<std::thread> after_threads_;
};

}  // namespace geoalign::runtime
