#include "geoalign/matcher.h"

#include <algorithm>
#include <mutex>
#include <numeric>
#include <optional>

#include "backend/memory.h"
#include "backend/threads.h"
#include "model/precision.h"
#include "runtime/length_batches.h"
#include "runtime/pair_scorer.h"
#include "runtime/score_chunks.h"

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

using runtime::for_each_length_batch;

struct Matcher::Impl {
  Impl(model::ModelFolder folder, Precision p) : scorer(std::move(folder)), precision(p) {}

  runtime::PairScorer scorer;
  Precision precision;
  std::mutex mutex;  // guards the workspace
  model::BertModel::Workspace workspace;
};

Matcher::Matcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Matcher::Matcher(Matcher&&) noexcept = default;
Matcher& Matcher::operator=(Matcher&&) noexcept = default;
Matcher::~Matcher() = default;

Matcher Matcher::load(const std::filesystem::path& model_dir, const MatcherOptions& options) {
  const Device device = parse_device(options.device);
  require_device(device);
  const ops::MatmulPrecision precision = model::resolve_precision(options.precision, device);
  use_num_threads(options.threads);
  return Matcher(std::make_unique<Impl>(model::ModelFolder::load(model_dir, precision, device, {}, options.aliases, options.reading),
                                        model::precision_of(precision)));
}

std::vector<MatchResult> Matcher::score(std::span<const AddressPair> pairs, std::size_t batch_size) const {
  Impl& m = *impl_;
  adopt_num_threads();
  m.scorer.require_classifier();
  if (batch_size == 0) throw Error("batch size must be at least 1");
  // In the chunks `geoalign score` reads, each grouped by length on its own, so that every
  // front end builds the same batches and gets the same numbers to the bit (int8 batches
  // depend on what else is in them); a chunk at a time also bounds the tokens held.
  const std::size_t chunk = runtime::score_chunk_size(batch_size);
  std::vector<MatchResult> results(pairs.size()), batch_results;
  for (std::size_t first = 0; first < pairs.size(); first += chunk) {
    const auto part = pairs.subspan(first, std::min(chunk, pairs.size() - first));
    const std::vector<text::EncodedInput> inputs = m.scorer.encode_pairs(part, nullptr, first);
    std::lock_guard lock(m.mutex);
    for_each_length_batch(inputs, batch_size, [&](auto batch, std::span<const std::size_t> slots) {
      m.scorer.classify(batch, m.workspace, batch_results);
      for (std::size_t k = 0; k < slots.size(); ++k) results[first + slots[k]] = std::move(batch_results[k]);
    });
  }
  return results;
}

std::vector<std::vector<float>> Matcher::embed(std::span<const std::string> addresses, Pooling pooling,
                                               std::size_t batch_size) const {
  Impl& m = *impl_;
  adopt_num_threads();
  const std::vector<text::EncodedInput> inputs = m.scorer.encode_addresses(addresses);
  const auto hidden = m.scorer.folder().config.bert.hidden_size;
  const std::optional<model::EmbeddingHead> raw =
      pooling == Pooling::Model ? std::nullopt
                                : std::optional(model::EmbeddingHead::pooling_only(
                                      pooling == Pooling::Cls ? ops::Pooling::Cls : ops::Pooling::Mean, hidden));
  std::vector<std::vector<float>> out(addresses.size()), batch_vectors;
  std::lock_guard lock(m.mutex);
  for_each_length_batch(inputs, batch_size, [&](auto batch, std::span<const std::size_t> slots) {
    m.scorer.embed(batch, m.workspace, batch_vectors, raw ? &*raw : nullptr);
    for (std::size_t k = 0; k < slots.size(); ++k) out[slots[k]] = std::move(batch_vectors[k]);
  });
  return out;
}

const std::vector<std::string>& Matcher::labels() const { return impl_->scorer.labels(); }
std::size_t Matcher::max_length() const { return impl_->scorer.max_length(); }
Precision Matcher::precision() const { return impl_->precision; }

}  // namespace geoalign
