#include "runtime/rerank_scorer.h"

#include <unordered_map>

#include "model/config.h"
#include "runtime/compare_pairs.h"
#include "runtime/run_in_parallel.h"

namespace geoalign::runtime {

RerankScorer::RerankScorer(std::vector<std::string> labels, text::AddressNormalizer normalizer,
                           std::unique_ptr<const match::MatchHead> head)
    : labels_(std::move(labels)),
      roles_(model::LabelRoles::from_labels(labels_)),
      normalizer_(std::move(normalizer)),
      head_(std::move(head)) {}

RerankScorer RerankScorer::load(const std::filesystem::path& model_dir) {
  if (!std::filesystem::is_directory(model_dir)) throw Error("model folder " + model_dir.string() + " does not exist");
  const auto file = model_dir / match::MatchHead::kRerankFileName;
  if (!std::filesystem::exists(file)) {
    throw Error(file.string() + " does not exist (train it with tools/train/train_match_head.py --without-encoder)");
  }
  model::ModelConfig config = model::load_model_config(model_dir);
  auto head = match::MatchHead::load(model_dir, config.bert.labels.size(), match::MatchHead::kRerankFileName);
  text::AddressNormalizer normalizer(config.settings.normalize);
  return RerankScorer(std::move(config.bert.labels), std::move(normalizer), std::move(head));
}

std::vector<MatchResult> RerankScorer::score(std::span<const AddressPair> pairs) const {
  // The head reads the text the encoder would: normalized as the folder asks.
  const auto normalized = run_in_parallel(pairs.size(), "pair", [&](std::size_t i) {
    return NormalizedPair{normalizer_.normalize(pairs[i].a), normalizer_.normalize(pairs[i].b)};
  });
  std::vector<char> same_text(normalized.size());
  for (std::size_t i = 0; i < normalized.size(); ++i) same_text[i] = normalized[i].a == normalized[i].b;
  return results_of(compare_pairs(head_->comparer(), normalized), same_text);
}

std::vector<MatchResult> RerankScorer::score(std::span<const ParsedPair> pairs) const {
  // A deduplication's pairs come sorted by their first address, which meets a few dozen others.
  std::unordered_map<const ParsedAddress*, std::size_t> slot;
  std::vector<match::ComparedAddress> compared;
  auto compared_of = [&](const ParsedAddress* address) -> const match::ComparedAddress& {
    const auto [it, added] = slot.try_emplace(address, compared.size());
    if (added) compared.push_back(head_->comparer().compared(*address));
    return compared[it->second];
  };
  for (const auto& p : pairs) compared_of(p.a), compared_of(p.b);
  std::vector<std::vector<float>> features;
  std::vector<char> same_text;
  features.reserve(pairs.size());
  same_text.reserve(pairs.size());
  for (const auto& p : pairs) {
    features.push_back(head_->comparer().features(compared_of(p.a), compared_of(p.b)));
    same_text.push_back(p.same_text);
  }
  return results_of(features, same_text);
}

std::vector<MatchResult> RerankScorer::results_of(const std::vector<std::vector<float>>& features,
                                                  const std::vector<char>& same_text) const {
  const std::vector<std::span<const float>> rows(features.begin(), features.end());
  const std::size_t n = labels_.size();
  std::vector<float> probabilities(features.size() * n);
  head_->probabilities(rows, {}, probabilities);
  std::vector<MatchResult> results;
  results.reserve(features.size());
  for (std::size_t k = 0; k < features.size(); ++k) {
    results.push_back(roles_.decide(labels_, &probabilities[k * n], same_text[k] != 0));
  }
  return results;
}

}  // namespace geoalign::runtime
