#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace geoalign::index {
class AddressModel;
}

namespace geoalign::cli {

struct AddressRow {
  std::size_t line = 0;
  std::string id;  // empty when the line gave none
  std::string text;
};

// What a command does with a bad row of its input: each is reported on stderr as
// FILE:LINE: reason, then either stops the command (on_error "fail": throws Error) or is
// skipped ("skip") and counted. Nothing is dropped silently.
class BadRows {
 public:
  // Throws UsageError unless on_error is "fail" or "skip".
  BadRows(std::string on_error, std::string command, std::string file);
  void report(std::size_t line, const std::string& problem);
  // The closing count on stderr, when any row was skipped.
  void summarize() const;

 private:
  std::string on_error_, command_, file_;
  std::size_t skipped_ = 0;
};

// Reads one address per line, or "id<TAB>address" (a first line "id<TAB>address" is a
// header). Blank lines, blank addresses, extra columns, invalid UTF-8, oversized lines, ids
// seen on an earlier line and, given a model, addresses it normalizes to nothing (only a
// phone number) are bad rows.
std::vector<AddressRow> read_address_file(const std::string& path, const std::string& on_error, const char* command,
                                          const index::AddressModel* model = nullptr);

// Why `model` cannot use `text` (blank once normalized, or refused by normalization); empty
// when it can.
std::string normalization_problem(const index::AddressModel& model, const std::string& text);

// Throws UsageError unless on_error is "fail" or "skip".
void check_on_error(const std::string& on_error);

}  // namespace geoalign::cli
