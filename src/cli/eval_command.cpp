#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/model_options.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/pair_reader.h"
#include "cli/pair_scoring.h"
#include "common/open_file.h"
#include "eval/classification_report.h"
#include "model/label_names.h"
#include "eval/lcs_baseline.h"

namespace geoalign::cli {

namespace {

const std::vector<std::string> kThreeClasses = {"not_match", "partial_match", "exact_match"};
const std::vector<std::string> kTwoClasses = {"no_match", "match"};

// Gold labels as names (English or Chinese) or numbers; -1 if unreadable.
int parse_label(const std::string& text, bool binary) {
  std::string t = text.substr(0, text.find('\t'));
  if (binary) return t == "0" ? 0 : t == "1" ? 1 : -1;
  if (t == "0" || t == "1" || t == "2") return t[0] - '0';
  return model::class_of_label_name(t);
}

nlohmann::json report_json(const eval::ClassificationReport& r) {
  nlohmann::json classes = nlohmann::json::object();
  nlohmann::json matrix = nlohmann::json::array();
  for (std::size_t c = 0; c < r.class_names().size(); ++c) {
    classes[r.class_names()[c]] = {{"precision", r.precision(c)}, {"recall", r.recall(c)}, {"f1", r.f1(c)}};
    nlohmann::json row = nlohmann::json::array();
    for (std::size_t p = 0; p < r.class_names().size(); ++p) row.push_back(r.count(c, p));
    matrix.push_back(row);
  }
  return {{"accuracy", r.accuracy()}, {"macro_f1", r.macro_f1()}, {"classes", classes}, {"confusion", matrix}};
}

void print_report(const char* title, const eval::ClassificationReport& r) {
  std::printf("%s\n  accuracy %.4f   macro-F1 %.4f\n", title, r.accuracy(), r.macro_f1());
  std::printf("  %-15s %9s %9s %9s\n", "class", "precision", "recall", "F1");
  for (std::size_t c = 0; c < r.class_names().size(); ++c) {
    std::printf("  %-15s %9.4f %9.4f %9.4f\n", r.class_names()[c].c_str(), r.precision(c), r.recall(c), r.f1(c));
  }
  std::printf("  confusion (rows gold, columns predicted):\n  %-15s", "");
  for (const auto& name : r.class_names()) std::printf(" %13s", name.c_str());
  std::printf("\n");
  for (std::size_t g = 0; g < r.class_names().size(); ++g) {
    std::printf("  %-15s", r.class_names()[g].c_str());
    for (std::size_t p = 0; p < r.class_names().size(); ++p) std::printf(" %13zu", r.count(g, p));
    std::printf("\n");
  }
}

}  // namespace

int run_eval(int argc, char** argv, int first) {
  Args args("eval",
            {{"data", true, "labelled TSV: addr1<TAB>addr2<TAB>label (names or 0/1/2)", ""},
             kModelOption,
             {"binary", false, "gold labels are 0/1 (same place or not); partial or exact counts as a match", ""},
             {"lcs-thresholds", true, "the LCS baseline's partial,exact cut-offs", "0.31,0.57"},
             kBatchSizeOption,
             kThreadsOption,
             kAliasesOption,
             kPrecisionOption,
             {"json", false, "print JSON instead of tables", ""},
             kHeadOption,
             kOrderedOption,
             kDeviceOption},
            "");
  args.parse(argc, argv, first);
  if (args.flag("help")) {
    std::cout << args.usage();
    return 0;
  }
  if (args.value("data").empty()) throw UsageError("--data FILE is required");
  const bool binary = args.flag("binary");
  eval::LcsThresholds thresholds;
  const std::vector<double> cut_offs = args.reals("lcs-thresholds", 0.0, 1.0);
  if (cut_offs.size() != 2 || cut_offs[0] > cut_offs[1]) {
    throw UsageError("--lcs-thresholds must be PARTIAL,EXACT from 0 to 1 with PARTIAL <= EXACT, got \"" +
                     args.value("lcs-thresholds") + "\"");
  }
  thresholds.partial = cut_offs[0];
  thresholds.exact = cut_offs[1];
  // Usage errors before the data is read, however large it is.
  const std::size_t batch_size = batch_size_option(args);
  threads_option(args);

  std::ifstream in = open_for_reading(args.value("data"), "--data");
  PairReader reader(in, args.value("data"));
  std::vector<AddressPair> pairs;
  std::vector<int> gold;
  std::size_t skipped = 0;
  std::variant<PairRow, BadRow> row;
  while (reader.next(row)) {
    if (const auto* bad = std::get_if<BadRow>(&row)) {
      std::fprintf(stderr, "%s:%zu: %s (skipped)\n", args.value("data").c_str(), bad->line, bad->reason.c_str());
      ++skipped;
      continue;
    }
    const auto& pair = std::get<PairRow>(row);
    const int label = parse_label(pair.rest, binary);
    if (label < 0) {
      std::fprintf(stderr, "%s:%zu: unreadable label \"%s\" (skipped)\n", args.value("data").c_str(), pair.line,
                   pair.rest.c_str());
      ++skipped;
      continue;
    }
    pairs.push_back({pair.a, pair.b});
    gold.push_back(label);
  }
  if (pairs.empty()) throw Error(args.value("data") + " holds no labelled pairs");
  // Same-place files (Shenzhen-style 0/1) read as three classes would score every match
  // as a missed partial_match; say so rather than print a misleading table.
  const bool no_exact = std::find(gold.begin(), gold.end(), 2) == gold.end();
  if (!binary && no_exact && std::find(gold.begin(), gold.end(), 1) != gold.end()) {
    std::fprintf(stderr,
                 "%s: no label is 2 (exact_match); if 1 means \"same place\" here, run with --binary "
                 "(now 1 reads as partial_match)\n",
                 args.value("data").c_str());
  }

  const ScorePairs score_pairs =
      load_pair_scoring(args, batch_size);
  const auto results = score_pairs(pairs);

  const auto& names = binary ? kTwoClasses : kThreeClasses;
  eval::ClassificationReport model_report(names), lcs_report(names);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const MatchResult& r = results[i];
    int predicted = r.p_exact_match >= r.p_partial_match && r.p_exact_match >= r.p_not_match ? 2
                    : r.p_partial_match >= r.p_not_match                                     ? 1
                                                                                             : 0;
    int baseline = eval::lcs_label(eval::lcs_ratio(pairs[i].a, pairs[i].b), thresholds);
    if (binary) {
      predicted = predicted > 0;
      baseline = baseline > 0;
    }
    model_report.add(static_cast<std::size_t>(gold[i]), static_cast<std::size_t>(predicted));
    lcs_report.add(static_cast<std::size_t>(gold[i]), static_cast<std::size_t>(baseline));
  }

  if (args.flag("json")) {
    nlohmann::json out = {{"data", args.value("data")}, {"pairs", pairs.size()}, {"skipped", skipped},
                          {"head", args.value("head")}, {"model", report_json(model_report)},
                          {"lcs_baseline", report_json(lcs_report)}};
    std::cout << out.dump(2) << "\n";
  } else {
    std::printf("%zu labelled pairs from %s (%zu skipped)\n\n", pairs.size(), args.value("data").c_str(), skipped);
    const bool rerank = args.value("head") == "rerank";
    print_report(((rerank ? "rerank head of " : "model ") + model_dir_option(args)).c_str(), model_report);
    std::printf("\n");
    print_report(("LCS baseline (thresholds " + args.value("lcs-thresholds") + ")").c_str(), lcs_report);
  }
  return 0;
}

}  // namespace geoalign::cli
