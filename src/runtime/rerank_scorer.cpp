#include "runtime/rerank_scorer.h"

#include <iterator>
#include <unordered_map>

#include "model/config.h"
#include "runtime/compare_pairs.h"
#include "runtime/run_in_parallel.h"

namespace geoalign::runtime {

RerankScorer::RerankScorer(std::vector<std::string> labels, text::AddressNormalizer normalizer,
                           std::shared_ptr<const text::AliasTable> aliases, std::unique_ptr<const match::MatchHead> head)
    : labels_(std::move(labels)),
      roles_(model::LabelRoles::from_labels(labels_)),
      normalizer_(std::move(normalizer)),
      aliases_(std::move(aliases)),
      head_(std::move(head)) {}

RerankScorer RerankScorer::load(const std::filesystem::path& model_dir,
                                std::shared_ptr<const text::AliasTable> aliases) {
  if (!std::filesystem::is_directory(model_dir)) throw Error("model folder " + model_dir.string() + " does not exist");
  const auto file = model_dir / match::MatchHead::kRerankFileName;
  if (!std::filesystem::exists(file)) {
    throw Error(file.string() + " does not exist (train it with tools/train/train_match_head.py --without-encoder)");
  }
  model::ModelConfig config = model::load_model_config(model_dir);
  auto head = match::MatchHead::load(model_dir, config.bert.labels.size(), match::MatchHead::kRerankFileName);
  text::AddressNormalizer normalizer(config.settings.normalize);
  return RerankScorer(std::move(config.bert.labels), std::move(normalizer), std::move(aliases), std::move(head));
}

std::vector<MatchResult> RerankScorer::score(std::span<const AddressPair> pairs, PairReading reading) const {
  // The head reads the text the encoder would: normalized as the folder asks.
  auto normalized = run_in_parallel(pairs.size(), "pair", [&](std::size_t i) {
    return reconcile_names(aliases_.get(), {normalizer_.normalize(pairs[i].a), normalizer_.normalize(pairs[i].b)});
  });
  const std::size_t n = normalized.size();
  std::vector<char> same_text(n);
  for (std::size_t i = 0; i < n; ++i) same_text[i] = normalized[i].a == normalized[i].b;
  if (reading == PairReading::Ordered) return results_of(compare_pairs(head_->comparer(), normalized), {}, same_text);
  // Both orders in one call, so each distinct address is parsed once.
  for (std::size_t i = 0; i < n; ++i) normalized.push_back({normalized[i].b, normalized[i].a});
  std::vector<std::vector<float>> features = compare_pairs(head_->comparer(), normalized);
  std::vector<std::vector<float>> swapped(std::make_move_iterator(features.begin() + static_cast<std::ptrdiff_t>(n)),
                                          std::make_move_iterator(features.end()));
  features.resize(n);
  return results_of(features, swapped, same_text);
}

std::vector<MatchResult> RerankScorer::score(std::span<const ParsedPair> pairs, PairReading reading) const {
  // A deduplication's pairs come sorted by their first address, which meets a few dozen others.
  std::unordered_map<const ParsedAddress*, std::size_t> slot;
  std::vector<match::ComparedAddress> compared;
  auto compared_of = [&](const ParsedAddress* address) -> const match::ComparedAddress& {
    const auto [it, added] = slot.try_emplace(address, compared.size());
    if (added) compared.push_back(head_->comparer().compared(*address));
    return compared[it->second];
  };
  for (const auto& p : pairs) compared_of(p.a), compared_of(p.b);
  const bool both = reading == PairReading::Symmetric;
  std::vector<std::vector<float>> features, swapped;
  std::vector<char> same_text;
  features.reserve(pairs.size());
  if (both) swapped.reserve(pairs.size());
  same_text.reserve(pairs.size());
  for (const auto& p : pairs) {
    features.push_back(head_->comparer().features(compared_of(p.a), compared_of(p.b)));
    if (both) swapped.push_back(head_->comparer().features(compared_of(p.b), compared_of(p.a)));
    same_text.push_back(p.same_text);
  }
  return results_of(features, swapped, same_text);
}

std::vector<float> RerankScorer::probabilities_of(const std::vector<std::vector<float>>& features) const {
  const std::vector<std::span<const float>> rows(features.begin(), features.end());
  std::vector<float> probabilities(features.size() * labels_.size());
  head_->probabilities(rows, {}, probabilities);
  return probabilities;
}

std::vector<MatchResult> RerankScorer::results_of(const std::vector<std::vector<float>>& features,
                                                  const std::vector<std::vector<float>>& swapped_features,
                                                  const std::vector<char>& same_text) const {
  const std::size_t n = labels_.size();
  const std::vector<float> ab = probabilities_of(features);
  const std::vector<float> ba = swapped_features.empty() ? std::vector<float>{} : probabilities_of(swapped_features);
  std::vector<MatchResult> results;
  results.reserve(features.size());
  for (std::size_t k = 0; k < features.size(); ++k) {
    const bool same = same_text[k] != 0;
    results.push_back(ba.empty() ? roles_.decide(labels_, &ab[k * n], same)
                                 : roles_.decide_both_orders(labels_, &ab[k * n], &ba[k * n], same));
  }
  return results;
}

}  // namespace geoalign::runtime
