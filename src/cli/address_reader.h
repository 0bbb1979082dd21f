#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace geoalign::engine {
class Engine;
}

namespace geoalign::cli {

struct AddressRow {
  std::size_t line = 0;
  std::string id;  // empty when the line gave none (until name_rows_by_line)
  std::string text;
  bool named_by_line = false;  // the id is the line number: the line gave none
};

// What a command does with the bad rows of its input: each is reported on stderr as
// FILE:LINE: reason (the first kShown of them, then a count of the rest), and once the
// whole file has been read, finish() either stops the command (on_error "fail": throws
// Error naming how many) or says how many were skipped ("skip"). Every bad line is listed
// before a run stops, so that one pass finds them all; nothing is dropped silently.
class BadRows {
 public:
  static constexpr std::size_t kShown = 20;
  // Throws UsageError unless on_error is "fail" or "skip".
  BadRows(std::string on_error, std::string command, std::string file);
  void report(std::size_t line, const std::string& problem);
  // Throws Error when on_error is "fail" and any row was bad; else the closing count on
  // stderr, when any row was skipped.
  void finish() const;

 private:
  std::string on_error_, command_, file_;
  std::size_t bad_ = 0, first_line_ = 0;
};

// Reads one address per line, or "id<TAB>address" (a first line "id<TAB>address" is a
// header). Blank lines, blank addresses, extra columns, invalid UTF-8, oversized lines, ids
// seen on an earlier line and, given a model, addresses it normalizes to nothing (only a
// phone number) are bad rows, reported to bad_rows and left out.
std::vector<AddressRow> read_address_file(const std::string& path, BadRows& bad_rows,
                                          const engine::Engine* model = nullptr);

// Names each row without an id by its line number (the CLI's one rule for such rows, in
// index and dedup alike: a line the user can find). A row whose line number another row
// gives as its id would share its name: it is a bad row, reported and left out.
std::vector<AddressRow> name_rows_by_line(std::vector<AddressRow> rows, BadRows& bad_rows);

// Why `model` cannot use `text` (blank once normalized, or refused by normalization); empty
// when it can.
std::string normalization_problem(const engine::Engine& model, const std::string& text);

}  // namespace geoalign::cli
