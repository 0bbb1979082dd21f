#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/lru_cache.h"
#include "runtime/pair_scorer.h"

namespace geoalign::runtime {

using Clock = std::chrono::steady_clock;

struct BatcherOptions {
  std::size_t max_batch_size = 64;
  std::size_t max_batch_tokens = 0;  // 0: max_batch_size * the model's max_length
  std::chrono::microseconds max_queue_delay{2000};
  std::size_t max_queue = 4096;  // items (pairs or addresses) waiting, over all requests
  std::size_t cache_size = 0;    // pair results kept in an LRU cache
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

// One client request: pairs to score or addresses to embed. The batcher fills the
// results and calls `done` exactly once, from one of its threads (an exception from
// `done` is reported on stderr and goes no further).
struct InferenceRequest : std::enable_shared_from_this<InferenceRequest> {
  enum class Kind { Match, Embed };
  enum class Outcome { Pending, Ok, TimedOut, Cancelled, Failed };

  Kind kind = Kind::Match;
  std::vector<std::string> first;   // addr1 of each pair, or the addresses to embed
  std::vector<std::string> second;  // addr2 of each pair (Match only)
  Clock::time_point deadline = Clock::time_point::max();
  std::atomic<bool> cancelled{false};  // set when the client has gone
  std::function<void(InferenceRequest&)> done;

  std::vector<MatchResult> matches;
  std::vector<std::vector<float>> vectors;
  Outcome outcome = Outcome::Pending;
  std::string error;

  std::size_t size() const { return first.size(); }

 private:
  friend class Batcher;
  std::size_t tokenized = 0;  // items handed to the model queue so far (tokenizer thread only)
  std::atomic<std::size_t> remaining{0};
  std::atomic<bool> finished{false};
};

// Dynamic batching. Requests from all connections join one queue. A tokenizer thread
// normalizes and tokenizes them a slice at a time, taking requests in turn so a large one
// cannot hold up the others, and answers cache hits. The model thread runs a batch as
// soon as it is idle and items are queued; it waits for more (up to max_queue_delay) only
// while the tokenizer is still turning queued requests into items. A batch takes items
// from the waiting requests in turn, up to max_batch_size items and max_batch_tokens
// tokens, so a one-pair request rides in the next batch whatever is queued before it.
// The match head's parse-and-compare stage runs at batch time over every core, as in
// offline scoring. Large requests are split over batches and reassembled.
class Batcher {
 public:
  Batcher(const PairScorer& scorer, BatcherOptions options, BatchObserver* observer = nullptr);
  ~Batcher();
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // False when the queue cannot take the request's items (answer 429) or the batcher
  // is shutting down.
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
  struct Item {
    std::shared_ptr<InferenceRequest> request;
    std::size_t index;
    NormalizedPair text;  // Match: what the compare stage reads at batch time
    text::EncodedInput input;
    std::string cache_key;
    Clock::time_point enqueued;
  };
  // The items of one request waiting for the model, in request order.
  struct Lane {
    InferenceRequest::Kind kind;
    std::deque<Item> items;
  };

  void tokenizer_loop();
  void tokenize_slice(const std::shared_ptr<InferenceRequest>& request, std::vector<Item>& items, std::size_t& tokens);
  void model_loop();
  void take_batch(std::vector<Item>& batch);
  void run_batch(std::vector<Item>& batch, model::BertModel::Workspace& ws);
  void compare_stage(std::vector<Item*>& live);
  void finish_item(InferenceRequest& request);
  void finish_request(InferenceRequest& request, InferenceRequest::Outcome outcome, const std::string& error);
  bool should_skip(Item& item, Clock::time_point now);

  const PairScorer& scorer_;
  BatcherOptions options_;
  BatchObserver* observer_;
  LruCache<MatchResult> cache_;

  mutable std::mutex mutex_;
  std::condition_variable inbox_ready_, items_ready_;
  std::deque<std::shared_ptr<InferenceRequest>> inbox_;
  std::deque<Lane> lanes_;
  std::size_t lane_items_ = 0, queued_tokens_ = 0;
  bool tokenizing_ = false;  // the tokenizer holds a request taken from the inbox
  std::atomic<std::size_t> queued_{0};
  bool stopping_ = false, tokenizer_done_ = false, paused_ = false;
  std::thread tokenizer_thread_, model_thread_;
};

}  // namespace geoalign::runtime
