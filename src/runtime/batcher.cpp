#include "runtime/batcher.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "backend/cpu/available_cores.h"
#include "backend/cpu/parallel.h"
#include "backend/threads.h"
#include "runtime/run_in_parallel.h"

namespace geoalign::runtime {

namespace {

// Items the tokenizer prepares from one request before it turns to the next waiting one:
// about a millisecond of work, so a large request delays a small one by little.
constexpr std::size_t kTokenizeSlice = 64;

double seconds_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

const RequestKind& kind_of(const BatchItem& item) { return *item.request->kind; }

// A batch of at most this many tokens (one or two pairs) runs its batch-time input work
// (the match head's parsing and comparing) on a second core beside the encoder, which
// runs on one: at that size a second core makes the encoder no faster (AMD EPYC Zen 5,
// `geoalign profile --batch-size 1`: 1.10 ms a pair on one thread, 1.17 on two), so the
// parse, 13% of a pair's time, costs the answer nothing.
constexpr std::size_t kBesideEncoderTokens = 96;

// Each classification with the encoder's own probabilities beside it.
std::vector<ModelOutput> classifications(std::vector<MatchResult>& results, const std::vector<float>& encoder) {
  std::vector<ModelOutput> outputs;
  outputs.reserve(results.size());
  const std::size_t labels = results.empty() ? 0 : encoder.size() / results.size();
  for (std::size_t k = 0; k < results.size(); ++k) {
    const auto row = encoder.begin() + static_cast<std::ptrdiff_t>(k * labels);
    outputs.emplace_back(Classification{std::move(results[k]), {row, row + static_cast<std::ptrdiff_t>(labels)}});
  }
  return outputs;
}

}  // namespace

Batcher::Batcher(const PairScorer& scorer, BatcherOptions options, BatchObserver* observer)
    : scorer_(scorer), options_(options), observer_(observer), cache_(options.cache_size),
      context_{scorer_, cache_, observer_} {
  if (options_.max_batch_size == 0) throw Error("max_batch_size must be at least 1");
  if (options_.max_batch_tokens == 0) options_.max_batch_tokens = options_.max_batch_size * scorer_.max_length();
  if (options_.max_batch_tokens < scorer_.max_length()) {
    throw Error("max_batch_tokens (" + std::to_string(options_.max_batch_tokens) +
                ") must hold at least one full-length pair (" + std::to_string(scorer_.max_length()) + " tokens)");
  }
  if (options_.after_threads == 0) options_.after_threads = static_cast<std::size_t>(cpu::available_cores());
  release_idle_threads();  // the model thread becomes the one thread with OpenMP workers
  tokenizer_thread_ = std::thread([this] { tokenizer_loop(); });
  model_thread_ = std::thread([this] { model_loop(); });
  for (std::size_t i = 0; i < options_.after_threads; ++i) after_threads_.emplace_back([this] { after_loop(); });
}

Batcher::~Batcher() { shutdown(); }

bool Batcher::submit(const std::shared_ptr<InferenceRequest>& request) {
  if (request->kind == nullptr) throw Error("a request needs a kind");
  const std::size_t n = request->size();
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return false;
    if (queued_.load() + n > options_.max_queue) return false;
    request->kind->accept(*request);
    count_queued(static_cast<std::int64_t>(n));
    request->remaining = n;
    if (n > 0) inbox_.push_back(request);
  }
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
  // Each thread ends once the one before it has ended and its own queue is empty.
  if (tokenizer_thread_.joinable()) tokenizer_thread_.join();
  if (model_thread_.joinable()) model_thread_.join();
  for (auto& t : after_threads_) t.join();
  after_threads_.clear();
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

// Every change of the queue's size is told to the observer, in the order of the changes:
// a gauge fed from several threads without the lock could end on a stale value, and
// stay there once the server is idle.
void Batcher::count_queued(std::int64_t delta) {
  std::lock_guard lock(depth_mutex_);
  queued_ += static_cast<std::size_t>(delta);  // wraps back for a negative delta
  if (observer_) observer_->on_queue_depth(static_cast<std::int64_t>(queued_.load()));
}

void Batcher::finish_item(InferenceRequest& request) {
  count_queued(-1);
  if (request.remaining.fetch_sub(1) == 1) finish_request(request, InferenceRequest::Outcome::Ok, "");
}

// The item's request fails; its other items are skipped wherever they wait.
void Batcher::fail_item(BatchItem& item, const std::string& error) {
  count_queued(-1);
  finish_request(*item.request, InferenceRequest::Outcome::Failed, error);
}

// The next slice of a request as model-queue items; items its kind answers at once are
// finished here. On an exception, `items` holds those made before the bad one.
void Batcher::prepare_slice(const std::shared_ptr<InferenceRequest>& owner, std::vector<BatchItem>& items,
                            std::size_t& tokens) {
  InferenceRequest& request = *owner;
  const std::size_t end = std::min(request.size(), request.tokenized + kTokenizeSlice);
  const bool model = request.kind->pass() != ModelPass::None;
  for (std::size_t& i = request.tokenized; i < end; ++i) {
    BatchItem item{owner, i, {}, {}, Clock::now()};
    if (model && !request.kind->prepare(item, context_)) {
      finish_item(request);
      continue;
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
    std::vector<BatchItem> items;
    std::size_t tokens = 0;
    std::optional<std::string> error;
    try {
      prepare_slice(request, items, tokens);
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (error) {
      // Items of earlier slices are in the queue and will be skipped there; release the
      // rest: this slice's up to the bad one, and all after it.
      count_queued(-static_cast<std::int64_t>(items.size() + (request->size() - request->tokenized)));
      finish_request(*request, InferenceRequest::Outcome::Failed, *error);
      items.clear();
    }
    if (request->kind->pass() == ModelPass::None) {
      hand_to_after_stage(items);  // nothing for the model
      items.clear();
    }
    {
      std::lock_guard lock(mutex_);
      if (!items.empty()) {
        // Later slices join the request's own lane, so a request gets one turn per round.
        auto lane = std::find_if(lanes_.begin(), lanes_.end(), [&](const Lane& l) {
          return first > 0 && !l.items.empty() && l.items.front().request == request;
        });
        if (lane == lanes_.end()) lane = lanes_.insert(lanes_.end(), Lane{request->kind->pass(), {}});
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

bool Batcher::should_skip(BatchItem& item, Clock::time_point now) {
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

// Takes items of the oldest lane's model pass from every lane with that pass in turn.
// Called with the mutex held.
void Batcher::take_batch(std::vector<BatchItem>& batch) {
  const ModelPass pass = lanes_.front().pass;
  std::size_t tokens = 0;
  for (bool progress = true; progress && batch.size() < options_.max_batch_size;) {
    progress = false;
    for (auto& lane : lanes_) {
      if (lane.pass != pass || lane.items.empty()) continue;
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
  pin_team_to_cores(options_.pin_model_threads);
  model::BertModel::Workspace ws;
  std::vector<BatchItem> batch;
  for (;;) {
    batch.clear();
    {
      std::unique_lock lock(mutex_);
      for (;;) {
        if (lane_items_ == 0) {
          if (tokenizer_done_) {
            model_done_ = true;
            after_ready_.notify_all();
            return;
          }
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
  }
}

// The kinds' batch-time input work over every core; an item that fails fails its
// request alone.
void Batcher::complete_stage(std::vector<BatchItem*>& live) {
  const auto completes = [&](const BatchItem* item) { return kind_of(*item).completes(context_); };
  if (std::none_of(live.begin(), live.end(), completes)) return;
  const std::vector<std::optional<std::string>> errors = errors_of_each(live.size(), 4, [&](std::size_t k) {
    if (completes(live[k])) kind_of(*live[k]).complete(*live[k], context_);
  });
  std::size_t kept = 0;
  for (std::size_t k = 0; k < live.size(); ++k) {
    if (errors[k]) {
      fail_item(*live[k], *errors[k]);
    } else if (!live[k]->request->finished.load()) {
      live[kept++] = live[k];
    } else {
      count_queued(-1);  // its request failed through another of its items
    }
  }
  live.resize(kept);
}

std::vector<ModelOutput> Batcher::run_model(ModelPass pass, std::span<const text::EncodedInput* const> inputs,
                                            model::BertModel::Workspace& ws) const {
  if (pass == ModelPass::Classify) {
    std::vector<MatchResult> results;
    std::vector<float> encoder;
    scorer_.classify(inputs, ws, results, nullptr, &encoder);
    return classifications(results, encoder);
  }
  std::vector<ModelOutput> outputs;
  outputs.reserve(inputs.size());
  std::vector<std::vector<float>> vectors;
  scorer_.embed(inputs, ws, vectors);
  for (auto& v : vectors) outputs.emplace_back(std::move(v));
  return outputs;
}

bool Batcher::completes_beside_encoder(const std::vector<BatchItem*>& live) const {
  // Without an encoder pass there is nothing to complete beside.
  if (live.empty() || kind_of(*live.front()).pass() != ModelPass::Classify || !scorer_.runs_encoder() ||
      num_threads() < 2) {
    return false;
  }
  std::size_t tokens = 0;
  for (const BatchItem* item : live) tokens += item->input.input_ids.size();
  return tokens <= kBesideEncoderTokens &&
         std::any_of(live.begin(), live.end(), [&](const BatchItem* item) { return kind_of(*item).completes(context_); });
}

std::vector<ModelOutput> Batcher::classify_beside_completion(std::vector<BatchItem*>& live,
                                                             model::BertModel::Workspace& ws) {
  const std::vector<BatchItem*> all = live;
  std::vector<const text::EncodedInput*> inputs;
  for (const BatchItem* item : all) inputs.push_back(&item->input);
  Tensor probabilities;
  cpu::run_side_by_side([&] { scorer_.encoder_probabilities(inputs, ws, probabilities); },
                        [&] { complete_stage(live); });
  // The decision for the items that completed; an item that failed has left `live`.
  const std::vector<float> encoder_all = probabilities.to_vector();
  const std::size_t labels = scorer_.encoder_width();
  inputs.clear();
  std::vector<float> encoder;
  for (const BatchItem* item : live) {
    const auto row = static_cast<std::size_t>(std::find(all.begin(), all.end(), item) - all.begin());
    inputs.push_back(&item->input);
    encoder.insert(encoder.end(), encoder_all.begin() + static_cast<std::ptrdiff_t>(row * labels),
                   encoder_all.begin() + static_cast<std::ptrdiff_t>((row + 1) * labels));
  }
  std::vector<MatchResult> results;
  scorer_.decide(inputs, encoder, results);
  return classifications(results, encoder);
}

void Batcher::run_batch(std::vector<BatchItem>& batch, model::BertModel::Workspace& ws) {
  const auto start = Clock::now();
  std::vector<BatchItem*> live;
  for (auto& item : batch) {
    if (should_skip(item, start)) {
      count_queued(-1);
      continue;
    }
    if (observer_) observer_->on_dequeued(seconds_between(item.enqueued, start));
    live.push_back(&item);
  }
  if (live.empty()) return;
  try {
    std::vector<ModelOutput> outputs;
    if (completes_beside_encoder(live)) {
      outputs = classify_beside_completion(live, ws);
    } else {
      complete_stage(live);
      if (live.empty()) return;
      std::vector<const text::EncodedInput*> inputs;
      for (BatchItem* item : live) inputs.push_back(&item->input);
      outputs = run_model(kind_of(*live.front()).pass(), inputs, ws);
    }
    if (live.empty()) return;
    for (std::size_t k = 0; k < live.size(); ++k) kind_of(*live[k]).store(*live[k], std::move(outputs[k]), context_);
  } catch (const std::exception& e) {
    for (BatchItem* item : live) fail_item(*item, e.what());
    return;
  }
  std::size_t tokens = 0;
  for (BatchItem* item : live) tokens += item->input.input_ids.size();
  if (observer_) observer_->on_batch(live.size(), tokens, seconds_between(start, Clock::now()));
  std::vector<BatchItem*> handed_on;
  for (BatchItem* item : live) {
    if (kind_of(*item).has_after_stage()) {
      handed_on.push_back(item);
    } else {
      finish_item(*item->request);
    }
  }
  if (handed_on.empty()) return;
  std::vector<BatchItem> after;
  after.reserve(handed_on.size());
  for (BatchItem* item : handed_on) after.push_back(std::move(*item));
  hand_to_after_stage(after);
}

void Batcher::hand_to_after_stage(std::vector<BatchItem>& items) {
  if (items.empty()) return;
  {
    std::lock_guard lock(mutex_);
    for (BatchItem& item : items) {
      const InferenceRequest* owner = item.request.get();
      after_queue_.push(owner, std::move(item));
    }
  }
  after_ready_.notify_all();
}

// Runs after-model stages in the order items left the model; one that throws fails its
// request alone.
void Batcher::after_loop() {
  run_serially_on_this_thread();
  if (options_.after_threads_idle) run_at_background_priority_on_this_thread();
  for (;;) {
    BatchItem item;
    {
      std::unique_lock lock(mutex_);
      after_ready_.wait(lock, [&] { return model_done_ || !after_queue_.empty(); });
      if (after_queue_.empty()) return;
      item = after_queue_.pop();
    }
    if (should_skip(item, Clock::now())) {
      count_queued(-1);
      continue;
    }
    std::optional<std::string> error;
    try {
      kind_of(item).after(item, context_);
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (error) {
      fail_item(item, *error);
    } else {
      finish_item(*item.request);
    }
  }
}

}  // namespace geoalign::runtime
