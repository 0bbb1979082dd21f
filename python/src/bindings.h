#pragma once

#include <pybind11/pybind11.h>

// The extension module _geoalign, one function per concern; the geoalign package wraps
// what they define in typed, documented Python.
namespace geoalign::python {

void bind_matcher(pybind11::module_& m);
void bind_parser(pybind11::module_& m);
void bind_index(pybind11::module_& m);
void bind_dedup(pybind11::module_& m);
void bind_dedup_stages(pybind11::module_& m);

}  // namespace geoalign::python

namespace geoalign {
struct DedupTable;
}

namespace geoalign::python {

// A dedup table as the package's columns (dedup.cpp): geoalign.dedup and geoalign.dask share it.
pybind11::dict table_columns(const DedupTable& table);

}  // namespace geoalign::python
