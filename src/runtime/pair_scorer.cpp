#include "runtime/pair_scorer.h"

#include "runtime/compare_pairs.h"
#include "runtime/run_in_parallel.h"
#include "runtime/token_batch.h"

namespace geoalign::runtime {

PairScorer::PairScorer(model::ModelFolder folder, std::shared_ptr<const match::PairComparer> comparer,
                       std::optional<bool> canonical_order)
    : folder_(std::move(folder)), comparer_(std::move(comparer)) {
  // The comparer lives inside the head; aliasing keeps the head alive as long as we are.
  if (!comparer_ && folder_.head) comparer_ = {folder_.head, &folder_.head->comparer()};
  canonical_order_ = canonical_order.value_or(folder_.head && folder_.head->reads_canonical_order());
}

NormalizedPair PairScorer::normalize(std::string_view a, std::string_view b) const {
  NormalizedPair pair =
      reconcile_names(folder_.aliases.get(), {folder_.normalizer.normalize(a), folder_.normalizer.normalize(b)});
  return canonical_order_ ? in_canonical_order(std::move(pair)) : pair;
}

text::EncodedInput PairScorer::tokenize(const NormalizedPair& pair) const {
  text::EncodedInput input = folder_.tokenizer.encode_pair(pair.a, pair.b, max_length());
  input.same_text = pair.a == pair.b;
  input.order_swapped = pair.swapped;
  return input;
}

text::EncodedInput PairScorer::input_for(const NormalizedPair& pair) const {
  if (runs_encoder()) return tokenize(pair);
  text::EncodedInput input;
  input.same_text = pair.a == pair.b;
  input.order_swapped = pair.swapped;
  return input;
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

std::vector<text::EncodedInput> PairScorer::encode_pairs(std::span<const AddressPair> pairs, model::StageTimer* timer,
                                                         std::size_t first_number, bool with_tokens) const {
  const auto name_of = [first_number](std::size_t k) { return "pair " + std::to_string(first_number + k); };
  std::vector<NormalizedPair> normalized;
  {
    model::ScopedStage stage(timer, "normalize");
    normalized = run_in_parallel_named(pairs.size(), name_of,
                                       [&](std::size_t i) { return normalize(pairs[i].a, pairs[i].b); });
  }
  const bool tokens = with_tokens || runs_encoder();
  std::vector<text::EncodedInput> inputs;
  {
    std::optional<model::ScopedStage> stage;  // no stage to report when nothing is tokenized
    if (tokens) stage.emplace(timer, "tokenize");
    inputs = run_in_parallel_named(pairs.size(), name_of, [&](std::size_t i) {
      return tokens ? tokenize(normalized[i]) : input_for(normalized[i]);
    });
  }
  if (comparer_) {
    model::ScopedStage stage(timer, "parse and compare");
    compare_all(normalized, inputs);
  }
  return inputs;
}

void PairScorer::compare_all(std::span<const NormalizedPair> pairs, std::span<text::EncodedInput> inputs) const {
  std::vector<std::vector<float>> features = compare_pairs(*comparer_, pairs);
  for (std::size_t i = 0; i < pairs.size(); ++i) inputs[i].pair_features = std::move(features[i]);
}

std::vector<text::EncodedInput> PairScorer::encode_addresses(std::span<const std::string> addresses) const {
  return run_in_parallel(addresses.size(), "address", [&](std::size_t i) { return encode_address(addresses[i]); });
}

std::string PairScorer::cache_key(const NormalizedPair& pair) const {
  std::string key;
  key.reserve(pair.a.size() + 2 + pair.b.size());
  key += pair.a;
  key += '\t';
  key += pair.b;
  // In canonical order (a, b) and (b, a) are one pair; read as given, they may differ.
  if (canonical_order_ && reading() == PairReading::Ordered) key += pair.swapped ? "\t<" : "\t>";
  return key;
}

namespace {

void require_encoder_classifier(const model::BertModel& model) {
  if (!model.can_classify()) {
    throw Error("this model has no classification head (pooler.dense and classifier tensors); it can only embed");
  }
}

}  // namespace

void PairScorer::require_classifier() const {
  if (runs_encoder()) require_encoder_classifier(folder_.model);
  if (!folder_.roles.not_match && !folder_.roles.exact_match) {
    throw Error("cannot tell which of the model's " + std::to_string(labels().size()) +
                " labels mean match and not match; name them in id2label (not_match, partial_match, exact_match)");
  }
}

void PairScorer::encoder_probabilities(std::span<const text::EncodedInput* const> inputs,
                                       model::BertModel::Workspace& ws, Tensor& probabilities,
                                       model::StageTimer* timer) const {
  require_classifier();
  require_encoder_classifier(folder_.model);
  TokenBatch batch;
  {
    model::ScopedStage stage(timer, "pack");
    batch = TokenBatch::pack(inputs);
  }
  folder_.model.classify(batch, ws, probabilities, timer);
}

void PairScorer::classify(std::span<const text::EncodedInput* const> inputs, model::BertModel::Workspace& ws,
                          std::vector<MatchResult>& results, model::StageTimer* timer,
                          std::vector<float>* encoder, std::optional<PairReading> reading) const {
  std::vector<float> encoder_host;
  if (runs_encoder()) {
    Tensor probabilities;
    encoder_probabilities(inputs, ws, probabilities, timer);
    encoder_host = probabilities.to_vector();
  }
  decide(inputs, encoder_host, results, timer, reading);
  if (encoder) *encoder = std::move(encoder_host);
}

void PairScorer::decide(std::span<const text::EncodedInput* const> inputs, std::span<const float> encoder,
                        std::vector<MatchResult>& results, model::StageTimer* timer,
                        std::optional<PairReading> reading) const {
  const std::size_t n = labels().size();
  if (encoder.size() != inputs.size() * encoder_width()) {
    throw Error("expected " + std::to_string(inputs.size() * encoder_width()) + " encoder probabilities, got " +
                std::to_string(encoder.size()));
  }
  results.clear();
  if (!folder_.head) {
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      results.push_back(folder_.roles.decide(labels(), encoder.data() + k * n, inputs[k]->same_text));
    }
    return;
  }
  model::ScopedStage stage(timer, "match head trees");
  std::vector<std::span<const float>> features;
  for (const auto* input : inputs) features.emplace_back(input->pair_features);
  std::vector<float> as_read(inputs.size() * n);
  folder_.head->probabilities(features, encoder, as_read);
  if (!folder_.head->reads_canonical_order()) {
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      results.push_back(folder_.roles.decide(labels(), as_read.data() + k * n, inputs[k]->same_text));
    }
    return;
  }
  // A head in canonical order: as_read is every pair read with order_swapped 0 (its
  // shorter address given first), reversed with 1. Symmetric: the mean of the two, which
  // no order given can change; ordered: the one that matches the order given.
  std::vector<float> reversed(inputs.size() * n);
  folder_.head->probabilities(features, encoder, reversed, true);
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const float* kept = as_read.data() + k * n;
    const float* other = reversed.data() + k * n;
    if (reading.value_or(this->reading()) == PairReading::Symmetric) {
      results.push_back(folder_.roles.decide_both_orders(labels(), kept, other, inputs[k]->same_text));
    } else {
      results.push_back(folder_.roles.decide(labels(), inputs[k]->order_swapped ? other : kept, inputs[k]->same_text));
    }
  }
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
