#include "bindings.h"
#include "geoalign/error.h"
#include "geoalign/parser.h"
#include "geoalign/text.h"
#include "geoalign/threads.h"

namespace py = pybind11;

PYBIND11_MODULE(_geoalign, m) {
  m.doc() = "geoalign's C++ engine; use it through the geoalign package.";
  // Everything geoalign throws is about its input (a text, a model folder, an option), so
  // its exception is a ValueError: code catching bad input catches it too.
  py::register_exception<geoalign::Error>(m, "GeoalignError", PyExc_ValueError);
  m.attr("MAX_THREADS") = geoalign::kMaxThreads;
  m.def("set_bundled_parser_dir", [](const std::string& dir) { geoalign::set_bundled_parser_dir(dir); },
        py::arg("dir"), "The parser a model folder without one of its own reads addresses with (the package's).");
  m.def("set_threads", &geoalign::set_num_threads, py::arg("threads"),
        "CPU threads for the model and the index, process-wide; 0: OMP_NUM_THREADS or one per available core.");
  m.def("num_threads", &geoalign::process_num_threads, "CPU threads the model and index use now, process-wide.");
  m.def("available_cores", &geoalign::available_cores,
        "Cores this process may use: its CPU affinity, capped by a cgroup CPU quota (a container's limit).");
  m.def("is_blank", [](std::string_view utf8) { return geoalign::is_blank_address(utf8); }, py::arg("text"),
        "Whether the engine reads TEXT as empty: only spaces of any kind, control and invisible characters, or markup standing for them (&nbsp;).");
  geoalign::python::bind_matcher(m);
  geoalign::python::bind_parser(m);
  geoalign::python::bind_index(m);
  geoalign::python::bind_dedup(m);
  geoalign::python::bind_dedup_stages(m);
}
