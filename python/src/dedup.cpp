#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <optional>

#include "bindings.h"
#include "convert.h"
#include "geoalign/dedup.h"

namespace geoalign::python {

namespace py = pybind11;

py::dict table_columns(const DedupTable& table) {
  // Rows, not ids: the package names them with its own ids.
  py::dict columns;
  columns["cluster_row"] = column<std::int64_t>(table.cluster_row);
  columns["cluster_size"] = column<std::int64_t>(table.cluster_size);
  columns["best_match_row"] = column<std::int64_t>(table.best_match_row);
  columns["best_match_score"] = column<float>(table.best_match_score);
  return columns;
}

void bind_dedup(py::module_& m) {
  m.attr("MAX_NEIGHBOURS") = kMaxDedupNeighbours;
  m.attr("EXACT_NEIGHBOURS_UP_TO") = kDedupExactNeighboursUpTo;
  m.def(
      "dedup",
      [](py::handle addresses, const std::string& model_dir, const std::string& precision, const std::string& head,
         std::optional<float> threshold, const std::string& merge, std::size_t neighbours, const std::string& aliases) {
        const std::vector<std::string> rows = to_texts(addresses, "addresses");
        if (rows.empty()) throw py::value_error("no addresses to deduplicate");
        const DedupOptions options{threshold, merge, neighbours};
        const DedupModelOptions model_options{parse_precision(precision), head, {}, aliases};
        DedupTable table;
        {
          py::gil_scoped_release release;
          table = Deduplicator::load(model_dir, model_options).run(rows, options);
        }
        return table_columns(table);
      },
      py::arg("addresses"), py::arg("model_dir"), py::arg("precision"), py::arg("head"), py::arg("threshold"),
      py::arg("merge"), py::arg("neighbours"), py::arg("aliases"));
}

}  // namespace geoalign::python
