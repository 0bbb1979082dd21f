#include "geoalign/matcher.h"

#include "engine/engine.h"

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
  std::unique_ptr<engine::Engine> engine;
};

Matcher::Matcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Matcher::Matcher(Matcher&&) noexcept = default;
Matcher& Matcher::operator=(Matcher&&) noexcept = default;
Matcher::~Matcher() = default;

Matcher Matcher::load(const std::filesystem::path& model_dir, const MatcherOptions& options) {
  engine::EngineOptions engine_options;
  engine_options.precision = options.precision;
  engine_options.device = options.device;
  engine_options.aliases = options.aliases;
  engine_options.reading = options.reading;
  engine_options.threads = options.threads;
  engine_options.head = engine::parse_head(options.head);
  if (engine_options.head == engine::Head::Rerank) engine::require_rerank_head(model_dir);
  return Matcher(std::make_unique<Impl>(Impl{engine::Engine::load(model_dir, engine_options)}));
}

std::vector<MatchResult> Matcher::score(std::span<const AddressPair> pairs, std::size_t batch_size) const {
  return impl_->engine->score(pairs, batch_size);
}

std::vector<std::vector<float>> Matcher::embed(std::span<const std::string> addresses, Pooling pooling,
                                               std::size_t batch_size) const {
  return impl_->engine->embed(addresses, pooling, batch_size);
}

const std::vector<std::string>& Matcher::labels() const { return impl_->engine->labels(); }
std::size_t Matcher::max_length() const { return impl_->engine->max_length(); }
Precision Matcher::precision() const { return impl_->engine->precision(); }

}  // namespace geoalign
