#include "runtime/pair_scorer.h"

#include <array>
#include <unordered_map>

#include "runtime/run_in_parallel.h"
#include "runtime/token_batch.h"

namespace geoalign::runtime {

PairScorer::PairScorer(model::ModelFolder folder, std::shared_ptr<const match::PairComparer> comparer)
    : folder_(std::move(folder)), comparer_(std::move(comparer)) {
  // The comparer lives inside the head; aliasing keeps the head alive as long as we are.
  if (!comparer_ && folder_.head) comparer_ = {folder_.head, &folder_.head->comparer()};
}

NormalizedPair PairScorer::normalize(std::string_view a, std::string_view b) const {
  return {folder_.normalizer.normalize(a), folder_.normalizer.normalize(b)};
}

text::EncodedInput PairScorer::tokenize(const NormalizedPair& pair) const {
  return folder_.tokenizer.encode_pair(pair.a, pair.b, max_length());
}

void PairScorer::compare(const NormalizedPair& pair, text::EncodedInput& input) const {
  if (comparer_) input.pair_features = comparer_->features(pair.a, pair.b);
}

text::EncodedInput PairScorer::encode_pair(std::string_view a, std::string_view b) const {
  const NormalizedPair pair = normalize(a, b);
  auto input = tokenize(pair);
  compare(pair, input);
  return input;
}

text::EncodedInput PairScorer::encode_address(std::string_view address) const {
  return folder_.tokenizer.encode_single(folder_.normalizer.normalize(address), max_length());
}

std::vector<text::EncodedInput> PairScorer::encode_pairs(std::span<const AddressPair> pairs,
                                                         model::StageTimer* timer) const {
  std::vector<NormalizedPair> normalized;
  {
    model::ScopedStage stage(timer, "normalize");
    normalized = run_in_parallel(pairs.size(), "pair", [&](std::size_t i) { return normalize(pairs[i].a, pairs[i].b); });
  }
  std::vector<text::EncodedInput> inputs;
  {
    model::ScopedStage stage(timer, "tokenize");
    inputs = run_in_parallel(pairs.size(), "pair", [&](std::size_t i) { return tokenize(normalized[i]); });
  }
  if (comparer_) {
    model::ScopedStage stage(timer, "parse and compare");
    compare_all(normalized, inputs);
  }
  return inputs;
}

void PairScorer::compare_all(std::span<const NormalizedPair> pairs, std::span<text::EncodedInput> inputs) const {
  // Files of candidate pairs repeat their queries (CCKS: 3,964 distinct first addresses
  // in 18,373 pairs), and parsing is most of the comparing. features(compared(parse(a)),
  // compared(parse(b))) equals features(a, b), so each distinct address is parsed and
  // read once.
  std::unordered_map<std::string_view, std::size_t> index;
  std::vector<std::string_view> distinct;
  std::vector<std::size_t> first_pair;  // per distinct address
  std::vector<std::array<std::size_t, 2>> sides(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    for (std::size_t side = 0; side < 2; ++side) {
      const std::string_view text = side == 0 ? pairs[i].a : pairs[i].b;
      const auto [at, added] = index.emplace(text, distinct.size());
      if (added) {
        distinct.push_back(text);
        first_pair.push_back(i);
      }
      sides[i][side] = at->second;
    }
  }
  // Addresses are numbered as pairs first name them, so the lowest failing one is in the
  // lowest pair that fails, as comparing a pair at a time would report.
  const auto pair_of = [&](std::size_t d) { return "pair " + std::to_string(first_pair[d]); };
  const auto parsed =
      run_in_parallel_named(distinct.size(), pair_of, [&](std::size_t d) { return comparer_->parse(distinct[d]); });
  const auto read =
      run_in_parallel_named(distinct.size(), pair_of, [&](std::size_t d) { return comparer_->compared(parsed[d]); });
  run_in_parallel(pairs.size(), "pair", [&](std::size_t i) {
    inputs[i].pair_features = comparer_->features(read[sides[i][0]], read[sides[i][1]]);
    return true;
  });
}

std::vector<text::EncodedInput> PairScorer::encode_addresses(std::span<const std::string> addresses) const {
  return run_in_parallel(addresses.size(), "address", [&](std::size_t i) { return encode_address(addresses[i]); });
}

std::string PairScorer::cache_key(const NormalizedPair& pair) {
  std::string key;
  key.reserve(pair.a.size() + 1 + pair.b.size());
  key += pair.a;
  key += '\t';
  key += pair.b;
  return key;
}

void PairScorer::require_classifier() const {
  if (!folder_.model.can_classify()) {
    throw Error("this model has no classification head (pooler.dense and classifier tensors); it can only embed");
  }
  if (!folder_.roles.not_match && !folder_.roles.exact_match) {
    throw Error("cannot tell which of the model's " + std::to_string(labels().size()) +
                " labels mean match and not match; name them in id2label (not_match, partial_match, exact_match)");
  }
}

void PairScorer::encoder_probabilities(std::span<const text::EncodedInput* const> inputs,
                                       model::BertModel::Workspace& ws, Tensor& probabilities,
                                       model::StageTimer* timer) const {
  require_classifier();
  TokenBatch batch;
  {
    model::ScopedStage stage(timer, "pack");
    batch = TokenBatch::pack(inputs);
  }
  folder_.model.classify(batch, ws, probabilities, timer);
}

void PairScorer::classify(std::span<const text::EncodedInput* const> inputs, model::BertModel::Workspace& ws,
                          std::vector<MatchResult>& results, model::StageTimer* timer,
                          std::vector<float>* encoder) const {
  Tensor probabilities;
  encoder_probabilities(inputs, ws, probabilities, timer);
  std::vector<float> encoder_host = probabilities.to_vector();
  decide(inputs, encoder_host, results, timer);
  if (encoder) *encoder = std::move(encoder_host);
}

void PairScorer::decide(std::span<const text::EncodedInput* const> inputs, std::span<const float> encoder,
                        std::vector<MatchResult>& results, model::StageTimer* timer) const {
  const std::size_t n = labels().size();
  if (encoder.size() != inputs.size() * n) {
    throw Error("expected " + std::to_string(inputs.size() * n) + " encoder probabilities, got " +
                std::to_string(encoder.size()));
  }
  const float* final = encoder.data();
  std::vector<float> head_probabilities;
  if (folder_.head) {
    model::ScopedStage stage(timer, "match head trees");
    std::vector<std::span<const float>> features;
    for (const auto* input : inputs) features.emplace_back(input->pair_features);
    head_probabilities.resize(inputs.size() * n);
    folder_.head->probabilities(features, encoder, head_probabilities);
    final = head_probabilities.data();
  }
  results.clear();
  for (std::size_t k = 0; k < inputs.size(); ++k) results.push_back(folder_.roles.result(labels(), final + k * n));
}

void PairScorer::embed(std::span<const text::EncodedInput* const> inputs, model::BertModel::Workspace& ws,
                       std::vector<std::vector<float>>& vectors, const model::EmbeddingHead* head) const {
  const TokenBatch batch = TokenBatch::pack(inputs);
  Tensor out;
  (head ? *head : folder_.embedding)(folder_.model.encode(batch, ws), batch.cu_seqlens, out);
  const std::int64_t dim = out.dim(1);
  const std::vector<float> host = out.to_vector();
  vectors.clear();
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const float* row = host.data() + static_cast<std::int64_t>(k) * dim;
    vectors.emplace_back(row, row + dim);
  }
}

}  // namespace geoalign::runtime
