#include "index/address_model.h"

#include <atomic>
#include <deque>
#include <optional>
#include <unordered_map>

#include "backend/threads.h"
#include "geo/address_parser.h"
#include "index/binary_file.h"
#include "model/precision.h"
#include "runtime/length_batches.h"
#include "runtime/run_in_parallel.h"
#include "text/excerpt.h"

namespace geoalign::index {

namespace {
// Addresses encoded at a time: bounds the token buffers on files of millions.
constexpr std::size_t kEmbedChunk = 4096;
constexpr std::size_t kBatchSize = 64;
}  // namespace

namespace {
bool uses_rerank(std::string_view head) {
  if (head != "rerank" && head != "match") throw Error("unknown head \"" + text::excerpt(head) + "\" (rerank, match)");
  return head == "rerank";
}
}  // namespace

std::unique_ptr<AddressModel> AddressModel::load(const std::filesystem::path& model_dir, Precision precision,
                                                 std::string_view head, const std::filesystem::path& parser_dir,
                                                 const std::filesystem::path& aliases_file) {
  const bool rerank = uses_rerank(head);
  const ops::MatmulPrecision p = model::resolve_precision(precision);
  auto scorer = std::make_shared<const runtime::PairScorer>(
      model::ModelFolder::load(model_dir, p, Device::CPU, parser_dir, aliases_file));
  return std::unique_ptr<AddressModel>(new AddressModel(std::move(scorer), model_dir, rerank));
}

std::unique_ptr<AddressModel> AddressModel::over(std::shared_ptr<const runtime::PairScorer> scorer,
                                                 const std::filesystem::path& model_dir, std::string_view head) {
  const bool rerank = uses_rerank(head);
  return std::unique_ptr<AddressModel>(new AddressModel(std::move(scorer), model_dir, rerank));
}

AddressModel::AddressModel(std::shared_ptr<const runtime::PairScorer> scorer, const std::filesystem::path& dir,
                           bool use_rerank)
    : scorer_holder_(std::move(scorer)), scorer_(*scorer_holder_) {
  const auto& f = scorer_.folder();
  if (f.parser->available()) {
    // Stored parses keep elements: the prior of the admin guess changes neither them nor
    // the unguessed chains search and dedup complete from them.
    constexpr std::string_view kNotInParses[] = {geo::kPriorFile};
    parser_checksum_ = folder_checksum(f.parser->folder(), kNotInParses) * 31 + geo::kElementsVersion;
  }
  if (use_rerank && std::filesystem::exists(dir / match::MatchHead::kRerankFileName)) {
    rerank_ = std::make_unique<const runtime::RerankScorer>(runtime::RerankScorer::load(dir, f.aliases));
  }
  const std::string probe = "北京市";
  dim_ = embed(std::vector<std::string_view>{probe}).size();
}

std::optional<float> AddressModel::link_threshold(std::string_view rule) const {
  if (rerank_) return rerank_->link_threshold(rule);
  const auto& head = scorer_.folder().head;
  return head ? head->link_threshold(rule) : std::nullopt;
}

std::string AddressModel::normalize(std::string_view raw) const { return scorer_.folder().normalizer.normalize(raw); }

Address AddressModel::prepare(std::string_view normalized) const {
  return {std::string(normalized), match::parse_for_comparison(parser(), normalized)};
}

Address AddressModel::complete(std::string_view normalized, std::vector<AddressElement> elements) const {
  return {std::string(normalized), match::complete_for_comparison(parser(), normalized, std::move(elements))};
}

const AddressParser& AddressModel::parser() const { return scorer_.folder().parser->get(); }

bool AddressModel::can_parse() const { return scorer_.folder().parser->available(); }

std::vector<Address> AddressModel::prepare_all(std::span<const std::string> normalized,
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

std::vector<float> AddressModel::embed(std::span<const std::string_view> normalized,
                                       const std::function<void(std::size_t)>& on_done) const {
  adopt_num_threads();
  std::vector<float> out;
  std::vector<std::vector<float>> vectors;
  for (std::size_t first = 0; first < normalized.size(); first += kEmbedChunk) {
    const std::size_t n = std::min(kEmbedChunk, normalized.size() - first);
    const std::vector<std::string> chunk(normalized.begin() + static_cast<std::ptrdiff_t>(first),
                                         normalized.begin() + static_cast<std::ptrdiff_t>(first + n));
    const std::vector<text::EncodedInput> inputs = scorer_.encode_addresses(chunk);
    std::vector<std::vector<float>> rows(n);
    {
      std::lock_guard lock(mutex_);
      runtime::for_each_length_batch(inputs, kBatchSize, [&](auto batch, std::span<const std::size_t> slots) {
        scorer_.embed(batch, workspace_, vectors);
        for (std::size_t k = 0; k < slots.size(); ++k) rows[slots[k]] = std::move(vectors[k]);
      });
    }
    for (const auto& row : rows) out.insert(out.end(), row.begin(), row.end());
    if (on_done) on_done(first + n);
  }
  return out;
}

std::vector<MatchResult> AddressModel::score(std::span<const std::pair<const Address*, const Address*>> pairs,
                                             PairReading reading) const {
  if (rerank_) {
    std::vector<runtime::RerankScorer::ParsedPair> parsed;
    parsed.reserve(pairs.size());
    // A pair whose names the aliases reconcile (工行 beside 中国工商银行) is parsed again
    // from its rewritten texts; the others keep the parses the index or dedup holds.
    std::deque<Address> rewritten;
    const text::AliasTable* aliases = scorer_.folder().aliases.get();
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
  // The cross-encoder reads one order per input: the symmetric reading runs both and
  // decides over their mean, unless the match head reads pairs in canonical order, whose
  // symmetric reading needs one encoder pass (runtime::PairScorer::decide).
  scorer_.require_classifier();
  const bool both = reading == PairReading::Symmetric && !scorer_.reads_canonical_order();
  std::vector<AddressPair> texts;
  texts.reserve(both ? 2 * pairs.size() : pairs.size());
  for (const auto& [a, b] : pairs) texts.push_back({a->text, b->text});
  if (both) {
    for (const auto& [a, b] : pairs) texts.push_back({b->text, a->text});
  }
  // Over every core, each distinct address parsed once for both orders.
  const std::vector<text::EncodedInput> inputs = scorer_.encode_pairs(texts);
  std::vector<MatchResult> results(inputs.size());
  std::vector<MatchResult> batch_results;
  {
    std::lock_guard lock(mutex_);
    runtime::for_each_length_batch(inputs, kBatchSize, [&](auto batch, std::span<const std::size_t> slots) {
      scorer_.classify(batch, workspace_, batch_results, nullptr, nullptr, reading);
      for (std::size_t k = 0; k < slots.size(); ++k) results[slots[k]] = std::move(batch_results[k]);
    });
  }
  if (!both) return results;
  const std::size_t n = pairs.size();
  std::vector<MatchResult> decided;
  decided.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    decided.push_back(scorer_.folder().roles.decide_both_orders(labels(), results[k].probabilities.data(),
                                                                 results[n + k].probabilities.data(),
                                                                 inputs[k].same_text));
  }
  return decided;
}

}  // namespace geoalign::index
