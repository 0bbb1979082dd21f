// The stages of dedup one at a time (geoalign::Deduplicator's), for geoalign.dask: it
// runs them as tasks on many processes and gets the clusters one `geoalign dedup` run
// gets (the stages' results do not depend on how their inputs are split,
// tests/test_dedup.cpp checks it). Arrays cross as numpy columns.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <optional>

#include "bindings.h"
#include "convert.h"
#include "geoalign/dedup.h"

namespace geoalign::python {

namespace {

namespace py = pybind11;
using Pairs = py::array_t<std::uint32_t, py::array::c_style | py::array::forcecast>;
// Each address's stated province and city codes, [n, 2] (0: not stated).
using Regions = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>;
using Vectors = py::array_t<float, py::array::c_style | py::array::forcecast>;

std::vector<CandidatePair> to_candidates(const Pairs& pairs) {
  if (pairs.ndim() != 2 || pairs.shape(1) != 2) throw py::value_error("pairs must be an array of shape [m, 2]");
  auto p = pairs.unchecked<2>();
  std::vector<CandidatePair> out(static_cast<std::size_t>(pairs.shape(0)));
  for (py::ssize_t i = 0; i < pairs.shape(0); ++i) out[static_cast<std::size_t>(i)] = {p(i, 0), p(i, 1)};
  return out;
}

std::vector<StatedRegion> to_regions(const Regions& regions, std::size_t addresses) {
  if (regions.ndim() != 2 || regions.shape(0) != static_cast<py::ssize_t>(addresses) || regions.shape(1) != 2) {
    throw py::value_error("regions must be [n, 2] for n = " + std::to_string(addresses) + " addresses");
  }
  auto r = regions.unchecked<2>();
  std::vector<StatedRegion> out(addresses);
  for (py::ssize_t i = 0; i < regions.shape(0); ++i) out[static_cast<std::size_t>(i)] = {r(i, 0), r(i, 1)};
  return out;
}

py::array_t<std::uint64_t> from_regions(const std::vector<StatedRegion>& regions) {
  py::array_t<std::uint64_t> out({static_cast<py::ssize_t>(regions.size()), py::ssize_t{2}});
  auto o = out.mutable_unchecked<2>();
  for (std::size_t i = 0; i < regions.size(); ++i) {
    o(static_cast<py::ssize_t>(i), 0) = regions[i].province;
    o(static_cast<py::ssize_t>(i), 1) = regions[i].city;
  }
  return out;
}

py::array_t<std::uint32_t> from_candidates(const std::vector<CandidatePair>& pairs) {
  py::array_t<std::uint32_t> out({static_cast<py::ssize_t>(pairs.size()), py::ssize_t{2}});
  auto o = out.mutable_unchecked<2>();
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    o(static_cast<py::ssize_t>(i), 0) = pairs[i].a;
    o(static_cast<py::ssize_t>(i), 1) = pairs[i].b;
  }
  return out;
}

// Scored pairs as columns: label ids [m] and the three probabilities [m, 3].
py::tuple scored_columns(const std::vector<ScoredPair>& scored) {
  const auto m = static_cast<py::ssize_t>(scored.size());
  py::array_t<std::uint32_t> labels(m);
  py::array_t<float> probabilities({m, py::ssize_t{3}});
  auto l = labels.mutable_unchecked<1>();
  auto p = probabilities.mutable_unchecked<2>();
  for (py::ssize_t i = 0; i < m; ++i) {
    const ScoredPair& s = scored[static_cast<std::size_t>(i)];
    l(i) = s.label_id;
    p(i, 0) = s.p_not_match;
    p(i, 1) = s.p_partial_match;
    p(i, 2) = s.p_exact_match;
  }
  return py::make_tuple(labels, probabilities);
}

class DedupModel {
 public:
  DedupModel(const std::string& model_dir, const std::string& precision, const std::string& head,
             const std::string& aliases)
      : dedup_(Deduplicator::load(model_dir, {parse_precision(precision), head, {}, aliases})) {}

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
      for (std::size_t i = 0; i < raw.size(); ++i) {
        if (errors[i]) continue;
        try {
          std::string t = dedup_.normalize(raw[i]);
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
    LocatedAddresses located;
    {
      py::gil_scoped_release release;
      located = dedup_.embed_and_locate(texts);
    }
    py::array_t<float> v({static_cast<py::ssize_t>(texts.size()), static_cast<py::ssize_t>(located.dim)});
    std::copy(located.vectors.begin(), located.vectors.end(), v.mutable_data());
    return py::make_tuple(v, from_regions(located.regions));
  }

  py::tuple score_pairs(const std::vector<std::string>& texts, const Pairs& pairs) const {
    const std::vector<CandidatePair> p = to_candidates(pairs);
    std::vector<ScoredPair> scored;
    {
      py::gil_scoped_release release;
      scored = dedup_.score(texts, p);
    }
    return scored_columns(scored);
  }

  // Average linkage over scored candidates: cluster [n], best match [n] (-1: none), best
  // link [n], and how many pairs it scored on demand.
  py::tuple cluster(const std::vector<std::string>& texts, const Pairs& pairs,
                    const py::array_t<std::uint32_t, py::array::forcecast>& labels,
                    const py::array_t<float, py::array::c_style | py::array::forcecast>& probabilities,
                    const std::string& merge, std::optional<float> threshold, const Regions& regions) const {
    const std::vector<CandidatePair> p = to_candidates(pairs);
    const std::vector<StatedRegion> stated = to_regions(regions, texts.size());
    if (labels.ndim() != 1 || labels.size() != static_cast<py::ssize_t>(p.size()) || probabilities.ndim() != 2 ||
        probabilities.shape(0) != static_cast<py::ssize_t>(p.size()) || probabilities.shape(1) != 3) {
      throw py::value_error("labels and probabilities must have one row per pair");
    }
    auto l = labels.unchecked<1>();
    auto pr = probabilities.unchecked<2>();
    std::vector<ScoredPair> scored(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
      const auto k = static_cast<py::ssize_t>(i);
      scored[i] = {p[i].a, p[i].b, l(k), pr(k, 0), pr(k, 1), pr(k, 2)};
    }
    const DedupOptions options{threshold, merge};
    AddressClusters c;
    {
      py::gil_scoped_release release;
      c = dedup_.cluster(texts, scored, stated, options);
    }
    return py::make_tuple(column<std::uint32_t>(c.cluster), column<std::int64_t>(c.best_match),
                          column<float>(c.best_link), c.scored_on_demand);
  }

  float threshold(const std::string& merge, std::optional<float> threshold) const {
    return dedup_.threshold(DedupOptions{threshold, merge});
  }

 private:
  Deduplicator dedup_;
};

// --- blocking split over tasks (geoalign.dask's sharded dedup) ---

py::tuple hits_columns(const NeighbourHits& h) {
  return py::make_tuple(column<std::uint32_t>(h.query), column<std::uint32_t>(h.hit), column<float>(h.score));
}

std::vector<float> rows_of(const Vectors& v, const char* what, std::size_t& dim) {
  if (v.ndim() != 2) throw py::value_error(std::string(what) + " must be [n, dim]");
  dim = static_cast<std::size_t>(v.shape(1));
  return std::vector<float>(v.data(), v.data() + v.size());
}

// (addresses counted, grams sorted, how many addresses hold each).
py::tuple gram_counts(const std::vector<std::string>& texts) {
  GramCounts c;
  {
    py::gil_scoped_release release;
    c = Deduplicator::gram_counts(texts);
  }
  return py::make_tuple(c.records, column<std::uint64_t>(c.grams), column<std::uint32_t>(c.df));
}

py::tuple lexical_hits(const std::vector<std::string>& shard, const std::vector<std::string>& queries, std::size_t records,
                       const py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>& grams,
                       const py::array_t<std::uint32_t, py::array::c_style | py::array::forcecast>& df, std::size_t k) {
  // The arrays are read in place: this call holds them while the GIL is released.
  const GramCountsView c{records, std::span(grams.data(), static_cast<std::size_t>(grams.size())),
                         std::span(df.data(), static_cast<std::size_t>(df.size()))};
  NeighbourHits h;
  {
    py::gil_scoped_release release;
    h = Deduplicator::lexical_hits(shard, queries, c, k);
  }
  return hits_columns(h);
}

py::tuple vector_hits(const Vectors& shard, const Vectors& queries, std::size_t k, bool same_rows) {
  std::size_t dim = 0, query_dim = 0;
  const std::vector<float> s = rows_of(shard, "shard", dim), q = rows_of(queries, "queries", query_dim);
  if (dim != query_dim) throw py::value_error("shard and queries differ in dimension");
  NeighbourHits h;
  {
    py::gil_scoped_release release;
    h = Deduplicator::vector_hits(s, q, dim, k, same_rows);
  }
  return hits_columns(h);
}

py::array_t<bool> region_conflicts(const Regions& a, const Regions& b) {
  const std::size_t n = a.ndim() == 2 ? static_cast<std::size_t>(a.shape(0)) : 0;
  const std::vector<std::uint8_t> c = Deduplicator::region_conflicts(to_regions(a, n), to_regions(b, n));
  py::array_t<bool> out(static_cast<py::ssize_t>(c.size()));
  std::copy(c.begin(), c.end(), out.mutable_data());
  return out;
}

// Each scored pair's link under a merge rule (probabilities [n, 3]: not, partial, exact).
py::array_t<float> links(const py::array_t<float, py::array::c_style | py::array::forcecast>& probabilities,
                         const std::string& merge) {
  if (probabilities.ndim() != 2 || probabilities.shape(1) != 3) throw py::value_error("probabilities must be [n, 3]");
  auto pr = probabilities.unchecked<2>();
  py::array_t<float> out(probabilities.shape(0));
  auto o = out.mutable_unchecked<1>();
  for (py::ssize_t i = 0; i < probabilities.shape(0); ++i) {
    o(i) = Deduplicator::link({0, 0, 0, pr(i, 0), pr(i, 1), pr(i, 2)}, merge);
  }
  return out;
}

// Normalized texts numbered: (distinct texts in first-row order, address of each row).
py::tuple number_addresses(std::vector<std::string> normalized) {
  DistinctAddresses d = Deduplicator::number_addresses(std::move(normalized));
  return py::make_tuple(std::move(d.texts), column<std::uint32_t>(d.address_of_row));
}

py::array_t<std::uint32_t> block(const std::vector<std::string>& texts, const Regions& regions, const Vectors& vectors,
                                 std::size_t neighbours) {
  LocatedAddresses located;
  located.regions = to_regions(regions, texts.size());
  if (vectors.ndim() != 2 || vectors.shape(0) != static_cast<py::ssize_t>(texts.size())) {
    throw py::value_error("vectors must be [n, dim] for n = " + std::to_string(texts.size()) + " addresses");
  }
  located.dim = static_cast<std::size_t>(vectors.shape(1));
  located.vectors.assign(vectors.data(), vectors.data() + vectors.size());
  std::vector<CandidatePair> pairs;
  {
    py::gil_scoped_release release;
    pairs = Deduplicator::block(texts, located, neighbours);
  }
  return from_candidates(pairs);
}

// The per-row table `geoalign dedup` writes, from each row's address and the clusters.
py::dict table(const py::array_t<std::uint32_t, py::array::forcecast>& address_of_row,
               const py::array_t<std::uint32_t, py::array::forcecast>& cluster,
               const py::array_t<std::int64_t, py::array::forcecast>& best_match,
               const py::array_t<float, py::array::forcecast>& best_link) {
  AddressClusters c;
  c.cluster.assign(cluster.data(), cluster.data() + cluster.size());
  c.best_match.assign(best_match.data(), best_match.data() + best_match.size());
  c.best_link.assign(best_link.data(), best_link.data() + best_link.size());
  return table_columns(Deduplicator::table(std::span(address_of_row.data(), static_cast<std::size_t>(address_of_row.size())), c));
}

}  // namespace

void bind_dedup_stages(py::module_& m) {
  py::class_<DedupModel>(m, "DedupModel", "A model folder as dedup's stages use it (normalize, parse, embed, pair scorer).")
      .def(py::init<const std::string&, const std::string&, const std::string&, const std::string&>(),
           py::arg("model_dir"), py::arg("precision") = "auto", py::arg("head") = "rerank", py::arg("aliases") = "")
      .def("normalize", &DedupModel::normalize, py::arg("rows"))
      .def("embed_and_locate", &DedupModel::embed_and_locate, py::arg("texts"))
      .def("score_pairs", &DedupModel::score_pairs, py::arg("texts"), py::arg("pairs"))
      .def("cluster", &DedupModel::cluster, py::arg("texts"), py::arg("pairs"), py::arg("labels"), py::arg("probabilities"),
           py::arg("merge"), py::arg("threshold"), py::arg("regions"))
      .def("threshold", [](const DedupModel& m, const std::string& merge, std::optional<float> threshold) {
        return m.threshold(merge, threshold);
      }, py::arg("merge"), py::arg("threshold") = py::none());
  m.def("dedup_number", &number_addresses, py::arg("normalized"));
  m.def("dedup_links", &links, py::arg("probabilities"), py::arg("merge"));
  m.def("dedup_gram_counts", &gram_counts, py::arg("texts"));
  m.def("dedup_lexical_hits", &lexical_hits, py::arg("shard"), py::arg("queries"), py::arg("records"), py::arg("grams"),
        py::arg("df"), py::arg("k"));
  m.def("dedup_vector_hits", &vector_hits, py::arg("shard"), py::arg("queries"), py::arg("k"), py::arg("same_rows"));
  m.def("dedup_region_conflicts", &region_conflicts, py::arg("a"), py::arg("b"));
  m.def("dedup_block", &block, py::arg("texts"), py::arg("regions"), py::arg("vectors"), py::arg("neighbours"));
  m.def("dedup_table", &table, py::arg("address_of_row"), py::arg("cluster"), py::arg("best_match"), py::arg("best_link"));
}

}  // namespace geoalign::python
