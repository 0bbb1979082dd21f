#include "cli/labelled_pairs.h"

#include <algorithm>
#include <cstdio>
#include <variant>

#include "cli/input_file.h"
#include "cli/pair_reader.h"
#include "model/label_names.h"

namespace geoalign::cli {

std::vector<dedup::LabelledPair> read_labelled_pairs(const std::string& path, const engine::Engine& model,
                                                    const std::string& command) {
  InputFile file(path);
  PairReader reader(file.stream(), file.name());
  std::vector<std::pair<std::string, std::string>> texts;
  std::vector<std::string> labels;
  std::vector<std::size_t> lines;
  std::variant<PairRow, BadRow> row;
  while (reader.next(row)) {
    if (auto* bad = std::get_if<BadRow>(&row)) throw Error(file.name() + ":" + std::to_string(bad->line) + ": " + bad->reason);
    auto& r = std::get<PairRow>(row);
    const std::string label = r.rest.substr(0, r.rest.find('\t'));
    if (label.empty()) throw Error(file.name() + ":" + std::to_string(r.line) + ": no label column");
    texts.emplace_back(model.normalize(r.a), model.normalize(r.b));
    labels.push_back(label);
    lines.push_back(r.line);
  }
  // Label names (English or Chinese, as eval reads them) always say what they mean;
  // numbers are 0/1/2 once a 2 appears, else 0/1.
  const bool three_class = std::any_of(labels.begin(), labels.end(), [](const std::string& l) {
    return l == "2" || model::class_of_label_name(l) >= 0;
  });
  std::fprintf(stderr, "geoalign %s: %s: %s\n", command.c_str(), file.name().c_str(),
               three_class ? "labels read as 0/1/2 (exact_match = one place; partial matches left out)"
                           : "labels read as 0/1 (1 = one place; no label 2 in the file)");
  // The class a label names: 0 not_match, 1 partial_match, 2 exact_match; -1 unreadable.
  const auto class_of = [three_class](const std::string& l) {
    if (const int named = model::class_of_label_name(l); named >= 0) return named;
    if (l == "0") return 0;
    if (l == "1") return three_class ? 1 : 2;  // in a 0/1 file, 1 is one place
    if (l == "2" && three_class) return 2;
    return -1;
  };
  std::vector<dedup::LabelledPair> out;
  for (std::size_t k = 0; k < labels.size(); ++k) {
    const std::string& l = labels[k];
    const int id = class_of(l);
    if (id < 0) {
      throw Error(file.name() + ":" + std::to_string(lines[k]) + ": unknown label \"" + l +
                  "\" (0/1, 0/1/2, or not_match/partial_match/exact_match, or 不匹配/部分匹配/完全匹配)");
    }
    if (id == 1) continue;  // a partial match is neither one place nor two
    const bool match = id == 2;
    out.push_back({std::move(texts[k].first), std::move(texts[k].second), match});
  }
  return out;
}

const Args::Option kCurveOption = {"curve", true, "with --eval: write the curve as an SVG chart to this file", ""};

ThresholdOption threshold_option(const Args& args) {
  ThresholdOption t;
  const std::string& given = args.value("threshold");
  if (!args.value("curve").empty() && args.value("eval").empty()) throw UsageError("--curve needs --eval");
  if (given.empty()) return t;
  if (!dedup::is_threshold_target(given)) {
    t.value = static_cast<float>(args.real("threshold", 0.0, 1.0));  // a number, nothing after it
    return t;
  }
  if (args.value("eval").empty()) throw UsageError("--threshold " + given + " is chosen on labelled pairs: give them with --eval");
  try {
    dedup::choose_threshold({}, given);  // read now, not after the run
  } catch (const Error& e) {
    throw UsageError(std::string("--threshold: ") + e.what());
  }
  t.target = given;
  return t;
}

float ThresholdOption::chosen_on(std::span<const dedup::ThresholdPoint> curve, const std::string& labels_file) const {
  const auto chosen = dedup::choose_threshold(curve, target);
  if (!chosen) throw Error("no threshold from 0.05 to 0.95 reaches " + target + " on " + labels_file);
  return *chosen;
}

}  // namespace geoalign::cli
