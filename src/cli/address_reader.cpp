#include "cli/address_reader.h"

#include <cstdio>
#include <unordered_map>
#include <unordered_set>

#include "backend/cpu/parallel.h"
#include "cli/args.h"
#include "cli/input_file.h"
#include "cli/line_reader.h"
#include "cli/model_options.h"
#include "geoalign/error.h"
#include "engine/engine.h"
#include "text/markup.h"
#include "text/unicode.h"

namespace geoalign::cli {

BadRows::BadRows(std::string on_error, std::string command, std::string file)
    : on_error_(std::move(on_error)), command_(std::move(command)), file_(std::move(file)) {
  check_on_error(on_error_);
}

void BadRows::report(std::size_t line, const std::string& problem) {
  if (bad_ < kShown) std::fprintf(stderr, "%s:%zu: %s\n", file_.c_str(), line, problem.c_str());
  if (bad_ == 0 || line < first_line_) first_line_ = line;
  ++bad_;
}

void BadRows::finish() const {
  if (bad_ == 0) return;
  if (bad_ > kShown) std::fprintf(stderr, "%s: %zu more bad lines not shown\n", file_.c_str(), bad_ - kShown);
  if (on_error_ == "fail") {
    throw Error(command_ + " stopped: " + std::to_string(bad_) + (bad_ == 1 ? " bad line" : " bad lines") + " in " +
                file_ + ", the first on line " + std::to_string(first_line_) + " (use --on-error skip to go on)");
  }
  std::fprintf(stderr, "geoalign %s: %zu bad lines of %s skipped\n", command_.c_str(), bad_, file_.c_str());
}

std::string normalization_problem(const engine::Engine& model, const std::string& text) {
  try {
    return model.normalize(text).empty() ? "the address is blank after normalization" : "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::vector<AddressRow> read_address_file(const std::string& path, BadRows& bad_rows, const engine::Engine* model) {
  InputFile file(path);
  LineReader reader(file.stream(), file.name());
  std::vector<AddressRow> rows;
  std::vector<std::string> problems;
  InputLine line;
  while (reader.next(line)) {
    std::string problem = line.problem;
    AddressRow row{line.number, {}, {}, false};
    if (problem.empty()) {
      const auto tab = line.text.find('\t');
      if (tab == std::string::npos) {
        row.text = line.text;
      } else if (line.text.find('\t', tab + 1) != std::string::npos) {
        problem = "more than two columns (expected address or id<TAB>address)";
      } else {
        row.id = line.text.substr(0, tab);
        row.text = line.text.substr(tab + 1);
        if (line.number == 1 && row.id == "id" && row.text == "address") continue;
        if (row.id.empty()) problem = "empty id";
      }
    }
    if (problem.empty() && text::is_blank_address(row.text)) problem = "empty address";
    rows.push_back(std::move(row));
    problems.push_back(std::move(problem));
  }
  // Normalization is the costly check: it runs on every core, and its problems are then
  // reported in line order with the others.
  if (model) {
    cpu::parallel_for_dynamic(static_cast<std::int64_t>(rows.size()), 256, [&](std::int64_t i) {
      const auto k = static_cast<std::size_t>(i);
      if (problems[k].empty()) problems[k] = normalization_problem(*model, rows[k].text);
    });
  }
  std::unordered_map<std::string, std::size_t> id_lines;
  std::vector<AddressRow> usable;
  usable.reserve(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    AddressRow& row = rows[k];
    if (problems[k].empty() && !row.id.empty()) {
      const auto [it, fresh] = id_lines.emplace(row.id, row.line);
      if (!fresh) problems[k] = "id \"" + row.id + "\" already used on line " + std::to_string(it->second);
    }
    if (problems[k].empty()) {
      usable.push_back(std::move(row));
    } else {
      bad_rows.report(row.line, problems[k]);
    }
  }
  return usable;
}

std::vector<AddressRow> name_rows_by_line(std::vector<AddressRow> rows, BadRows& bad_rows) {
  std::unordered_set<std::string> given;
  for (const auto& row : rows) {
    if (!row.id.empty()) given.insert(row.id);
  }
  std::vector<AddressRow> named;
  named.reserve(rows.size());
  for (auto& row : rows) {
    if (row.id.empty()) {
      row.id = std::to_string(row.line);
      row.named_by_line = true;
      if (given.count(row.id)) {
        bad_rows.report(row.line, "this line has no id, and its line number is another line's id; give every line an id");
        continue;
      }
    }
    named.push_back(std::move(row));
  }
  return named;
}

}  // namespace geoalign::cli
