#include "runtime/batcher.h"

namespace geoalign::runtime {

namespace {

class EmbedKind final : public RequestKind {
 public:
  ModelPass pass() const override { return ModelPass::Embed; }

  void accept(InferenceRequest& request) const override { request.vectors.resize(request.size()); }

  bool prepare(BatchItem& item, const BatchContext& context) const override {
    item.input = context.scorer.encode_address(item.request->first[item.index]);
    item.request->tokens_read += item.input.input_ids.size();
    return true;
  }

  void store(BatchItem& item, ModelOutput output, const BatchContext&) const override {
    item.request->vectors[item.index] = std::move(std::get<std::vector<float>>(output));
  }
};

}  // namespace

const RequestKind& embed_kind() {
  static const EmbedKind kind;
  return kind;
}

}  // namespace geoalign::runtime
