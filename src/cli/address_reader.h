#pragma once

#include <string>
#include <vector>

namespace geoalign::cli {

struct AddressRow {
  std::size_t line = 0;
  std::string id;  // empty when the line gave none
  std::string text;
};

// Reads one address per line, or "id<TAB>address" (a first line "id<TAB>address" is a
// header). Blank lines, empty addresses, extra columns, invalid UTF-8, oversized lines and
// ids seen on an earlier line are bad rows: each is reported on stderr as FILE:LINE:
// reason, then either stops the command (on_error "fail": throws Error) or is skipped
// ("skip"). Nothing is dropped silently.
std::vector<AddressRow> read_address_file(const std::string& path, const std::string& on_error, const char* command);

// Throws UsageError unless on_error is "fail" or "skip".
void check_on_error(const std::string& on_error);

}  // namespace geoalign::cli
