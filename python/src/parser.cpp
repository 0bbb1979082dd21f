#include <nlohmann/json.hpp>

#include "bindings.h"
#include "convert.h"
#include "geoalign/parser.h"
#include "geoalign/text.h"

namespace geoalign::python {

namespace {

namespace py = pybind11;

// The parser with the clean-up `geoalign parse` applies unless told --no-normalize.
// With guess off, as `geoalign parse --no-guess`.
struct Parser {
  AddressParser parser;
  ParseOptions options;

  nlohmann::json parse(const std::string& text, bool normalize) const {
    return nlohmann::json::parse(to_json(parser.parse(normalize ? normalize_address(text) : text, options)));
  }
};

}  // namespace

void bind_parser(py::module_& m) {
  m.attr("PARSER_MAX_CHARS") = AddressParser::kMaxChars;
  py::class_<Parser>(m, "Parser")
      .def(py::init([](const std::string& dir, bool guess) {
             py::gil_scoped_release release;
             return Parser{AddressParser::load(dir), ParseOptions{.guess = guess}};
           }),
           py::arg("dir"), py::arg("guess") = true)
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
