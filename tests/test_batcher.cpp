// The dynamic batcher on its own, without HTTP: splitting and reassembly, token limits,
// mixed kinds, fairness between large and small requests, failures and timeouts, the
// thread count, and the match head's path (normalization shared by the cache key).
#include <gtest/gtest.h>
#include <omp.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <set>

#include "backend/threads.h"
#include "runtime/batcher.h"
#include "support/safetensors_writer.h"
#include "support/head_files.h"
#include "support/temp_dir.h"
#include "text/utf8.h"

namespace geoalign::runtime {
namespace {

using namespace geoalign::testing;
using namespace std::chrono_literals;

const std::vector<AddressPair> kPairs = {
    {"北京市朝阳区建国路88号", "北京朝阳建外88号"},
    {"杭州市西湖区文三路478号华星科技大厦A座1203室", "文三路478号华星大厦"},
    {"深圳市南山区科技园Ｂ栋３０１", "深圳南山科技园B栋301室"},
    {"上海市浦东新区陆家嘴环路1000号", "上海市黄浦区南京东路100号"},
    {"南京市", "南京市鼓楼区中山北路8号南京大学鼓楼校区北园教学楼二楼东侧走廊尽头的办公室"},
};

struct Recorder : BatchObserver {
  std::mutex mutex;
  std::vector<std::pair<std::size_t, std::size_t>> batches;  // (sequences, tokens)
  void on_batch(std::size_t sequences, std::size_t tokens, double) override {
    std::lock_guard lock(mutex);
    batches.emplace_back(sequences, tokens);
  }
  void on_dequeued(double) override {}
  void on_queue_depth(std::int64_t) override {}
  void on_cache_lookup(bool) override {}
  std::size_t count() {
    std::lock_guard lock(mutex);
    return batches.size();
  }
};

std::shared_ptr<InferenceRequest> match_request(const std::vector<AddressPair>& pairs) {
  auto r = std::make_shared<InferenceRequest>();
  r->kind = &match_kind();
  for (const auto& p : pairs) {
    r->first.push_back(p.a);
    r->second.push_back(p.b);
  }
  return r;
}

std::vector<AddressPair> cycle(std::size_t n) {
  std::vector<AddressPair> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(kPairs[i % kPairs.size()]);
  return out;
}

using Pending = std::future<std::shared_ptr<InferenceRequest>>;

// Submits; the future carries the finished request back.
Pending submit(Batcher& batcher, const std::shared_ptr<InferenceRequest>& r) {
  auto promise = std::make_shared<std::promise<std::shared_ptr<InferenceRequest>>>();
  auto future = promise->get_future();
  r->done = [promise](InferenceRequest& req) { promise->set_value(req.shared_from_this()); };
  EXPECT_TRUE(batcher.submit(r));
  return future;
}

std::shared_ptr<InferenceRequest> wait(Pending& f) {
  if (f.wait_for(60s) != std::future_status::ready) throw std::runtime_error("request not answered in 60 s");
  return f.get();
}

std::vector<MatchResult> offline(const PairScorer& scorer, const std::vector<AddressPair>& pairs) {
  const auto inputs = scorer.encode_pairs(pairs);
  std::vector<const text::EncodedInput*> pointers;
  for (const auto& e : inputs) pointers.push_back(&e);
  model::BertModel::Workspace ws;
  std::vector<MatchResult> results;
  scorer.classify(pointers, ws, results);
  return results;
}

void expect_same(const std::vector<MatchResult>& got, const std::vector<MatchResult>& want, float tolerance = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].label, want[i].label) << "pair " << i;
    for (std::size_t k = 0; k < want[i].probabilities.size(); ++k) {
      EXPECT_NEAR(got[i].probabilities[k], want[i].probabilities[k], tolerance) << "pair " << i;
    }
  }
}

class BatcherTest : public ::testing::Test {
 protected:
  PairScorer scorer{model::ModelFolder::load(fixture_model())};
};

TEST_F(BatcherTest, SplitsARequestLargerThanABatchAndReassemblesItInOrder) {
  Recorder recorder;
  Batcher batcher(scorer, {.max_batch_size = 8}, &recorder);
  const auto pairs = cycle(203);
  auto f = submit(batcher, match_request(pairs));
  const auto r = wait(f);
  EXPECT_EQ(r->outcome, InferenceRequest::Outcome::Ok);
  expect_same(r->matches, offline(scorer, pairs));
  EXPECT_GE(recorder.count(), 26u);
  for (const auto& [sequences, tokens] : recorder.batches) EXPECT_LE(sequences, 8u);
  batcher.shutdown();
  EXPECT_EQ(batcher.queued_items(), 0u);
}

TEST_F(BatcherTest, KeepsEachBatchWithinItsTokenLimit) {
  Recorder recorder;
  const std::size_t limit = scorer.max_length() + 20;
  Batcher batcher(scorer, {.max_batch_size = 64, .max_batch_tokens = limit}, &recorder);
  const auto pairs = cycle(40);
  auto f = submit(batcher, match_request(pairs));
  expect_same(wait(f)->matches, offline(scorer, pairs));
  for (const auto& [sequences, tokens] : recorder.batches) EXPECT_LE(tokens, limit);
}

TEST_F(BatcherTest, ServesMatchAndEmbedRequestsSideBySide) {
  Batcher batcher(scorer, {.max_batch_size = 4});
  auto embed = std::make_shared<InferenceRequest>();
  embed->kind = &embed_kind();
  for (const auto& p : cycle(9)) embed->first.push_back(p.a);
  const auto pairs = cycle(11);
  auto fm = submit(batcher, match_request(pairs));
  auto fe = submit(batcher, embed);
  expect_same(wait(fm)->matches, offline(scorer, pairs));
  const auto e = wait(fe);
  ASSERT_EQ(e->outcome, InferenceRequest::Outcome::Ok);
  const auto inputs = scorer.encode_addresses(embed->first);
  std::vector<const text::EncodedInput*> pointers;
  for (const auto& x : inputs) pointers.push_back(&x);
  model::BertModel::Workspace ws;
  std::vector<std::vector<float>> want;
  scorer.embed(pointers, ws, want);
  ASSERT_EQ(e->vectors.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    for (std::size_t d = 0; d < want[i].size(); ++d) EXPECT_NEAR(e->vectors[i][d], want[i][d], 1e-5f);
  }
}

// A one-pair request that arrives behind a large one rides in one of the next batches
// instead of waiting for all of the large one.
TEST_F(BatcherTest, ASmallRequestIsNotHeldUpByALargeOne) {
  Recorder recorder;
  Batcher batcher(scorer, {.max_batch_size = 8}, &recorder);
  // Both requests queue while the model is paused, the large one first, so the test does
  // not depend on how the threads happen to be scheduled.
  batcher.pause();
  auto big = submit(batcher, match_request(cycle(1024)));
  auto small = match_request({kPairs[1]});
  std::size_t batches_before_small = 0;
  std::promise<void> small_done;
  small->done = [&](InferenceRequest&) {
    batches_before_small = recorder.count();
    small_done.set_value();
  };
  ASSERT_TRUE(batcher.submit(small));
  for (int i = 0; i < 60000 && batcher.model_queue_items() < 1025; ++i) std::this_thread::sleep_for(1ms);
  ASSERT_EQ(batcher.model_queue_items(), 1025u);
  batcher.resume();
  ASSERT_EQ(small_done.get_future().wait_for(60s), std::future_status::ready);
  // Batches take from every waiting request in turn: the small one rides in the first
  // (whose completion the recorder hears before the request's own).
  EXPECT_EQ(batches_before_small, 1u);
  EXPECT_EQ(wait(big)->outcome, InferenceRequest::Outcome::Ok);
  EXPECT_EQ(small->outcome, InferenceRequest::Outcome::Ok);
  expect_same(small->matches, offline(scorer, {kPairs[1]}));
}

// An idle model runs a lone request at once rather than waiting out the queue delay.
TEST_F(BatcherTest, AnIdleModelDoesNotWaitForMore) {
  Batcher batcher(scorer, {.max_batch_size = 64, .max_queue_delay = std::chrono::microseconds(std::chrono::hours(1))});
  auto f = submit(batcher, match_request({kPairs[0]}));
  ASSERT_EQ(f.wait_for(60s), std::future_status::ready);
  EXPECT_EQ(f.get()->outcome, InferenceRequest::Outcome::Ok);
}

TEST_F(BatcherTest, ARequestPastItsDeadlineTimesOut) {
  Batcher batcher(scorer, {});
  auto r = match_request(cycle(3));
  r->deadline = Clock::now() - 1s;
  auto f = submit(batcher, r);
  EXPECT_EQ(wait(f)->outcome, InferenceRequest::Outcome::TimedOut);
  batcher.shutdown();  // `done` comes with the first skipped item; the others are released after
  EXPECT_EQ(batcher.queued_items(), 0u);
}

TEST_F(BatcherTest, InvalidTextFailsItsRequestOnly) {
  Batcher batcher(scorer, {.max_batch_size = 4});
  auto bad = match_request(cycle(10));
  bad->second[7] = "\xFF\xFE";
  auto fb = submit(batcher, bad);
  auto fg = submit(batcher, match_request(cycle(5)));
  const auto b = wait(fb);
  EXPECT_EQ(b->outcome, InferenceRequest::Outcome::Failed);
  EXPECT_NE(b->error.find("UTF-8"), std::string::npos) << b->error;
  EXPECT_EQ(wait(fg)->outcome, InferenceRequest::Outcome::Ok);
  batcher.shutdown();
  EXPECT_EQ(batcher.queued_items(), 0u);
}

TEST_F(BatcherTest, AThrowingCallbackDoesNotStopTheBatcher) {
  Batcher batcher(scorer, {});
  auto r = match_request(cycle(2));
  r->done = [](InferenceRequest&) { throw std::runtime_error("client handler failed"); };
  ASSERT_TRUE(batcher.submit(r));
  auto f = submit(batcher, match_request(cycle(2)));
  EXPECT_EQ(wait(f)->outcome, InferenceRequest::Outcome::Ok);
}

// A model that cannot classify fails every match batch: each request gets the error.
TEST(Batcher, AFailingBatchFailsItsRequests) {
  TempDir dir;
  const auto model = copy_fixture_model(dir);
  auto tensors = read_safetensors(model / "model.safetensors");
  std::erase_if(tensors, [](const auto& t) { return t.first.starts_with("classifier."); });
  write_file(model / "model.safetensors", safetensors_bytes(tensors));
  const PairScorer scorer(model::ModelFolder::load(model));
  Batcher batcher(scorer, {});
  auto f = submit(batcher, match_request(cycle(3)));
  const auto r = wait(f);
  EXPECT_EQ(r->outcome, InferenceRequest::Outcome::Failed);
  EXPECT_NE(r->error.find("classification head"), std::string::npos) << r->error;
}

// --threads is set on the main thread; the model runs on the batcher's own thread.
TEST_F(BatcherTest, TheModelThreadUsesTheConfiguredThreadCount) {
  const int before = num_threads();
  set_num_threads(1);
  int seen = 0;
  {
    Batcher batcher(scorer, {});
    auto r = match_request(cycle(2));
    std::promise<void> done;
    r->done = [&](InferenceRequest&) {
      seen = omp_get_max_threads();
      done.set_value();
    };
    ASSERT_TRUE(batcher.submit(r));
    ASSERT_EQ(done.get_future().wait_for(60s), std::future_status::ready);
  }
  set_num_threads(before);
  EXPECT_EQ(seen, 1);
}

// A search-like kind: each address is embedded in the model's batches, then an
// after-model stage writes "address:dimension" into the request's results. An address
// "fail" makes that stage throw; "hold" makes it wait at the gate.
struct TaggedRequest : InferenceRequest {
  std::vector<std::string> results;
};

struct Gate {
  std::promise<void> entered, open;
  std::shared_future<void> opened = open.get_future().share();
};

class TaggingKind final : public RequestKind {
 public:
  explicit TaggingKind(Gate* gate = nullptr) : gate_(gate) {}
  ModelPass pass() const override { return ModelPass::Embed; }
  void accept(InferenceRequest& r) const override { dynamic_cast<TaggedRequest&>(r).results.resize(r.size()); }
  bool prepare(BatchItem& item, const BatchContext& context) const override {
    item.input = context.scorer.encode_address(item.request->first[item.index]);
    return true;
  }
  void store(BatchItem& item, ModelOutput output, const BatchContext&) const override {
    item.state = std::get<std::vector<float>>(std::move(output)).size();
  }
  bool has_after_stage() const override { return true; }
  void after(BatchItem& item, const BatchContext&) const override {
    {
      std::lock_guard lock(mutex_);
      threads_.insert(std::this_thread::get_id());
    }
    const std::string& text = item.request->first[item.index];
    if (text == "fail") throw Error("the after stage failed");
    if (text == "hold") {
      gate_->entered.set_value();
      gate_->opened.wait();
    }
    static_cast<TaggedRequest&>(*item.request).results[item.index] =
        text + ":" + std::to_string(std::any_cast<std::size_t>(item.state));
  }
  std::set<std::thread::id> threads() const {
    std::lock_guard lock(mutex_);
    return threads_;
  }

 private:
  Gate* gate_;
  mutable std::mutex mutex_;
  mutable std::set<std::thread::id> threads_;
};

std::shared_ptr<TaggedRequest> tagged_request(const RequestKind& kind, const std::vector<std::string>& texts) {
  auto r = std::make_shared<TaggedRequest>();
  r->kind = &kind;
  r->first = texts;
  return r;
}

std::vector<std::string> addresses(std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(kPairs[i % kPairs.size()].a + std::to_string(i));
  return out;
}

// The model thread is the one that reports batches.
struct ThreadRecorder : Recorder {
  std::set<std::thread::id> model_threads;
  void on_batch(std::size_t sequences, std::size_t tokens, double seconds) override {
    Recorder::on_batch(sequences, tokens, seconds);
    std::lock_guard lock(mutex);
    model_threads.insert(std::this_thread::get_id());
  }
};

TEST_F(BatcherTest, AnAfterStageAnswersEveryItemInRequestOrderOffTheModelThread) {
  TaggingKind kind;
  ThreadRecorder recorder;
  Batcher batcher(scorer, {.max_batch_size = 8, .after_threads = 3}, &recorder);
  const auto texts = addresses(75);
  auto f = submit(batcher, tagged_request(kind, texts));
  const auto r = wait(f);
  ASSERT_EQ(r->outcome, InferenceRequest::Outcome::Ok) << r->error;
  const auto& results = static_cast<TaggedRequest&>(*r).results;
  ASSERT_EQ(results.size(), texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) EXPECT_EQ(results[i], texts[i] + ":32");
  batcher.shutdown();
  EXPECT_EQ(batcher.queued_items(), 0u);
  ASSERT_EQ(recorder.model_threads.size(), 1u);
  EXPECT_FALSE(kind.threads().contains(*recorder.model_threads.begin()));
}

// While an after stage works, the model goes on with other requests.
TEST_F(BatcherTest, TheModelRunsWhileAnAfterStageWorks) {
  Gate gate;
  TaggingKind kind(&gate);
  Batcher batcher(scorer, {.after_threads = 1});
  auto held = submit(batcher, tagged_request(kind, {"hold"}));
  ASSERT_EQ(gate.entered.get_future().wait_for(60s), std::future_status::ready);
  auto match = submit(batcher, match_request(cycle(3)));
  EXPECT_EQ(wait(match)->outcome, InferenceRequest::Outcome::Ok);
  EXPECT_EQ(held.wait_for(0s), std::future_status::timeout);
  gate.open.set_value();
  EXPECT_EQ(wait(held)->outcome, InferenceRequest::Outcome::Ok);
}

// A kind without a model pass (parsing) does its work on the after-model threads: a parse
// that holds its thread holds no match behind it (on the tokenizer thread, as parsing
// once ran, every request waited for it).
class HoldingModelFreeKind final : public RequestKind {
 public:
  explicit HoldingModelFreeKind(Gate& gate) : gate_(gate) {}
  ModelPass pass() const override { return ModelPass::None; }
  void accept(InferenceRequest& r) const override { dynamic_cast<TaggedRequest&>(r).results.resize(r.size()); }
  bool prepare(BatchItem&, const BatchContext&) const override {
    ADD_FAILURE() << "a kind without a model pass is not prepared";
    return true;
  }
  void store(BatchItem&, ModelOutput, const BatchContext&) const override { ADD_FAILURE() << "no model output"; }
  bool has_after_stage() const override { return true; }
  void after(BatchItem& item, const BatchContext&) const override {
    if (item.index == 0) {
      gate_.entered.set_value();
      gate_.opened.wait();
    }
    static_cast<TaggedRequest&>(*item.request).results[item.index] = "parsed " + item.request->first[item.index];
  }

 private:
  Gate& gate_;
};

TEST_F(BatcherTest, AKindWithoutAModelPassHoldsNoMatchBehindIt) {
  Gate gate;
  HoldingModelFreeKind kind(gate);
  Recorder recorder;
  Batcher batcher(scorer, {.after_threads = 1}, &recorder);
  auto held = submit(batcher, tagged_request(kind, {"a", "b", "c"}));
  ASSERT_EQ(gate.entered.get_future().wait_for(60s), std::future_status::ready);
  auto match = submit(batcher, match_request(cycle(3)));
  EXPECT_EQ(wait(match)->outcome, InferenceRequest::Outcome::Ok);
  EXPECT_EQ(held.wait_for(0s), std::future_status::timeout);
  gate.open.set_value();
  const auto parsed = wait(held);
  ASSERT_EQ(parsed->outcome, InferenceRequest::Outcome::Ok) << parsed->error;
  EXPECT_EQ(static_cast<TaggedRequest&>(*parsed).results, (std::vector<std::string>{"parsed a", "parsed b", "parsed c"}));
  EXPECT_EQ(recorder.count(), 1u);  // the match's batch; the parse items never reached the model
}

// After-model work is taken a request at a time in turn: a one-item request waits for one
// item of a large one, not for all of them.
TEST(FairQueue, TakesOneItemOfEachOwnerInTurn) {
  FairQueue<int, std::string> q;
  for (int i = 0; i < 4; ++i) q.push(1, "big" + std::to_string(i));
  q.push(2, "small");
  q.push(3, "other0");
  q.push(3, "other1");
  std::vector<std::string> order;
  while (!q.empty()) order.push_back(q.pop());
  EXPECT_EQ(order, (std::vector<std::string>{"big0", "small", "other0", "big1", "other1", "big2", "big3"}));
  q.push(2, "again");  // an owner whose items were all taken joins the line anew
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.pop(), "again");
}

TEST_F(BatcherTest, AFailingAfterStageFailsItsRequestOnly) {
  TaggingKind kind;
  Batcher batcher(scorer, {.max_batch_size = 4, .after_threads = 2});
  auto texts = addresses(10);
  texts[6] = "fail";
  auto bad = submit(batcher, tagged_request(kind, texts));
  auto good = submit(batcher, tagged_request(kind, addresses(7)));
  auto match = submit(batcher, match_request(cycle(5)));
  const auto b = wait(bad);
  EXPECT_EQ(b->outcome, InferenceRequest::Outcome::Failed);
  EXPECT_EQ(b->error, "the after stage failed");
  EXPECT_EQ(wait(good)->outcome, InferenceRequest::Outcome::Ok);
  EXPECT_EQ(wait(match)->outcome, InferenceRequest::Outcome::Ok);
  batcher.shutdown();
  EXPECT_EQ(batcher.queued_items(), 0u);
}

// Items waiting for the after stage are skipped once their client has gone or their
// deadline has passed, as they are before the model.
TEST_F(BatcherTest, AfterStagesSkipCancelledAndTimedOutRequests) {
  for (const auto outcome : {InferenceRequest::Outcome::Cancelled, InferenceRequest::Outcome::TimedOut}) {
    Gate gate;
    TaggingKind kind(&gate);
    Batcher batcher(scorer, {.after_threads = 1});
    // "hold" occupies the one after thread; the request's second item waits behind it.
    auto r = tagged_request(kind, {"hold", "北京市朝阳区建国路88号"});
    auto f = submit(batcher, r);
    ASSERT_EQ(gate.entered.get_future().wait_for(60s), std::future_status::ready);
    if (outcome == InferenceRequest::Outcome::Cancelled) {
      r->cancelled = true;
    } else {
      r->deadline = Clock::now();
    }
    gate.open.set_value();
    EXPECT_EQ(wait(f)->outcome, outcome);
    batcher.shutdown();
    EXPECT_EQ(batcher.queued_items(), 0u);
    EXPECT_EQ(r->results[1], "");  // skipped, never tagged
  }
}

// A kind's request must be its own type, and a request needs a kind.
TEST_F(BatcherTest, AKindRefusesARequestItCannotServe) {
  TaggingKind kind;
  Batcher batcher(scorer, {});
  auto plain = std::make_shared<InferenceRequest>();
  plain->kind = &kind;
  plain->first = {"杭州"};
  EXPECT_THROW(batcher.submit(plain), std::bad_cast);
  plain->kind = nullptr;
  EXPECT_THROW(batcher.submit(plain), Error);
  EXPECT_EQ(batcher.queued_items(), 0u);
}

// With the shipped model's match head: a pair padded with invisible characters is the
// same pair, so it gets the same answer, and caching one answers the other correctly.
TEST(BatcherWithMatchHead, InvisibleCharactersNeitherChangeNorPoisonAnswers) {
  const auto dir = source_dir() / "models/default";
  if (!std::filesystem::exists(dir / "match_head.json")) GTEST_SKIP() << "no shipped match head";
  const PairScorer scorer(model::ModelFolder::load(dir));
  const AddressPair clean{"杭州市西湖区文三路478号华星科技大厦", "文三路478号华星大厦"};
  std::string spaced_b = "\uFEFF";
  for (const char32_t c : std::u32string(U"文三路478号华星大厦")) {
    spaced_b += text::encode_utf8(std::u32string(1, c));
    spaced_b += "\u200B";
  }
  const AddressPair noisy{std::string(300, ' ') + clean.a + "\u3000", spaced_b};
  const auto want = offline(scorer, {clean});
  expect_same(offline(scorer, {noisy}), want, 0.0f);

  Batcher batcher(scorer, {.cache_size = 100});
  auto first = submit(batcher, match_request({noisy}));
  expect_same(wait(first)->matches, want, 0.0f);
  auto second = submit(batcher, match_request({clean}));
  expect_same(wait(second)->matches, want, 0.0f);
}

// The match kind, except that comparing a pair whose first address is "fail" throws, and
// it notes which threads compared.
class FailingCompareKind final : public RequestKind {
 public:
  ModelPass pass() const override { return match_kind().pass(); }
  void accept(InferenceRequest& r) const override { match_kind().accept(r); }
  bool prepare(BatchItem& item, const BatchContext& context) const override { return match_kind().prepare(item, context); }
  bool completes(const BatchContext& context) const override { return match_kind().completes(context); }
  void complete(BatchItem& item, const BatchContext& context) const override {
    {
      std::lock_guard lock(mutex_);
      threads_.insert(std::this_thread::get_id());
    }
    if (item.request->first[item.index] == "fail") throw Error("comparing failed");
    match_kind().complete(item, context);
  }
  void store(BatchItem& item, ModelOutput output, const BatchContext& context) const override {
    match_kind().store(item, std::move(output), context);
  }
  std::set<std::thread::id> threads() const {
    std::lock_guard lock(mutex_);
    return threads_;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::set<std::thread::id> threads_;
};

// With a match head that reads the encoder, a batch of one or two pairs parses and
// compares them on a second core while the encoder runs on one: the answers are exactly
// the offline ones, the parsing runs off the model's thread, and a pair whose comparing
// fails fails its request alone. (The shipped head reads no encoder: there is nothing to
// run beside, and it compares on the model's thread.)
TEST(BatcherWithMatchHead, ASmallBatchComparesBesideTheEncoderWithTheOfflineAnswers) {
  if (!std::filesystem::exists(source_dir() / "models/default/match_head.json")) GTEST_SKIP() << "no shipped match head";
  TempDir dir;
  const PairScorer scorer(model::ModelFolder::load(default_model_whose_head_reads_the_encoder(dir, "match_head.json")));
  ASSERT_TRUE(scorer.runs_encoder());
  // Two threads, except under ThreadSanitizer (OMP_NUM_THREADS=1 there, as libgomp's
  // uninstrumented workers give false reports): then everything runs on the model's thread.
  const char* omp = std::getenv("OMP_NUM_THREADS");
  const bool one_thread = omp != nullptr && std::string(omp) == "1";
  const int before = process_num_threads();
  set_num_threads(one_thread ? 1 : 2);
  const FailingCompareKind kind;
  ThreadRecorder recorder;
  {
    Batcher batcher(scorer, {}, &recorder);
    for (const AddressPair& pair : kPairs) {
      auto alone = match_request({pair});
      alone->kind = &kind;
      auto answered = submit(batcher, alone);
      expect_same(wait(answered)->matches, offline(scorer, {pair}), 0.0f);
    }
    const std::set<std::thread::id> compared_on = kind.threads(), model_threads = recorder.model_threads;
    ASSERT_EQ(model_threads.size(), 1u);
    EXPECT_EQ(compared_on.count(*model_threads.begin()), one_thread ? 1u : 0u) << "where a lone pair was compared";
    batcher.pause();
    auto good = match_request({kPairs[0]}), bad = match_request({{"fail", "北京"}});
    good->kind = bad->kind = &kind;
    auto good_done = submit(batcher, good), bad_done = submit(batcher, bad);
    for (int i = 0; i < 60000 && batcher.model_queue_items() < 2; ++i) std::this_thread::sleep_for(1ms);
    ASSERT_EQ(batcher.model_queue_items(), 2u);  // the good pair and the bad one share the next batch
    batcher.resume();
    expect_same(wait(good_done)->matches, offline(scorer, {kPairs[0]}), 0.0f);
    const auto failed = wait(bad_done);
    EXPECT_EQ(failed->outcome, InferenceRequest::Outcome::Failed);
    EXPECT_NE(failed->error.find("comparing failed"), std::string::npos) << failed->error;
  }
  set_num_threads(before);
}

}  // namespace
}  // namespace geoalign::runtime
