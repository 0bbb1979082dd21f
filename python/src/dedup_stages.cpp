// The stages of dedup one at a time, for geoalign.dask: it runs them as tasks on many
// processes and gets the clusters one `geoalign dedup` run gets (the stages' results do
// not depend on how their inputs are split, tests/test_dedup.cpp checks it).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <optional>

#include "backend/threads.h"
#include "bindings.h"
#include "convert.h"
#include "dedup/blocking.h"
#include "dedup/clustering.h"
#include "dedup/deduplicator.h"
#include "dedup/pair_scoring.h"
#include "dedup/dedup_table.h"
#include "index/address_model.h"

namespace geoalign::python {

namespace {

namespace py = pybind11;
using Pairs = py::array_t<std::uint32_t, py::array::c_style | py::array::forcecast>;

std::vector<dedup::AddressPair> to_address_pairs(const Pairs& pairs, std::size_t addresses) {
  if (pairs.ndim() != 2 || pairs.shape(1) != 2) throw py::value_error("pairs must be an array of shape [m, 2]");
  auto p = pairs.unchecked<2>();
  std::vector<dedup::AddressPair> out(static_cast<std::size_t>(pairs.shape(0)));
  for (py::ssize_t i = 0; i < pairs.shape(0); ++i) {
    if (p(i, 0) >= addresses || p(i, 1) >= addresses) throw py::value_error("pairs[" + std::to_string(i) + "] names an address past the end");
    out[static_cast<std::size_t>(i)] = {p(i, 0), p(i, 1)};
  }
  return out;
}

// Each address's stated province and city codes, [n, 2] (0: not stated).
using Regions = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>;

std::vector<dedup::StatedRegion> to_regions(const Regions& regions, std::size_t addresses) {
  if (regions.ndim() != 2 || regions.shape(0) != static_cast<py::ssize_t>(addresses) || regions.shape(1) != 2) {
    throw py::value_error("regions must be [n, 2]");
  }
  auto rr = regions.unchecked<2>();
  std::vector<dedup::StatedRegion> out(addresses);
  for (py::ssize_t i = 0; i < regions.shape(0); ++i) out[static_cast<std::size_t>(i)] = {rr(i, 0), rr(i, 1)};
  return out;
}

py::array_t<std::uint32_t> from_address_pairs(const std::vector<dedup::AddressPair>& pairs) {
  py::array_t<std::uint32_t> out({static_cast<py::ssize_t>(pairs.size()), py::ssize_t{2}});
  auto o = out.mutable_unchecked<2>();
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    o(static_cast<py::ssize_t>(i), 0) = pairs[i].first;
    o(static_cast<py::ssize_t>(i), 1) = pairs[i].second;
  }
  return out;
}

// Evidence as columns: label ids [m] and the three probabilities [m, 3].
py::tuple evidence_columns(const std::vector<dedup::PairEvidence>& evidence) {
  const auto m = static_cast<py::ssize_t>(evidence.size());
  py::array_t<std::uint32_t> labels(m);
  py::array_t<float> probabilities({m, py::ssize_t{3}});
  auto l = labels.mutable_unchecked<1>();
  auto p = probabilities.mutable_unchecked<2>();
  for (py::ssize_t i = 0; i < m; ++i) {
    const auto& e = evidence[static_cast<std::size_t>(i)];
    l(i) = e.label_id;
    p(i, 0) = e.p_not_match;
    p(i, 1) = e.p_partial_match;
    p(i, 2) = e.p_exact_match;
  }
  return py::make_tuple(labels, probabilities);
}

// Parses the addresses a set of pairs names, each once, over every core; others stay empty.
std::vector<index::Address> parse_named(const index::AddressModel& model, const std::vector<std::string>& texts,
                                        std::span<const dedup::AddressPair> pairs) {
  std::vector<char> named(texts.size(), 0);
  for (const auto& [a, b] : pairs) named[a] = named[b] = 1;
  return model.prepare_all(texts, {}, named);
}

class DedupModel {
 public:
  DedupModel(const std::string& model_dir, const std::string& precision, const std::string& head)
      : model_(index::AddressModel::load(model_dir, parse_precision(precision), head)) {}

  // Normalized text per row, or the reason it cannot be deduplicated (the other is None).
  py::tuple normalize(const py::list& items) const {
    std::vector<std::optional<std::string>> texts(items.size()), errors(items.size());
    std::vector<std::string> raw(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      try {
        raw[i] = to_utf8(items[i], "row " + std::to_string(i));
      } catch (const py::error_already_set& e) {
        errors[i] = e.what();
      }
    }
    {
      py::gil_scoped_release release;
      adopt_num_threads();
      for (std::size_t i = 0; i < raw.size(); ++i) {
        if (errors[i]) continue;
        try {
          std::string t = model_->normalize(raw[i]);
          if (t.empty()) {
            errors[i] = "the address is blank after normalization";
          } else {
            texts[i] = std::move(t);
          }
        } catch (const std::exception& e) {
          errors[i] = e.what();
        }
      }
    }
    return py::make_tuple(texts, errors);
  }

  // Unit vectors [n, dim] and stated regions [n, 2] (province and city codes, 0: not stated).
  py::tuple embed_and_locate(const std::vector<std::string>& texts) const {
    std::vector<float> vectors;
    std::vector<dedup::StatedRegion> regions(texts.size());
    {
      py::gil_scoped_release release;
      adopt_num_threads();
      const std::vector<index::Address> parsed = model_->prepare_all(texts);
      for (std::size_t k = 0; k < texts.size(); ++k) regions[k] = dedup::stated_region(parsed[k].parsed.admin);
      const std::vector<std::string_view> views(texts.begin(), texts.end());
      vectors = model_->embed(views);
    }
    const auto n = static_cast<py::ssize_t>(texts.size());
    py::array_t<float> v({n, static_cast<py::ssize_t>(model_->dim())});
    std::copy(vectors.begin(), vectors.end(), v.mutable_data());
    py::array_t<std::uint64_t> r({n, py::ssize_t{2}});
    auto rr = r.mutable_unchecked<2>();
    for (py::ssize_t i = 0; i < n; ++i) {
      rr(i, 0) = regions[static_cast<std::size_t>(i)].prov;
      rr(i, 1) = regions[static_cast<std::size_t>(i)].city;
    }
    return py::make_tuple(v, r);
  }

  py::tuple score_pairs(const std::vector<std::string>& texts, const Pairs& pairs) const {
    const std::vector<dedup::AddressPair> p = to_address_pairs(pairs, texts.size());
    std::vector<dedup::PairEvidence> evidence;
    {
      py::gil_scoped_release release;
      adopt_num_threads();
      const std::vector<index::Address> addresses = parse_named(*model_, texts, p);
      evidence = dedup::score_pairs(*model_, addresses, p);
    }
    return evidence_columns(evidence);
  }

  // Average linkage over scored candidates: cluster [n], best match [n] (-1: none), best
  // link [n], and how many pairs it scored on demand.
  py::tuple cluster(const std::vector<std::string>& texts, const Pairs& pairs,
                    const py::array_t<std::uint32_t, py::array::forcecast>& labels,
                    const py::array_t<float, py::array::c_style | py::array::forcecast>& probabilities,
                    const std::string& merge, std::optional<float> threshold, const Regions& regions) const {
    const std::vector<dedup::AddressPair> p = to_address_pairs(pairs, texts.size());
    const std::vector<dedup::StatedRegion> stated = to_regions(regions, texts.size());
    if (labels.size() != static_cast<py::ssize_t>(p.size()) || probabilities.ndim() != 2 ||
        probabilities.shape(0) != static_cast<py::ssize_t>(p.size()) || probabilities.shape(1) != 3) {
      throw py::value_error("labels and probabilities must have one row per pair");
    }
    const dedup::MergeRule rule = dedup::parse_merge_rule(merge);
    auto l = labels.unchecked<1>();
    auto pr = probabilities.unchecked<2>();
    std::vector<dedup::PairEvidence> scored(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
      const auto k = static_cast<py::ssize_t>(i);
      scored[i] = {p[i].first, p[i].second, l(k), pr(k, 0), pr(k, 1), pr(k, 2)};
    }
    dedup::Entities e;
    {
      py::gil_scoped_release release;
      adopt_num_threads();
      // Clustering asks for few pairs: parse their addresses when first named.
      std::vector<index::Address> addresses(texts.size());
      std::vector<char> parsed(texts.size(), 0);
      const float link = threshold.value_or(dedup::default_threshold(*model_, rule));
      e = dedup::cluster_entities(texts.size(), scored, rule, link, [&](std::span<const dedup::AddressPair> missing) {
        for (const auto& [a, b] : missing) {
          for (std::uint32_t k : {a, b}) {
            if (parsed[k]) continue;
            addresses[k] = model_->prepare(texts[k]);
            parsed[k] = 1;
          }
        }
        return dedup::score_pairs(*model_, addresses, missing);
      }, stated);
    }
    return py::make_tuple(column<std::uint32_t>(e.cluster), column<std::int64_t>(e.best_match),
                          column<float>(e.best_link), e.on_demand.size());
  }

 private:
  std::unique_ptr<index::AddressModel> model_;
};

py::array_t<std::uint32_t> block(const std::vector<std::string>& texts, const Regions& regions,
                                 const py::array_t<float, py::array::c_style | py::array::forcecast>& vectors,
                                 std::size_t neighbours) {
  const std::vector<dedup::StatedRegion> r = to_regions(regions, texts.size());
  if (vectors.ndim() != 2 || vectors.shape(0) != static_cast<py::ssize_t>(texts.size())) {
    throw py::value_error("vectors must be [n, dim]");
  }
  std::vector<dedup::AddressPair> pairs;
  {
    py::gil_scoped_release release;
    adopt_num_threads();
    pairs = dedup::block(texts, r, std::span(vectors.data(), static_cast<std::size_t>(vectors.size())), neighbours);
  }
  return from_address_pairs(pairs);
}

// The per-row table `geoalign dedup` writes, from each row's address and the entities.
py::dict table(const py::array_t<std::uint32_t, py::array::forcecast>& address_of_row,
               const py::array_t<std::uint32_t, py::array::forcecast>& cluster,
               const py::array_t<std::int64_t, py::array::forcecast>& best_match,
               const py::array_t<float, py::array::forcecast>& best_link) {
  dedup::DedupResult r;
  r.address_of_row.assign(address_of_row.data(), address_of_row.data() + address_of_row.size());
  r.cluster.assign(cluster.data(), cluster.data() + cluster.size());
  r.best_match.assign(best_match.data(), best_match.data() + best_match.size());
  r.best_link.assign(best_link.data(), best_link.data() + best_link.size());
  r.texts.resize(r.cluster.size());  // dedup_table checks every array against this count
  return table_columns(dedup::dedup_table(r));
}

}  // namespace

void bind_dedup_stages(py::module_& m) {
  py::class_<DedupModel>(m, "DedupModel", "A model folder as dedup's stages use it (normalize, parse, embed, pair scorer).")
      .def(py::init<const std::string&, const std::string&, const std::string&>(), py::arg("model_dir"),
           py::arg("precision") = "auto", py::arg("head") = "rerank")
      .def("normalize", &DedupModel::normalize, py::arg("rows"))
      .def("embed_and_locate", &DedupModel::embed_and_locate, py::arg("texts"))
      .def("score_pairs", &DedupModel::score_pairs, py::arg("texts"), py::arg("pairs"))
      .def("cluster", &DedupModel::cluster, py::arg("texts"), py::arg("pairs"), py::arg("labels"), py::arg("probabilities"),
           py::arg("merge"), py::arg("threshold"), py::arg("regions"));
  m.def("dedup_block", &block, py::arg("texts"), py::arg("regions"), py::arg("vectors"), py::arg("neighbours"));
  m.def("dedup_table", &table, py::arg("address_of_row"), py::arg("cluster"), py::arg("best_match"), py::arg("best_link"));
}

}  // namespace geoalign::python
