#include "convert.h"

#include "geoalign/text.h"

namespace geoalign::python {

namespace {

std::string type_name(py::handle value) { return Py_TYPE(value.ptr())->tp_name; }

// A str or bytes where a collection is expected would be taken apart character by
// character: refuse it rather than score one-character addresses.
void require_collection(py::handle items, const char* name, const char* expected) {
  if (PyUnicode_Check(items.ptr()) || PyBytes_Check(items.ptr())) {
    throw py::type_error(std::string(name) + " must be " + expected + ", not a single " + type_name(items));
  }
}

std::string to_text(py::handle value, const std::string& where) {
  std::string text = to_utf8(value, where);
  if (is_blank_address(text)) throw py::value_error(where + " is empty");
  return text;
}

}  // namespace

std::string to_utf8(py::handle value, const std::string& where) {
  if (!PyUnicode_Check(value.ptr())) throw py::value_error(where + " is not a str (got " + type_name(value) + ")");
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
  if (data == nullptr) {
    // The UnicodeEncodeError's message says which character and where.
    const py::error_already_set error;
    throw py::value_error(where + " is not valid UTF-8: " + std::string(py::str(error.value())));
  }
  return {data, static_cast<std::size_t>(size)};
}

std::vector<std::string> to_texts(py::handle items, const char* name) {
  require_collection(items, name, "an iterable of str");
  std::vector<std::string> out;
  for (py::handle item : py::iter(items)) {
    out.push_back(to_text(item, std::string(name) + "[" + std::to_string(out.size()) + "]"));
  }
  return out;
}

std::vector<AddressPair> to_pairs(py::handle items, const char* name) {
  require_collection(items, name, "an iterable of (addr1, addr2) pairs");
  std::vector<AddressPair> out;
  for (py::handle item : py::iter(items)) {
    const std::string where = std::string(name) + "[" + std::to_string(out.size()) + "]";
    if (PyUnicode_Check(item.ptr()) || PyBytes_Check(item.ptr()) || !PySequence_Check(item.ptr())) {
      throw py::value_error(where + " is not an (addr1, addr2) pair (got " + type_name(item) + ")");
    }
    const auto pair = py::reinterpret_borrow<py::sequence>(item);
    if (pair.size() != 2) {
      throw py::value_error(where + " has " + std::to_string(pair.size()) + " items, not 2 (addr1, addr2)");
    }
    const py::object a = pair[0], b = pair[1];
    out.push_back({to_text(a, where + "[0]"), to_text(b, where + "[1]")});
  }
  return out;
}

py::object to_python(const nlohmann::json& value) {
  using Type = nlohmann::json::value_t;
  switch (value.type()) {
    case Type::null: return py::none();
    case Type::boolean: return py::bool_(value.get<bool>());
    case Type::number_integer: return py::int_(value.get<std::int64_t>());
    case Type::number_unsigned: return py::int_(value.get<std::uint64_t>());
    case Type::number_float: return py::float_(value.get<double>());
    case Type::string: return py::str(value.get_ref<const std::string&>());
    case Type::array: {
      py::list list;
      for (const auto& item : value) list.append(to_python(item));
      return list;
    }
    case Type::object: {
      py::dict dict;
      for (const auto& entry : value.items()) dict[py::str(entry.key())] = to_python(entry.value());
      return dict;
    }
    case Type::binary:
    case Type::discarded: break;
  }
  throw std::logic_error("to_python: a JSON value of no JSON type");
}

}  // namespace geoalign::python
