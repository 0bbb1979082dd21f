#include "runtime/batcher.h"

#include <algorithm>

namespace geoalign::runtime {

namespace {

double seconds_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

}  // namespace

Batcher::Batcher(const PairScorer& scorer, BatcherOptions options, BatchObserver* observer)
    : scorer_(scorer), options_(options), observer_(observer), cache_(options.cache_size) {
  if (options_.max_batch_size == 0) throw Error("max_batch_size must be at least 1");
  if (options_.max_batch_tokens == 0) options_.max_batch_tokens = options_.max_batch_size * scorer_.max_length();
  if (options_.max_batch_tokens < scorer_.max_length()) {
    throw Error("max_batch_tokens (" + std::to_string(options_.max_batch_tokens) +
                ") must hold at least one full-length pair (" + std::to_string(scorer_.max_length()) + " tokens)");
  }
  tokenizer_thread_ = std::thread([this] { tokenizer_loop(); });
  model_thread_ = std::thread([this] { model_loop(); });
}

Batcher::~Batcher() { shutdown(); }

bool Batcher::submit(const std::shared_ptr<InferenceRequest>& request) {
  if (request->kind == InferenceRequest::Kind::Match && request->second.size() != request->first.size()) {
    throw Error("a match request needs as many second addresses as first ones");
  }
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return false;
    const std::size_t n = request->size();
    if (queued_.load() + n > options_.max_queue) return false;
    queued_ += n;
    if (request->kind == InferenceRequest::Kind::Match) {
      request->matches.resize(n);
    } else {
      request->vectors.resize(n);
    }
    request->remaining = n;
    inbox_.push_back(request);
  }
  if (observer_) observer_->on_queue_depth(static_cast<std::int64_t>(queued_.load()));
  inbox_ready_.notify_one();
  if (request->size() == 0) finish_request(*request, InferenceRequest::Outcome::Ok, "");
  return true;
}

void Batcher::shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !tokenizer_thread_.joinable()) return;
    stopping_ = true;
  }
  inbox_ready_.notify_all();
  items_ready_.notify_all();
  if (tokenizer_thread_.joinable()) tokenizer_thread_.join();
  if (model_thread_.joinable()) model_thread_.join();
}

void Batcher::finish_request(InferenceRequest& request, InferenceRequest::Outcome outcome, const std::string& error) {
  if (request.finished.exchange(true)) return;
  request.outcome = outcome;
  request.error = error;
  if (request.done) request.done(request);
}

void Batcher::finish_item(InferenceRequest& request) {
  --queued_;
  if (request.remaining.fetch_sub(1) == 1) finish_request(request, InferenceRequest::Outcome::Ok, "");
}

void Batcher::tokenizer_loop() {
  for (;;) {
    std::shared_ptr<InferenceRequest> request;
    {
      std::unique_lock lock(mutex_);
      inbox_ready_.wait(lock, [&] { return stopping_ || !inbox_.empty(); });
      if (inbox_.empty()) {
        tokenizer_done_ = true;
        items_ready_.notify_all();
        return;
      }
      request = std::move(inbox_.front());
      inbox_.pop_front();
    }
    const bool match = request->kind == InferenceRequest::Kind::Match;
    std::vector<Item> items;
    std::size_t tokens = 0;
    try {
      for (std::size_t i = 0; i < request->size(); ++i) {
        Item item{request, i, {}, {}, Clock::now()};
        if (match) {
          item.cache_key = scorer_.normalized_pair_key(request->first[i], request->second[i]);
          if (auto hit = cache_.get(item.cache_key)) {
            if (observer_) observer_->on_cache_lookup(true);
            request->matches[i] = std::move(*hit);
            finish_item(*request);
            continue;
          }
          if (observer_ && options_.cache_size > 0) observer_->on_cache_lookup(false);
          item.input = scorer_.encode_pair(request->first[i], request->second[i]);
        } else {
          item.input = scorer_.encode_address(request->first[i]);
        }
        tokens += item.input.input_ids.size();
        items.push_back(std::move(item));
      }
    } catch (const std::exception& e) {
      queued_ -= request->remaining.load();
      finish_request(*request, InferenceRequest::Outcome::Failed, e.what());
      continue;
    }
    {
      std::lock_guard lock(mutex_);
      auto& queue = match ? match_items_ : embed_items_;
      for (auto& item : items) queue.push_back(std::move(item));
      queued_tokens_ += tokens;
    }
    items_ready_.notify_one();
  }
}

bool Batcher::should_skip(Item& item, Clock::time_point now) {
  InferenceRequest& r = *item.request;
  if (r.finished.load()) return true;
  if (r.cancelled.load()) {
    finish_request(r, InferenceRequest::Outcome::Cancelled, "client went away");
    return true;
  }
  if (now > r.deadline) {
    finish_request(r, InferenceRequest::Outcome::TimedOut, "request timed out in the queue");
    return true;
  }
  return false;
}

void Batcher::model_loop() {
  model::BertModel::Workspace ws;
  std::vector<Item> batch;
  for (;;) {
    batch.clear();
    {
      std::unique_lock lock(mutex_);
      for (;;) {
        const bool empty = match_items_.empty() && embed_items_.empty();
        if (empty && tokenizer_done_) return;
        if (empty) {
          items_ready_.wait(lock);
          continue;
        }
        // Serve the queue whose head has waited longest; batches hold one kind only.
        const bool use_match = embed_items_.empty() ||
                               (!match_items_.empty() && match_items_.front().enqueued <= embed_items_.front().enqueued);
        const auto& queue = use_match ? match_items_ : embed_items_;
        const auto close_at = queue.front().enqueued + options_.max_queue_delay;
        if (queue.size() >= options_.max_batch_size || queued_tokens_ >= options_.max_batch_tokens || stopping_ ||
            Clock::now() >= close_at) {
          break;
        }
        items_ready_.wait_until(lock, close_at);
      }
      const bool use_match = embed_items_.empty() ||
                             (!match_items_.empty() && match_items_.front().enqueued <= embed_items_.front().enqueued);
      auto& queue = use_match ? match_items_ : embed_items_;
      std::size_t tokens = 0;
      while (!queue.empty() && batch.size() < options_.max_batch_size &&
             tokens + queue.front().input.input_ids.size() <= options_.max_batch_tokens) {
        tokens += queue.front().input.input_ids.size();
        batch.push_back(std::move(queue.front()));
        queue.pop_front();
      }
      queued_tokens_ -= tokens;
    }
    run_batch(batch, ws);
    if (observer_) observer_->on_queue_depth(static_cast<std::int64_t>(queued_.load()));
  }
}

void Batcher::run_batch(std::vector<Item>& batch, model::BertModel::Workspace& ws) {
  const auto start = Clock::now();
  std::vector<Item*> live;
  for (auto& item : batch) {
    if (should_skip(item, start)) {
      --queued_;
      continue;
    }
    if (observer_) observer_->on_dequeued(seconds_between(item.enqueued, start));
    live.push_back(&item);
  }
  if (live.empty()) return;
  std::vector<const text::EncodedInput*> inputs;
  std::size_t tokens = 0;
  for (Item* item : live) {
    inputs.push_back(&item->input);
    tokens += item->input.input_ids.size();
  }
  try {
    if (live.front()->request->kind == InferenceRequest::Kind::Match) {
      std::vector<MatchResult> results;
      scorer_.classify(inputs, ws, results);
      for (std::size_t k = 0; k < live.size(); ++k) {
        cache_.put(live[k]->cache_key, results[k]);
        live[k]->request->matches[live[k]->index] = std::move(results[k]);
      }
    } else {
      std::vector<std::vector<float>> vectors;
      scorer_.embed(inputs, ws, vectors);
      for (std::size_t k = 0; k < live.size(); ++k) live[k]->request->vectors[live[k]->index] = std::move(vectors[k]);
    }
  } catch (const std::exception& e) {
    for (Item* item : live) {
      --queued_;
      finish_request(*item->request, InferenceRequest::Outcome::Failed, e.what());
    }
    return;
  }
  if (observer_) observer_->on_batch(live.size(), tokens, seconds_between(start, Clock::now()));
  for (Item* item : live) finish_item(*item->request);
}

}  // namespace geoalign::runtime
