#include "engine/engine.h"

#include <atomic>
#include <deque>
#include <optional>

#include "backend/device.h"
#include "backend/memory.h"
#include "backend/threads.h"
#include "geo/address_parser.h"
#include "index/binary_file.h"
#include "model/precision.h"
#include "runtime/length_batches.h"
#include "runtime/run_in_parallel.h"
#include "runtime/score_chunks.h"
#include "text/excerpt.h"

namespace geoalign::engine {

namespace {
// Addresses embedded at a time: bounds the token buffers on files of millions.
constexpr std::size_t kEmbedChunk = 4096;
// The encoder's batch for search's and dedup's pairs and addresses.
constexpr std::size_t kBatchSize = 64;
}  // namespace

Head parse_head(std::string_view name) {
  if (name == "match") return Head::Match;
  if (name == "rerank") return Head::Rerank;
  throw Error("unknown head \"" + text::excerpt(name) + "\" (match, rerank)");
}

const char* head_name(Head head) { return head == Head::Rerank ? "rerank" : "match"; }

void require_rerank_head(const std::filesystem::path& model_dir) {
  const auto file = model_dir / match::MatchHead::kRerankFileName;
  if (!std::filesystem::exists(file)) {
    throw Error(file.string() + " does not exist (train it with tools/train/train_match_head.py --without-encoder)");
  }
}

std::unique_ptr<Engine> Engine::load(const std::filesystem::path& model_dir, const EngineOptions& options) {
  const Device device = parse_device(options.device);
  require_device(device);
  use_num_threads(options.threads);
  const ops::MatmulPrecision precision = model::resolve_precision(options.precision, device);
  auto scorer = std::make_shared<const runtime::PairScorer>(
      model::ModelFolder::load(model_dir, precision, device, options.parser_dir, options.aliases, options.reading));
  return std::unique_ptr<Engine>(new Engine(std::move(scorer), model_dir, options.head, model::precision_of(precision)));
}

Engine::Engine(std::shared_ptr<const runtime::PairScorer> scorer, const std::filesystem::path& dir, Head head,
               Precision precision)
    : scorer_(std::move(scorer)), precision_(precision) {
  const auto& f = scorer_->folder();
  if (f.parser->available()) {
    // Stored parses keep elements: the prior of the admin guess changes neither them nor
    // the unguessed chains search and dedup complete from them.
    constexpr std::string_view kNotInParses[] = {geo::kPriorFile};
    parser_checksum_ = index::folder_checksum(f.parser->folder(), kNotInParses) * 31 + geo::kElementsVersion;
  }
  if (head == Head::Rerank && std::filesystem::exists(dir / match::MatchHead::kRerankFileName)) {
    rerank_ = std::make_unique<const runtime::RerankScorer>(runtime::RerankScorer::load(dir, f.aliases));
  }
  const std::string probe = "北京市";
  dim_ = embed(std::vector<std::string_view>{probe}).size();
}

std::optional<float> Engine::link_threshold(std::string_view rule) const {
  if (rerank_) return rerank_->link_threshold(rule);
  const auto& head = scorer_->folder().head;
  return head ? head->link_threshold(rule) : std::nullopt;
}

std::string Engine::normalize(std::string_view raw) const { return scorer_->folder().normalizer.normalize(raw); }

Address Engine::prepare(std::string_view normalized) const {
  return {std::string(normalized), match::parse_for_comparison(parser(), normalized)};
}

Address Engine::complete(std::string_view normalized, std::vector<AddressElement> elements) const {
  return {std::string(normalized), match::complete_for_comparison(parser(), normalized, std::move(elements))};
}

const AddressParser& Engine::parser() const { return scorer_->folder().parser->get(); }

bool Engine::can_parse() const { return scorer_->folder().parser->available(); }

std::vector<Address> Engine::prepare_all(std::span<const std::string> normalized,
                                         const std::function<void(std::size_t)>& on_done,
                                         std::span<const char> only) const {
  std::vector<Address> out(normalized.size());
  std::atomic<std::size_t> done{0};
  runtime::for_each_named(
      normalized.size(), 64, [&](std::size_t k) { return "address \"" + text::excerpt(normalized[k]) + "\""; },
      [&](std::size_t k) {
        if (!only.empty() && !only[k]) return;
        out[k] = prepare(normalized[k]);
        if (on_done && ++done % 1024 == 0) on_done(done);
      });
  return out;
}

std::vector<float> Engine::embed(std::span<const std::string_view> normalized,
                                 const std::function<void(std::size_t)>& on_done) const {
  adopt_num_threads();
  std::vector<float> out;
  std::vector<std::vector<float>> vectors;
  for (std::size_t first = 0; first < normalized.size(); first += kEmbedChunk) {
    const std::size_t n = std::min(kEmbedChunk, normalized.size() - first);
    const std::vector<std::string> chunk(normalized.begin() + static_cast<std::ptrdiff_t>(first),
                                         normalized.begin() + static_cast<std::ptrdiff_t>(first + n));
    const std::vector<text::EncodedInput> inputs = scorer_->encode_addresses(chunk);
    std::vector<std::vector<float>> rows(n);
    {
      std::lock_guard lock(mutex_);
      runtime::for_each_length_batch(inputs, kBatchSize, [&](auto batch, std::span<const std::size_t> slots) {
        scorer_->embed(batch, workspace_, vectors);
        for (std::size_t k = 0; k < slots.size(); ++k) rows[slots[k]] = std::move(vectors[k]);
      });
    }
    for (const auto& row : rows) out.insert(out.end(), row.begin(), row.end());
    if (on_done) on_done(first + n);
  }
  return out;
}

std::vector<std::vector<float>> Engine::embed(std::span<const std::string> addresses, Pooling pooling,
                                              std::size_t batch_size) const {
  adopt_num_threads();
  if (batch_size == 0) throw Error("batch size must be at least 1");
  const std::vector<text::EncodedInput> inputs = scorer_->encode_addresses(addresses);
  const auto hidden = scorer_->folder().config.bert.hidden_size;
  const std::optional<model::EmbeddingHead> raw =
      pooling == Pooling::Model ? std::nullopt
                                : std::optional(model::EmbeddingHead::pooling_only(
                                      pooling == Pooling::Cls ? ops::Pooling::Cls : ops::Pooling::Mean, hidden));
  std::vector<std::vector<float>> out(addresses.size()), batch_vectors;
  std::lock_guard lock(mutex_);
  runtime::for_each_length_batch(inputs, batch_size, [&](auto batch, std::span<const std::size_t> slots) {
    scorer_->embed(batch, workspace_, batch_vectors, raw ? &*raw : nullptr);
    for (std::size_t k = 0; k < slots.size(); ++k) out[slots[k]] = std::move(batch_vectors[k]);
  });
  return out;
}

std::vector<MatchResult> Engine::score(std::span<const AddressPair> pairs, std::size_t batch_size) const {
  if (batch_size == 0) throw Error("batch size must be at least 1");
  if (rerank_) return rerank_->score(pairs, reading());
  return score_with_encoder(pairs, batch_size);
}

std::vector<MatchResult> Engine::score_with_encoder(std::span<const AddressPair> pairs, std::size_t batch_size) const {
  adopt_num_threads();
  scorer_->require_classifier();
  // In the chunks `geoalign score` reads, each grouped by length on its own, so that every
  // front end builds the same batches and gets the same numbers to the bit (int8 batches
  // depend on what else is in them); a chunk at a time also bounds the tokens held.
  const std::size_t chunk = runtime::score_chunk_size(batch_size);
  std::vector<MatchResult> results(pairs.size()), batch_results;
  for (std::size_t first = 0; first < pairs.size(); first += chunk) {
    const auto part = pairs.subspan(first, std::min(chunk, pairs.size() - first));
    const std::vector<text::EncodedInput> inputs = scorer_->encode_pairs(part, nullptr, first);
    std::lock_guard lock(mutex_);
    runtime::for_each_length_batch(inputs, batch_size, [&](auto batch, std::span<const std::size_t> slots) {
      scorer_->classify(batch, workspace_, batch_results);
      for (std::size_t k = 0; k < slots.size(); ++k) results[first + slots[k]] = std::move(batch_results[k]);
    });
  }
  return results;
}

std::vector<MatchResult> Engine::score(std::span<const std::pair<const Address*, const Address*>> pairs,
                                       PairReading reading) const {
  if (!rerank_) return score_parsed_with_encoder(pairs, reading);
  std::vector<runtime::RerankScorer::ParsedPair> parsed;
  parsed.reserve(pairs.size());
  // A pair whose names the aliases reconcile (工行 beside 中国工商银行) is parsed again
  // from its rewritten texts; the others keep the parses the index or dedup holds.
  std::deque<Address> rewritten;
  const text::AliasTable* aliases = scorer_->folder().aliases.get();
  for (const auto& [a, b] : pairs) {
    if (auto written = aliases ? aliases->reconcile(a->text, b->text) : std::nullopt) {
      const Address& ra = rewritten.emplace_back(prepare(written->first));
      const Address& rb = rewritten.emplace_back(prepare(written->second));
      parsed.push_back({&ra.parsed, &rb.parsed, ra.text == rb.text});
    } else {
      parsed.push_back({&a->parsed, &b->parsed, a->text == b->text});
    }
  }
  return rerank_->score(parsed, reading);
}

std::vector<MatchResult> Engine::score_parsed_with_encoder(
    std::span<const std::pair<const Address*, const Address*>> pairs, PairReading reading) const {
  // The cross-encoder reads one order per input: the symmetric reading runs both and
  // decides over their mean, unless the match head reads pairs in canonical order, whose
  // symmetric reading needs one encoder pass (runtime::PairScorer::decide).
  adopt_num_threads();
  scorer_->require_classifier();
  const bool both = reading == PairReading::Symmetric && !scorer_->reads_canonical_order();
  std::vector<AddressPair> texts;
  texts.reserve(both ? 2 * pairs.size() : pairs.size());
  for (const auto& [a, b] : pairs) texts.push_back({a->text, b->text});
  if (both) {
    for (const auto& [a, b] : pairs) texts.push_back({b->text, a->text});
  }
  // Over every core, each distinct address parsed once for both orders.
  const std::vector<text::EncodedInput> inputs = scorer_->encode_pairs(texts);
  std::vector<MatchResult> results(inputs.size());
  std::vector<MatchResult> batch_results;
  {
    std::lock_guard lock(mutex_);
    runtime::for_each_length_batch(inputs, kBatchSize, [&](auto batch, std::span<const std::size_t> slots) {
      scorer_->classify(batch, workspace_, batch_results, nullptr, nullptr, reading);
      for (std::size_t k = 0; k < slots.size(); ++k) results[slots[k]] = std::move(batch_results[k]);
    });
  }
  if (!both) return results;
  const std::size_t n = pairs.size();
  std::vector<MatchResult> decided;
  decided.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    decided.push_back(scorer_->folder().roles.decide_both_orders(labels(), results[k].probabilities.data(),
                                                                  results[n + k].probabilities.data(),
                                                                  inputs[k].same_text));
  }
  return decided;
}

}  // namespace geoalign::engine
