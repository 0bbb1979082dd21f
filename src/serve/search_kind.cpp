#include "serve/search_kind.h"

#include "index/search_json.h"

namespace geoalign::serve {

namespace {

// What a query carries from one stage to the next.
struct Query {
  engine::Address address;
  std::vector<float> vector;
};

}  // namespace

std::unique_ptr<SearchKind> SearchKind::open(const std::filesystem::path& index_dir, const std::filesystem::path& model_dir,
                                             const engine::Engine& model) {
  index::AddressIndex ix = index::AddressIndex::open(index_dir);
  // The server embeds queries with its own model: the index's vectors must come from it.
  ix.check_model(model_dir);
  if (!model.can_parse()) {
    throw Error("the model in " + model_dir.string() + " has no parser and the bundled one is not there; search needs one (--parser DIR)");
  }
  return std::unique_ptr<SearchKind>(new SearchKind(std::move(ix), model));
}

SearchKind::SearchKind(index::AddressIndex index, const engine::Engine& model)
    : index_(std::move(index)), model_(model), searcher_(index_, model_) {}

std::shared_ptr<SearchRequest> SearchKind::make_request(std::vector<std::string> queries,
                                                        index::SearchOptions options) const {
  auto request = std::make_shared<SearchRequest>();
  request->kind = this;
  request->first = std::move(queries);
  if (!options.region.empty()) options.region = searcher_.region_code(options.region);
  request->options = std::move(options);
  return request;
}

void SearchKind::accept(runtime::InferenceRequest& request) const {
  auto* search = dynamic_cast<SearchRequest*>(&request);
  if (search == nullptr) throw Error("a search request must be a SearchRequest (SearchKind::make_request)");
  search->results.resize(search->size());
}

bool SearchKind::prepare(runtime::BatchItem& item, const runtime::BatchContext& context) const {
  Query query{searcher_.prepare(item.request->first[item.index]), {}};
  item.input = context.scorer.encode_address(query.address.text);
  item.state = std::move(query);
  return true;
}

void SearchKind::store(runtime::BatchItem& item, runtime::ModelOutput output, const runtime::BatchContext&) const {
  std::any_cast<Query&>(item.state).vector = std::move(std::get<std::vector<float>>(output));
}

void SearchKind::after(runtime::BatchItem& item, const runtime::BatchContext&) const {
  auto& request = static_cast<SearchRequest&>(*item.request);  // accept() checked the type
  const auto& query = std::any_cast<const Query&>(item.state);
  const auto hits = searcher_.search_one(query.address, query.vector, request.options);
  request.results[item.index] = index::search_result_json(index_, request.first[item.index], hits);
}

}  // namespace geoalign::serve
