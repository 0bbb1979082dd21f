#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <memory>
#include <shared_mutex>

#include "backend/threads.h"
#include "bindings.h"
#include "convert.h"
#include "index/address_index.h"
#include "index/search_json.h"
#include "index/searcher.h"

namespace geoalign::python {

namespace {

namespace py = pybind11;
namespace fs = std::filesystem;

struct SearchRequest {
  index::SearchOptions options;
  std::string region_name;  // resolved to options.region by the searcher's gazetteer
};

// An address index with the model that reads it. Python threads may search it together
// (the GIL is released) while another adds to it: the lock keeps add from changing what
// a search is reading.
class Index {
 public:
  // An empty index for the embeddings of the model in model_dir, as `geoalign index build`.
  static Index create(const fs::path& model_dir, Precision precision, const std::string& head, std::size_t links,
                      std::size_t build_candidates) {
    auto model = index::AddressModel::load(model_dir, precision, head);
    index::AddressIndex ix(model_dir, *model, index::VectorIndex::Options{links, build_candidates});
    return Index(std::move(ix), std::move(model));
  }

  // As `geoalign search` opens it: with the model it was built with unless told another
  // folder, whose weights must be the same.
  static Index open(const fs::path& dir, const fs::path& model_dir, Precision precision, const std::string& head) {
    index::AddressIndex ix = index::AddressIndex::open(dir);
    const fs::path model_path = model_dir.empty() ? ix.model_dir() : model_dir;
    ix.check_model(model_path);
    auto model = index::AddressModel::load(model_path, precision, head);
    return Index(std::move(ix), std::move(model));
  }

  void add(const std::vector<index::NewRecord>& records) {
    std::unique_lock lock(*mutex_);
    adopt_num_threads();
    index_->add(*model_, records);
  }

  void save(const fs::path& dir) {
    std::unique_lock lock(*mutex_);  // a save records which folder and generation it wrote
    index_->save(dir);
  }

  // One JSON array of hits per query, each as `geoalign search` prints its "results".
  nlohmann::json search(const std::vector<std::string>& queries, SearchRequest request) const {
    std::shared_lock lock(*mutex_);
    adopt_num_threads();
    const index::Searcher& searcher = *searcher_;
    if (!request.region_name.empty()) request.options.region = searcher.region_code(request.region_name);
    nlohmann::json out = nlohmann::json::array();
    // In the CLI's batches, for the CLI's exact results.
    for (std::size_t first = 0; first < queries.size(); first += index::kSearchBatch) {
      const std::span<const std::string> batch(queries.data() + first, std::min(index::kSearchBatch, queries.size() - first));
      const auto hits = searcher.search(batch, request.options);
      for (std::size_t q = 0; q < batch.size(); ++q) {
        out.push_back(std::move(index::search_result_json(*index_, batch[q], hits[q])["results"]));
      }
    }
    return out;
  }

  std::size_t size() const {
    std::shared_lock lock(*mutex_);
    return index_->size();
  }
  const fs::path& model_dir() const { return index_->model_dir(); }  // fixed at build time

 private:
  Index(index::AddressIndex ix, std::unique_ptr<index::AddressModel> model)
      : model_(std::move(model)),
        index_(std::make_unique<index::AddressIndex>(std::move(ix))),
        searcher_(std::make_unique<index::Searcher>(*index_, *model_)),
        mutex_(std::make_unique<std::shared_mutex>()) {}

  // Pointers: the Index moves out of its factories, and the searcher, which keeps each
  // region's records between searches, refers to the index and the model.
  std::unique_ptr<index::AddressModel> model_;
  std::unique_ptr<index::AddressIndex> index_;
  std::unique_ptr<index::Searcher> searcher_;
  std::unique_ptr<std::shared_mutex> mutex_;
};

std::vector<index::NewRecord> to_records(py::handle texts, const std::optional<std::vector<std::string>>& ids) {
  std::vector<index::NewRecord> records;
  for (std::string& text : to_texts(texts, "addresses")) records.push_back({{}, std::move(text)});
  if (ids) {
    if (ids->size() != records.size()) {
      throw py::value_error(std::to_string(ids->size()) + " ids for " + std::to_string(records.size()) + " addresses");
    }
    for (std::size_t i = 0; i < records.size(); ++i) records[i].id = (*ids)[i];
  }
  return records;
}

}  // namespace

void bind_index(py::module_& m) {
  m.attr("INDEX_MANIFEST") = index::AddressIndex::kManifest;  // the file that marks a folder as an index
  py::class_<Index>(m, "Index")
      .def_static(
          "create",
          [](const fs::path& model_dir, const std::string& precision, const std::string& head, std::size_t links,
             std::size_t build_candidates) {
            const Precision p = parse_precision(precision);
            py::gil_scoped_release release;
            return Index::create(model_dir, p, head, links, build_candidates);
          },
          py::arg("model_dir"), py::arg("precision"), py::arg("head"), py::arg("links"), py::arg("build_candidates"))
      .def_static(
          "open",
          [](const fs::path& dir, const fs::path& model_dir, const std::string& precision, const std::string& head) {
            const Precision p = parse_precision(precision);
            py::gil_scoped_release release;
            return Index::open(dir, model_dir, p, head);
          },
          py::arg("dir"), py::arg("model_dir"), py::arg("precision"), py::arg("head"))
      .def(
          "add",
          [](Index& ix, py::handle texts, const std::optional<std::vector<std::string>>& ids) {
            const std::vector<index::NewRecord> records = to_records(texts, ids);
            py::gil_scoped_release release;
            ix.add(records);
          },
          py::arg("addresses"), py::arg("ids"))
      .def("save", &Index::save, py::arg("dir"), py::call_guard<py::gil_scoped_release>())
      .def(
          "search",
          [](const Index& ix, py::handle queries, std::size_t k, std::size_t rerank, std::size_t candidates,
             const std::string& region, bool region_from_query) {
            const std::vector<std::string> input = to_texts(queries, "queries");
            SearchRequest request;
            request.options.k = k;
            request.options.rerank = rerank;
            request.options.candidates = candidates;
            request.options.region_from_query = region_from_query;
            request.region_name = region;
            nlohmann::json results;
            {
              py::gil_scoped_release release;
              results = ix.search(input, std::move(request));
            }
            return to_python(results);
          },
          py::arg("queries"), py::arg("k"), py::arg("rerank"), py::arg("candidates"), py::arg("region"),
          py::arg("region_from_query"))
      .def("__len__", &Index::size, py::call_guard<py::gil_scoped_release>())  // waits while an add runs
      .def_property_readonly("model_dir", &Index::model_dir);
}

}  // namespace geoalign::python
