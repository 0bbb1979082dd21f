#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings.h"
#include "convert.h"
#include "geoalign/index.h"

namespace geoalign::python {

namespace {

namespace py = pybind11;
namespace fs = std::filesystem;

std::vector<IndexRecord> to_records(py::handle texts, const std::optional<std::vector<std::string>>& ids) {
  std::vector<IndexRecord> records;
  for (std::string& text : to_texts(texts, "addresses")) records.push_back({{}, std::move(text)});
  if (ids) {
    if (ids->size() != records.size()) {
      throw py::value_error(std::to_string(ids->size()) + " ids for " + std::to_string(records.size()) + " addresses");
    }
    for (std::size_t i = 0; i < records.size(); ++i) records[i].id = (*ids)[i];
  }
  return records;
}

// One list per query, each hit a dict as `geoalign search` prints it in "results".
py::list hits_to_python(const std::vector<std::vector<IndexHit>>& results) {
  py::list out;
  for (const auto& hits : results) {
    py::list row;
    for (const IndexHit& h : hits) {
      py::dict hit;
      hit["id"] = h.id;
      hit["text"] = h.text;
      hit["score"] = h.score;
      if (h.match) hit["label"] = h.match->label;
      row.append(std::move(hit));
    }
    out.append(std::move(row));
  }
  return out;
}

// Link matches: a hit's record and the pair scorer's answer, with `score` the expected
// degree of match as `geoalign link` writes it.
py::list links_to_python(const std::vector<std::vector<IndexHit>>& results) {
  py::list out;
  for (const auto& matches : results) {
    py::list row;
    for (const IndexHit& h : matches) {
      py::dict hit;
      hit["id"] = h.id;
      hit["text"] = h.text;
      hit["label"] = h.match->label;
      hit["score"] = h.match->score;
      hit["p_not_match"] = h.match->p_not_match;
      hit["p_partial_match"] = h.match->p_partial_match;
      hit["p_exact_match"] = h.match->p_exact_match;
      row.append(std::move(hit));
    }
    out.append(std::move(row));
  }
  return out;
}

}  // namespace

void bind_index(py::module_& m) {
  m.attr("INDEX_MANIFEST") = Index::kManifestFile;
  py::class_<Index>(m, "Index")
      .def_static(
          "create",
          [](const fs::path& model_dir, const std::string& precision, const std::string& head, std::size_t links,
             std::size_t build_candidates, const fs::path& aliases) {
            IndexOptions options{parse_precision(precision), head, links, build_candidates, aliases};
            py::gil_scoped_release release;
            return Index::create(model_dir, options);
          },
          py::arg("model_dir"), py::arg("precision"), py::arg("head"), py::arg("links"), py::arg("build_candidates"),
          py::arg("aliases"))
      .def_static(
          "open",
          [](const fs::path& dir, const fs::path& model_dir, const std::string& precision, const std::string& head,
             const fs::path& aliases) {
            IndexOptions options;
            options.precision = parse_precision(precision);
            options.head = head;
            options.aliases = aliases;
            py::gil_scoped_release release;
            return Index::open(dir, model_dir, options);
          },
          py::arg("dir"), py::arg("model_dir"), py::arg("precision"), py::arg("head"), py::arg("aliases"))
      .def(
          "add",
          [](Index& ix, py::handle texts, const std::optional<std::vector<std::string>>& ids) {
            const std::vector<IndexRecord> records = to_records(texts, ids);
            py::gil_scoped_release release;
            ix.add(records);
          },
          py::arg("addresses"), py::arg("ids"))
      .def("save", &Index::save, py::arg("dir"), py::call_guard<py::gil_scoped_release>())
      .def(
          "search",
          [](const Index& ix, py::handle queries, std::size_t k, std::size_t rerank, std::size_t candidates,
             const std::string& region, bool region_from_query, bool ordered) {
            const std::vector<std::string> input = to_texts(queries, "queries");
            IndexSearchOptions options{k, rerank, candidates, region, region_from_query,
                                       ordered ? PairReading::Ordered : PairReading::Symmetric};
            std::vector<std::vector<IndexHit>> results;
            {
              py::gil_scoped_release release;
              results = ix.search(input, options);
            }
            return hits_to_python(results);
          },
          py::arg("queries"), py::arg("k"), py::arg("rerank"), py::arg("candidates"), py::arg("region"),
          py::arg("region_from_query"), py::arg("ordered"))
      .def(
          "link",
          [](const Index& ix, py::handle left, std::size_t k, bool one_to_one, std::size_t rerank,
             std::size_t candidates, const std::string& region, bool ordered) {
            const std::vector<std::string> input = to_texts(left, "left");
            IndexLinkOptions options{k, one_to_one,
                                     IndexSearchOptions{k, rerank, candidates, region, false,
                                                        ordered ? PairReading::Ordered : PairReading::Symmetric}};
            std::vector<std::vector<IndexHit>> results;
            {
              py::gil_scoped_release release;
              results = ix.link(input, options);
            }
            return links_to_python(results);
          },
          py::arg("left"), py::arg("k"), py::arg("one_to_one"), py::arg("rerank"), py::arg("candidates"),
          py::arg("region"), py::arg("ordered"))
      .def("__len__", &Index::size, py::call_guard<py::gil_scoped_release>())  // waits while an add runs
      .def_property_readonly("model_dir", &Index::model_dir);
}

}  // namespace geoalign::python
