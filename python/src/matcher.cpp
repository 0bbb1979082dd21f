#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>

#include "bindings.h"
#include "convert.h"
#include "geoalign/matcher.h"

namespace geoalign::python {

namespace {

namespace py = pybind11;

Pooling parse_pooling(const std::string& name) {
  if (name == "model") return Pooling::Model;
  if (name == "cls") return Pooling::Cls;
  if (name == "mean") return Pooling::Mean;
  throw py::value_error("pooling must be \"model\", \"cls\" or \"mean\", not \"" + name + "\"");
}

std::size_t check_batch_size(std::size_t batch_size) {
  if (batch_size == 0) throw py::value_error("batch_size must be at least 1");
  return batch_size;
}

// Column arrays rather than one object per pair: the package builds its MatchResult
// tuples or DataFrame columns from them without a Python loop over floats.
py::dict result_columns(const std::vector<MatchResult>& results, std::size_t labels) {
  const auto n = static_cast<py::ssize_t>(results.size());
  py::array_t<std::int64_t> label_id(n);
  py::array_t<float> score(n), p_not(n), p_partial(n), p_exact(n);
  py::array_t<float> probabilities({n, static_cast<py::ssize_t>(labels)});
  auto id = label_id.mutable_unchecked<1>();
  auto s = score.mutable_unchecked<1>(), pn = p_not.mutable_unchecked<1>(), pp = p_partial.mutable_unchecked<1>(),
       pe = p_exact.mutable_unchecked<1>();
  auto p = probabilities.mutable_unchecked<2>();
  for (py::ssize_t i = 0; i < n; ++i) {
    const MatchResult& r = results[static_cast<std::size_t>(i)];
    id(i) = static_cast<std::int64_t>(r.label_id);
    s(i) = r.score;
    pn(i) = r.p_not_match;
    pp(i) = r.p_partial_match;
    pe(i) = r.p_exact_match;
    for (std::size_t k = 0; k < labels; ++k) p(i, static_cast<py::ssize_t>(k)) = r.probabilities.at(k);
  }
  py::dict columns;
  columns["label_id"] = label_id;
  columns["score"] = score;
  columns["p_not_match"] = p_not;
  columns["p_partial_match"] = p_partial;
  columns["p_exact_match"] = p_exact;
  columns["probabilities"] = probabilities;
  return columns;
}

py::array_t<float> to_matrix(const std::vector<std::vector<float>>& rows, std::size_t dim) {
  py::array_t<float> out({static_cast<py::ssize_t>(rows.size()), static_cast<py::ssize_t>(dim)});
  float* data = out.mutable_data();
  for (const auto& row : rows) data = std::copy(row.begin(), row.end(), data);
  return out;
}

}  // namespace

void bind_matcher(py::module_& m) {
  m.attr("DEFAULT_BATCH_SIZE") = kDefaultBatchSize;
  py::class_<Matcher>(m, "Matcher")
      .def(py::init([](const std::string& model_dir, const std::string& precision, int threads,
                       const std::string& device, const std::string& aliases, bool ordered,
                       const std::string& head) {
             const MatcherOptions options{parse_precision(precision), threads, device, aliases,
                                          ordered ? PairReading::Ordered : PairReading::Symmetric, head};
             py::gil_scoped_release release;
             return Matcher::load(model_dir, options);
           }),
           py::arg("model_dir"), py::arg("precision"), py::arg("threads"), py::arg("device"), py::arg("aliases"),
           py::arg("ordered"), py::arg("head"))
      .def(
          "score",
          [](const Matcher& matcher, py::handle pairs, std::size_t batch_size) {
            const std::vector<AddressPair> input = to_pairs(pairs, "pairs");
            check_batch_size(batch_size);
            std::vector<MatchResult> results;
            {
              py::gil_scoped_release release;
              results = matcher.score(input, batch_size);
            }
            return result_columns(results, matcher.labels().size());
          },
          py::arg("pairs"), py::arg("batch_size"))
      .def(
          "embed",
          [](const Matcher& matcher, py::handle addresses, const std::string& pooling, std::size_t batch_size) {
            const std::vector<std::string> input = to_texts(addresses, "addresses");
            const Pooling how = parse_pooling(pooling);
            check_batch_size(batch_size);
            std::vector<std::vector<float>> vectors;
            std::size_t dim = 0;
            {
              py::gil_scoped_release release;
              vectors = matcher.embed(input, how, batch_size);
              // No input still gets its [0, dim] shape, so results concatenate; the
              // width is only known from an embedding.
              dim = vectors.empty() ? matcher.embed(std::vector<std::string>{"北京市"}, how)[0].size() : vectors[0].size();
            }
            return to_matrix(vectors, dim);
          },
          py::arg("addresses"), py::arg("pooling"), py::arg("batch_size"))
      .def_property_readonly("labels", &Matcher::labels)
      .def_property_readonly("max_length", &Matcher::max_length)
      .def_property_readonly("precision", [](const Matcher& matcher) { return precision_name(matcher.precision()); });
}

}  // namespace geoalign::python
