#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "index/address_index.h"
#include "index/searcher.h"
#include "runtime/batcher.h"
#include "serve/search_request.h"

namespace geoalign::serve {

// /v1/search over an index. Each query is normalized and parsed when the batcher prepares
// it, embedded in the model's batches beside /v1/embed's addresses, then looked up
// (lexical and vector candidates, fusion, rerank by the pair scorer) on the batcher's
// after-model threads while the model runs the next batch.
class SearchKind final : public runtime::RequestKind {
 public:
  // Opens the index for the server's engine, loaded from model_dir, which parses queries
  // and reranks; it must outlive the kind. Throws Error when the index's embeddings come
  // from other weights, or when the model has no parser.
  static std::unique_ptr<SearchKind> open(const std::filesystem::path& index_dir, const std::filesystem::path& model_dir,
                                          const engine::Engine& model);

  // A request for `queries`; options.region is a region's name (北京市, 南山区), or empty.
  // Throws Error when the gazetteer does not know the region or reads it ambiguously.
  std::shared_ptr<SearchRequest> make_request(std::vector<std::string> queries, index::SearchOptions options) const;

  const engine::Engine& model() const { return model_; }

  runtime::ModelPass pass() const override { return runtime::ModelPass::Embed; }
  void accept(runtime::InferenceRequest& request) const override;
  bool prepare(runtime::BatchItem& item, const runtime::BatchContext& context) const override;
  void store(runtime::BatchItem& item, runtime::ModelOutput output, const runtime::BatchContext& context) const override;
  bool has_after_stage() const override { return true; }
  void after(runtime::BatchItem& item, const runtime::BatchContext& context) const override;

 private:
  SearchKind(index::AddressIndex index, const engine::Engine& model);

  index::AddressIndex index_;
  const engine::Engine& model_;
  index::Searcher searcher_;
};

}  // namespace geoalign::serve
