#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <optional>

#include "backend/threads.h"
#include "bindings.h"
#include "convert.h"
#include "dedup/blocking.h"
#include "dedup/deduplicator.h"
#include "dedup/dedup_table.h"

namespace geoalign::python {

namespace {

namespace py = pybind11;

}  // namespace

py::dict table_columns(const dedup::DedupTable& table) {
  // Rows, not ids: the package names them with its own ids.
  py::dict columns;
  columns["cluster_row"] = column<std::int64_t>(table.cluster_row);
  columns["cluster_size"] = column<std::int64_t>(table.cluster_size);
  columns["best_match_row"] = column<std::int64_t>(table.best_match_row);
  columns["best_match_score"] = column<float>(table.best_match_score);
  return columns;
}

void bind_dedup(py::module_& m) {
  m.attr("MAX_NEIGHBOURS") = dedup::kMaxNeighbours;
  m.def(
      "dedup",
      [](py::handle addresses, const std::string& model_dir, const std::string& precision, const std::string& head,
         std::optional<float> threshold, const std::string& merge, std::size_t neighbours) {
        const std::vector<std::string> rows = to_texts(addresses, "addresses");
        if (rows.empty()) throw py::value_error("no addresses to deduplicate");
        dedup::DedupOptions options;
        options.threshold = threshold;
        options.rule = dedup::parse_merge_rule(merge);
        options.neighbours = neighbours;
        const Precision p = parse_precision(precision);
        dedup::DedupTable table;
        {
          py::gil_scoped_release release;
          adopt_num_threads();
          const auto model = index::AddressModel::load(model_dir, p, head);
          table = dedup::dedup_table(dedup::deduplicate(*model, rows, options));
        }
        return table_columns(table);
      },
      py::arg("addresses"), py::arg("model_dir"), py::arg("precision"), py::arg("head"), py::arg("threshold"),
      py::arg("merge"), py::arg("neighbours"));
}

}  // namespace geoalign::python
