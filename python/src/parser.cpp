#include "bindings.h"
#include "convert.h"
#include "geo/parse_json.h"
#include "geoalign/parser.h"
#include "text/normalize.h"

namespace geoalign::python {

namespace {

namespace py = pybind11;

// The parser with the clean-up `geoalign parse` applies unless told --no-normalize.
struct Parser {
  AddressParser parser;
  text::AddressNormalizer normalizer{text::NormalizeOptions::addresses()};

  nlohmann::json parse(const std::string& text, bool normalize) const {
    return geo::parse_json(parser.parse(normalize ? normalizer.normalize(text) : text));
  }
};

}  // namespace

void bind_parser(py::module_& m) {
  py::class_<Parser>(m, "Parser")
      .def(py::init([](const std::string& dir) {
             py::gil_scoped_release release;
             return Parser{AddressParser::load(dir)};
           }),
           py::arg("dir"))
      .def(
          "parse",
          [](const Parser& parser, py::handle text, bool normalize) {
            const std::string input = to_utf8(text, "text");
            nlohmann::json parsed;
            {
              py::gil_scoped_release release;
              parsed = parser.parse(input, normalize);
            }
            return to_python(parsed);
          },
          py::arg("text"), py::arg("normalize"));
}

}  // namespace geoalign::python
