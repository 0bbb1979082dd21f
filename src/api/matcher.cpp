#include "geoalign/matcher.h"

#include <algorithm>
#include <mutex>
#include <numeric>

#include "backend/threads.h"
#include "model/model_folder.h"
#include "runtime/token_batch.h"
#include "text/utf8.h"

namespace geoalign {

Precision parse_precision(std::string_view name) {
  if (name == "fp32") return Precision::FP32;
  if (name == "bf16") return Precision::BF16;
  if (name == "int8") return Precision::INT8;
  if (name == "auto") return Precision::Auto;
  throw Error("unknown precision \"" + std::string(name) + "\" (fp32, bf16, int8, auto)");
}

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::FP32: return "fp32";
    case Precision::BF16: return "bf16";
    case Precision::INT8: return "int8";
    case Precision::Auto: return "auto";
  }
  return "?";
}

struct Matcher::Impl {
  Impl(model::ModelFolder f, Precision p) : folder(std::move(f)), precision(p) {}

  model::ModelFolder folder;
  Precision precision;
  mutable std::mutex mutex;  // guards the workspace
  mutable model::BertModel::Workspace workspace;

  text::EncodedInput encode_pair(const AddressPair& p, std::size_t index) const {
    try {
      return folder.tokenizer.encode_pair(folder.normalizer.normalize(p.a), folder.normalizer.normalize(p.b),
                                          folder.config.settings.max_length);
    } catch (const Error& e) {
      throw Error("pair " + std::to_string(index) + ": " + e.what());
    }
  }

  // Runs `run(batch, first, count)` over inputs grouped by length into batches, so a
  // batch holds sequences of similar length; `order` maps batch slots to input indices.
  template <typename Run>
  void for_each_length_batch(const std::vector<text::EncodedInput>& inputs, std::size_t batch_size, Run&& run) const {
    if (batch_size == 0) throw Error("batch size must be at least 1");
    std::vector<std::size_t> order(inputs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      return inputs[x].input_ids.size() < inputs[y].input_ids.size();
    });
    std::vector<text::EncodedInput> slice;
    for (std::size_t first = 0; first < order.size(); first += batch_size) {
      const std::size_t count = std::min(batch_size, order.size() - first);
      slice.clear();
      for (std::size_t k = 0; k < count; ++k) slice.push_back(inputs[order[first + k]]);
      const runtime::TokenBatch batch = runtime::TokenBatch::pack(slice);
      run(batch, std::span<const std::size_t>(order.data() + first, count));
    }
  }

  MatchResult to_result(const float* probs) const {
    const auto& labels = folder.config.bert.labels;
    const auto& roles = folder.roles;
    MatchResult r;
    r.probabilities.assign(probs, probs + labels.size());
    r.label_id = static_cast<std::size_t>(std::max_element(probs, probs + labels.size()) - probs);
    r.label = labels[r.label_id];
    auto p = [&](const std::optional<std::size_t>& role) { return role ? probs[*role] : 0.0f; };
    r.p_not_match = p(roles.not_match);
    r.p_partial_match = p(roles.partial_match);
    r.p_exact_match = p(roles.exact_match);
    r.score = std::clamp(r.p_exact_match + 0.5f * r.p_partial_match, 0.0f, 1.0f);
    return r;
  }
};

Matcher::Matcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Matcher::Matcher(Matcher&&) noexcept = default;
Matcher& Matcher::operator=(Matcher&&) noexcept = default;
Matcher::~Matcher() = default;

Matcher Matcher::load(const std::filesystem::path& model_dir, const MatcherOptions& options) {
  if (options.precision == Precision::BF16 || options.precision == Precision::INT8) {
    throw Error(std::string("precision ") + precision_name(options.precision) +
                " is not available yet in this build; use fp32 or auto");
  }
  set_num_threads(options.threads);
  auto impl = std::make_unique<Impl>(model::ModelFolder::load(model_dir), Precision::FP32);
  return Matcher(std::move(impl));
}

std::vector<MatchResult> Matcher::score(std::span<const AddressPair> pairs, std::size_t batch_size) const {
  const Impl& m = *impl_;
  if (!m.folder.model.can_classify()) {
    throw Error("this model has no classification head (pooler.dense and classifier tensors); it can only embed");
  }
  if (!m.folder.roles.not_match && !m.folder.roles.exact_match) {
    throw Error("cannot tell which of the model's " + std::to_string(m.folder.config.bert.labels.size()) +
                " labels mean match and not match; name them in id2label (not_match, partial_match, exact_match)");
  }
  std::vector<text::EncodedInput> inputs;
  inputs.reserve(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) inputs.push_back(m.encode_pair(pairs[i], i));

  std::vector<MatchResult> results(pairs.size());
  std::lock_guard lock(m.mutex);
  Tensor probabilities;
  m.for_each_length_batch(inputs, batch_size, [&](const runtime::TokenBatch& batch, std::span<const std::size_t> slots) {
    m.folder.model.classify(batch, m.workspace, probabilities);
    const std::int64_t labels = probabilities.dim(1);
    for (std::size_t k = 0; k < slots.size(); ++k) {
      results[slots[k]] = m.to_result(probabilities.data<float>() + static_cast<std::int64_t>(k) * labels);
    }
  });
  return results;
}

std::vector<std::vector<float>> Matcher::embed(std::span<const std::string> addresses, Pooling pooling,
                                               std::size_t batch_size) const {
  const Impl& m = *impl_;
  std::vector<text::EncodedInput> inputs;
  inputs.reserve(addresses.size());
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    try {
      inputs.push_back(m.folder.tokenizer.encode_single(m.folder.normalizer.normalize(addresses[i]),
                                                        m.folder.config.settings.max_length));
    } catch (const Error& e) {
      throw Error("address " + std::to_string(i) + ": " + e.what());
    }
  }
  std::vector<std::vector<float>> out(addresses.size());
  const auto op_pooling = pooling == Pooling::Cls ? ops::Pooling::Cls : ops::Pooling::Mean;
  std::lock_guard lock(m.mutex);
  Tensor vectors;
  m.for_each_length_batch(inputs, batch_size, [&](const runtime::TokenBatch& batch, std::span<const std::size_t> slots) {
    m.folder.model.embed(batch, op_pooling, m.workspace, vectors);
    const std::int64_t dim = vectors.dim(1);
    for (std::size_t k = 0; k < slots.size(); ++k) {
      const float* row = vectors.data<float>() + static_cast<std::int64_t>(k) * dim;
      out[slots[k]].assign(row, row + dim);
    }
  });
  return out;
}

const std::vector<std::string>& Matcher::labels() const { return impl_->folder.config.bert.labels; }
std::size_t Matcher::max_length() const { return impl_->folder.config.settings.max_length; }
Precision Matcher::precision() const { return impl_->precision; }

}  // namespace geoalign
