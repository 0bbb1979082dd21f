#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "geoalign/matcher.h"

// Python values to C++ and back, in one place so that every binding rejects bad input the
// same way: a ValueError that names the item as Python indexes it ("pairs[3][1] is not a
// str (got NoneType)"), the way the CLI names the line and the server the JSON path.
namespace geoalign::python {

namespace py = pybind11;

// A str as UTF-8. Raises ValueError for anything else, and for a str holding lone
// surrogates (which no UTF-8 can carry). `where` names the value in the message.
std::string to_utf8(py::handle value, const std::string& where);

// Any iterable of non-blank str (a list, a generator, a numpy array, a pandas Series):
// addresses, queries.
// Raises TypeError when `items` is a single str or not iterable.
std::vector<std::string> to_texts(py::handle items, const char* name);

// Any iterable of (addr1, addr2) sequences, each address a non-blank str.
std::vector<AddressPair> to_pairs(py::handle items, const char* name);

// A vector as a new numpy array of T, copied (the vector dies with the call).
template <typename T, typename From>
py::array_t<T> column(const std::vector<From>& values) {
  py::array_t<T> out(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

// A JSON value as the dicts, lists, str, int, float, bool and None json.loads would give.
py::object to_python(const nlohmann::json& value);

}  // namespace geoalign::python
