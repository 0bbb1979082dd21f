#include "runtime/batcher.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "backend/cpu/parallel.h"
#include "backend/threads.h"

namespace geoalign::runtime {

namespace {

// Items the tokenizer prepares from one request before it turns to the next waiting one:
// about a millisecond of work, so a large request delays a small one by little.
constexpr std::size_t kTokenizeSlice = 64;

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
  release_idle_threads();  // the model thread becomes the one thread with OpenMP workers
  tokenizer_thread_ = std::thread([this] { tokenizer_loop(); });
  model_thread_ = std::thread([this] { model_loop(); });
}

Batcher::~Batcher() { shutdown(); }

bool Batcher::submit(const std::shared_ptr<InferenceRequest>& request) {
  if (request->kind == InferenceRequest::Kind::Match && request->second.size() != request->first.size()) {
    throw Error("a match request needs as many second addresses as first ones");
  }
  const std::size_t n = request->size();
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return false;
    if (queued_.load() + n > options_.max_queue) return false;
    queued_ += n;
    if (request->kind == InferenceRequest::Kind::Match) {
      request->matches.resize(n);
    } else {
      request->vectors.resize(n);
    }
    request->remaining = n;
    if (n > 0) inbox_.push_back(request);
  }
  if (observer_) observer_->on_queue_depth(static_cast<std::int64_t>(queued_.load()));
  if (n == 0) {
    finish_request(*request, InferenceRequest::Outcome::Ok, "");
  } else {
    inbox_ready_.notify_one();
  }
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

void Batcher::pause() {
  std::lock_guard lock(mutex_);
  paused_ = true;
}

void Batcher::resume() {
  {
    std::lock_guard lock(mutex_);
    paused_ = false;
  }
  items_ready_.notify_all();
}

void Batcher::finish_request(InferenceRequest& request, InferenceRequest::Outcome outcome, const std::string& error) {
  if (request.finished.exchange(true)) return;
  request.outcome = outcome;
  request.error = error;
  if (!request.done) return;
  // `done` runs on a batcher thread; nothing it throws may end that thread (and with
  // it every later request).
  try {
    request.done(request);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "geoalign: a request's completion callback failed: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "geoalign: a request's completion callback failed\n");
  }
}

void Batcher::finish_item(InferenceRequest& request) {
  --queued_;
  if (request.remaining.fetch_sub(1) == 1) finish_request(request, InferenceRequest::Outcome::Ok, "");
}

// The next slice of a request as model-queue items; cache hits are answered on the spot.
// On an exception, `items` holds those made before the bad one.
void Batcher::tokenize_slice(const std::shared_ptr<InferenceRequest>& owner, std::vector<Item>& items,
                             std::size_t& tokens) {
  InferenceRequest& request = *owner;
  const bool match = request.kind == InferenceRequest::Kind::Match;
  const std::size_t end = std::min(request.size(), request.tokenized + kTokenizeSlice);
  for (std::size_t& i = request.tokenized; i < end; ++i) {
    Item item{owner, i, {}, {}, {}, Clock::now()};
    if (match) {
      item.text = scorer_.normalize(request.first[i], request.second[i]);
      item.cache_key = PairScorer::cache_key(item.text);
      if (auto hit = cache_.get(item.cache_key)) {
        if (observer_) observer_->on_cache_lookup(true);
        request.matches[i] = std::move(*hit);
        finish_item(request);
        continue;
      }
      if (observer_ && options_.cache_size > 0) observer_->on_cache_lookup(false);
      item.input = scorer_.tokenize(item.text);
    } else {
      item.input = scorer_.encode_address(request.first[i]);
    }
    tokens += item.input.input_ids.size();
    items.push_back(std::move(item));
  }
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
      tokenizing_ = true;
    }
    const std::size_t first = request->tokenized;
    std::vector<Item> items;
    std::size_t tokens = 0;
    std::optional<std::string> error;
    try {
      tokenize_slice(request, items, tokens);
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (error) {
      // Items of earlier slices are in the queue and will be skipped there; release the
      // rest: this slice's up to the bad one, and all after it.
      queued_ -= items.size() + (request->size() - request->tokenized);
      finish_request(*request, InferenceRequest::Outcome::Failed, *error);
      items.clear();
    }
    {
      std::lock_guard lock(mutex_);
      if (!items.empty()) {
        // Later slices join the request's own lane, so a request gets one turn per round.
        auto lane = std::find_if(lanes_.begin(), lanes_.end(), [&](const Lane& l) {
          return first > 0 && !l.items.empty() && l.items.front().request == request;
        });
        if (lane == lanes_.end()) lane = lanes_.insert(lanes_.end(), Lane{request->kind, {}});
        for (auto& item : items) lane->items.push_back(std::move(item));
        lane_items_ += items.size();
        queued_tokens_ += tokens;
      }
      if (!error && request->tokenized < request->size()) inbox_.push_back(request);
      tokenizing_ = false;
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

// Takes items of the oldest lane's kind from every lane of that kind in turn. Called with
// the mutex held.
void Batcher::take_batch(std::vector<Item>& batch) {
  const auto kind = lanes_.front().kind;
  std::size_t tokens = 0;
  for (bool progress = true; progress && batch.size() < options_.max_batch_size;) {
    progress = false;
    for (auto& lane : lanes_) {
      if (lane.kind != kind || lane.items.empty()) continue;
      const std::size_t t = lane.items.front().input.input_ids.size();
      if (tokens + t > options_.max_batch_tokens) continue;  // a shorter item of another lane may fit
      tokens += t;
      batch.push_back(std::move(lane.items.front()));
      lane.items.pop_front();
      progress = true;
      if (batch.size() == options_.max_batch_size) break;
    }
  }
  std::erase_if(lanes_, [](const Lane& l) { return l.items.empty(); });
  lane_items_ -= batch.size();
  queued_tokens_ -= tokens;
}

void Batcher::model_loop() {
  adopt_num_threads();  // --threads was set on another thread
  model::BertModel::Workspace ws;
  std::vector<Item> batch;
  for (;;) {
    batch.clear();
    {
      std::unique_lock lock(mutex_);
      for (;;) {
        if (lane_items_ == 0) {
          if (tokenizer_done_) return;
          items_ready_.wait(lock);
          continue;
        }
        if (paused_ && !stopping_) {
          items_ready_.wait(lock);
          continue;
        }
        // The model is idle and items are waiting: run them now, unless the tokenizer is
        // still turning queued requests into items that could share this batch.
        const bool more_coming = tokenizing_ || !inbox_.empty();
        if (!more_coming || stopping_ || lane_items_ >= options_.max_batch_size ||
            queued_tokens_ >= options_.max_batch_tokens) {
          break;
        }
        const auto close_at = lanes_.front().items.front().enqueued + options_.max_queue_delay;
        if (Clock::now() >= close_at) break;
        items_ready_.wait_until(lock, close_at);
      }
      take_batch(batch);
    }
    adopt_num_threads();
    run_batch(batch, ws);
    if (observer_) observer_->on_queue_depth(static_cast<std::int64_t>(queued_.load()));
  }
}

// Parses and compares the batch's pairs over every core; a pair that fails fails its
// request alone.
void Batcher::compare_stage(std::vector<Item*>& live) {
  if (!scorer_.compares()) return;
  std::vector<std::optional<std::string>> errors(live.size());
  cpu::parallel_for_dynamic(static_cast<std::int64_t>(live.size()), 4, [&](std::int64_t i) {
    const auto k = static_cast<std::size_t>(i);
    try {
      scorer_.compare(live[k]->text, live[k]->input);
    } catch (const std::exception& e) {
      errors[k] = e.what();
    }
  });
  std::size_t kept = 0;
  for (std::size_t k = 0; k < live.size(); ++k) {
    if (errors[k]) {
      --queued_;
      finish_request(*live[k]->request, InferenceRequest::Outcome::Failed, *errors[k]);
    } else if (!live[k]->request->finished.load()) {
      live[kept++] = live[k];
    } else {
      --queued_;  // its request failed through another of its pairs
    }
  }
  live.resize(kept);
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
  const bool match = live.front()->request->kind == InferenceRequest::Kind::Match;
  try {
    if (match) compare_stage(live);
    if (live.empty()) return;
    std::vector<const text::EncodedInput*> inputs;
    for (Item* item : live) inputs.push_back(&item->input);
    if (match) {
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
  std::size_t tokens = 0;
  for (Item* item : live) tokens += item->input.input_ids.size();
  if (observer_) observer_->on_batch(live.size(), tokens, seconds_between(start, Clock::now()));
  for (Item* item : live) finish_item(*item->request);
}

}  // namespace geoalign::runtime
