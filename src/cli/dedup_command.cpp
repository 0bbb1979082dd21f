#include <cstdio>
#include <fstream>
#include <iostream>

#include "backend/threads.h"
#include "cli/address_reader.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/input_file.h"
#include "cli/model_options.h"
#include "cli/output_file.h"
#include "cli/labelled_pairs.h"
#include "cli/pair_reader.h"
#include "cli/build_progress.h"
#include "common/open_file.h"
#include "dedup/blocking.h"
#include "dedup/pair_evaluation.h"
#include "dedup/dedup_table.h"
#include "dedup/threshold_chart.h"
#include "model/label_names.h"

namespace geoalign::cli {

namespace {

constexpr const char* kHeader = "id\taddress\tcluster_id\tcluster_size\tbest_match_id\tbest_match_score\n";


// Which pairs a pairs file lists and with what: --explain, the pairs inside a cluster and
// what joined each (its own link reaching the threshold, or average linkage through the
// cluster's other members: a not_match pair can sit inside a cluster whose members link
// it on average, and without a word of why that reads as a bug);
// --scored-pairs and --missed, every pair with its link and whether it ended in one cluster.
enum class PairsFile { InsideClusters, AllWithLinks };

void write_pairs(OutputFile& file, PairsFile kind, std::span<const dedup::PairEvidence> pairs,
                 const dedup::DedupResult& r, const dedup::DedupTable& table, const std::vector<std::string>& ids,
                 const std::vector<std::string>& labels, dedup::MergeRule rule) {
  auto id_of_address = [&](std::uint32_t a) -> const std::string& { return ids[table.first_row_of_address[a]]; };
  std::ostream& out = file.stream;
  out << "id_a\tid_b\taddress_a\taddress_b\tlabel\tp_not_match\tp_partial_match\tp_exact_match"
      << (kind == PairsFile::AllWithLinks ? "\tlink\tsame_cluster\n" : "\tjoined_by\n");
  char numbers[128];
  for (const auto& e : pairs) {
    const bool together = r.cluster[e.a] == r.cluster[e.b];
    if (!together && kind == PairsFile::InsideClusters) continue;
    std::snprintf(numbers, sizeof numbers, "\t%.6f\t%.6f\t%.6f", static_cast<double>(e.p_not_match),
                  static_cast<double>(e.p_partial_match), static_cast<double>(e.p_exact_match));
    out << id_of_address(e.a) << '\t' << id_of_address(e.b) << '\t' << r.texts[e.a] << '\t' << r.texts[e.b] << '\t'
        << labels.at(e.label_id) << numbers;
    const float link = dedup::link_of(e, rule);
    if (kind == PairsFile::AllWithLinks) {
      std::snprintf(numbers, sizeof numbers, "\t%.6f\t%d", static_cast<double>(link), together ? 1 : 0);
      out << numbers;
    } else {
      out << (link >= r.threshold ? "\town_link" : "\taverage_linkage");
    }
    out << '\n';
  }
  if (!out.flush()) throw Error(file.path + ": write failed");
}

}  // namespace

int run_dedup(int argc, char** argv, int first) {
  Args args("dedup",
            {kModelOption,
             {"input", true, "addresses: one per line, or id<TAB>address", ""},
             {"out", true, "clusters TSV, - for standard output", "-"},
             {"threshold", true, "mean link two clusters need to merge (default: the one the model's head was trained to, else 0.5); with --eval also best-f1, precision>=X or recall>=X, chosen on the labels' curve", ""},
             {"merge", true, "what joins two addresses: exact (exact_match) or partial (exact or partial_match)", "exact"},
             {"neighbours", true, "candidates per address from each of the lexical and vector searches", "20"},
             {"explain", true, "write every scored pair inside a cluster to this TSV, with what joined it: its own link at the threshold (own_link) or average linkage through the cluster's other members (average_linkage)", ""},
             {"scored-pairs", true, "write every scored pair, with its link and whether it ended in one cluster, to this TSV", ""},
             {"eval", true, "labelled pairs (addr1<TAB>addr2<TAB>label): report pairwise precision, recall, F1, and their curve over thresholds 0.05-0.95", ""},
             kCurveOption,
             kPairScorerOption,
             kParserOption,
             kAliasesOption,
             {"exhaustive-check", false, "also score every pair (up to 20,000 addresses) and report the share of linked pairs blocking proposed", ""},
             {"missed", true, "with --exhaustive-check: write the linked pairs blocking did not propose to this TSV", ""},
             kPrecisionOption,
             kThreadsOption,
             kOnErrorOption},
            "");
  args.parse(argc, argv, first);
  if (args.flag("help")) {
    std::cout << args.usage() << "\nWrites one row per input row, in input order:\n  " << kHeader
              << "cluster_id is the id of the cluster's first row; lines without an id are named by their line number.\n";
    return 0;
  }
  on_error_option(args);
  if (args.value("input").empty()) throw UsageError("--input is required");
  if (args.value("out").empty()) throw UsageError("--out must name a file, or - for standard output");
  dedup::DedupOptions options;
  options.rule = dedup::parse_merge_rule(args.value("merge"));
  options.neighbours = static_cast<std::size_t>(args.integer("neighbours", 1, static_cast<long>(dedup::kMaxNeighbours)));
  options.exhaustive_check = args.flag("exhaustive-check");
  if (!args.value("missed").empty() && !options.exhaustive_check) throw Error("--missed needs --exhaustive-check");
  const ThresholdOption threshold = threshold_option(args);
  const std::string& target = threshold.target;
  if (threshold.value) {
    options.threshold = threshold.value;
    if (!(*options.threshold > 0.0f)) throw UsageError("--threshold must be in (0, 1]");  // 1e-50 is 0 as a float
  }
  set_num_threads(threads_option(args));

  Progress progress("dedup", "addresses");
  const auto model = engine::Engine::load(model_dir_option(args), engine_options(args));
  std::vector<std::string> ids, texts;
  {
    // Every bad line is listed before a run stops; a line without an id is named by its line number.
    BadRows bad_rows(args.value("on-error"), "dedup", input_name(args.value("input")));
    for (auto& row : name_rows_by_line(read_address_file(args.value("input"), bad_rows, model.get()), bad_rows)) {
      ids.push_back(std::move(row.id));
      texts.push_back(std::move(row.text));
    }
    bad_rows.finish();
    if (ids.empty()) throw Error(args.value("input") + ": no addresses to deduplicate");
  }
  // Labels are read, and outputs opened, before the long work, so that a bad label file or
  // an output path that cannot be written fails at once.
  std::vector<dedup::LabelledPair> labelled;
  if (!args.value("eval").empty()) labelled = read_labelled_pairs(args.value("eval"), *model, "dedup");
  const bool to_stdout = args.value("out") == "-";
  OutputFile file(to_stdout ? "" : args.value("out")), explain(args.value("explain")),
      scored_pairs(args.value("scored-pairs")), missed(args.value("missed")), curve_file(args.value("curve"));
  StepTimes steps(progress);
  const index::BuildProgress callbacks = steps.callbacks();
  dedup::DedupResult r = dedup::deduplicate(*model, texts, options, callbacks);
  // The curve over thresholds, and a threshold chosen on it, before anything is written.
  std::vector<dedup::ThresholdPoint> curve;
  if (!labelled.empty()) {
    callbacks.begin("curve", 0);
    curve = dedup::threshold_curve(*model, r, labelled, dedup::threshold_grid());
    if (!target.empty()) dedup::cluster_again(*model, r, threshold.chosen_on(curve, args.value("eval")));
  }
  const std::string step_times = steps.summary();
  progress.finish();

  const dedup::DedupTable table = dedup::dedup_table(r);
  std::ostream& out = to_stdout ? std::cout : file.stream;
  out << kHeader;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    out << ids[i] << '\t' << texts[i] << '\t' << ids[table.cluster_row[i]] << '\t' << table.cluster_size[i] << '\t';
    if (table.best_match_row[i] >= 0) {
      char score[32];
      std::snprintf(score, sizeof score, "%.6f", static_cast<double>(table.best_match_score[i]));
      out << ids[static_cast<std::size_t>(table.best_match_row[i])] << '\t' << score;
    } else {
      out << '\t';
    }
    out << '\n';
  }
  if (!out.flush()) throw Error(args.value("out") + ": write failed");
  const auto& labels = model->labels();
  if (explain.wanted()) write_pairs(explain, PairsFile::InsideClusters, r.scored, r, table, ids, labels, options.rule);
  if (scored_pairs.wanted()) write_pairs(scored_pairs, PairsFile::AllWithLinks, r.scored, r, table, ids, labels, options.rule);
  if (missed.wanted()) write_pairs(missed, PairsFile::AllWithLinks, r.exhaustive_missed, r, table, ids, labels, options.rule);
  const std::string threshold_source = !target.empty()                                           ? target + " on the labels"
                                       : options.threshold                                         ? "given"
                                       : model->link_threshold(dedup::merge_rule_name(options.rule)) ? "the head's default"
                                                                                                     : "the default";
  std::fprintf(stderr,
               "geoalign dedup: %zu rows, %zu distinct addresses, %zu candidate pairs, %zu scored, %zu clusters at "
               "threshold %.2f (%s), %.1f s (%s)\n",
               ids.size(), r.texts.size(), r.candidates.size(), r.scored.size(), table.clusters,
               static_cast<double>(r.threshold), threshold_source.c_str(), progress.seconds(), step_times.c_str());
  if (options.exhaustive_check) {
    std::fprintf(stderr,
                 "geoalign dedup: exhaustive scoring links %zu pairs; blocking proposed %zu of them (%.4f); %zu pairs "
                 "across stated provinces or cities not scored\n",
                 r.exhaustive_links, r.exhaustive_links_blocked,
                 r.exhaustive_links ? static_cast<double>(r.exhaustive_links_blocked) / static_cast<double>(r.exhaustive_links) : 1.0,
                 r.exhaustive_region_conflicts);
  }
  if (!args.value("eval").empty()) {
    std::fprintf(stderr, "geoalign dedup: pairwise quality by threshold against %s (* the one used):\n%s",
                 args.value("eval").c_str(), dedup::threshold_table(curve, r.threshold).c_str());
    if (curve_file.wanted()) {
      curve_file.stream << dedup::threshold_chart_svg(curve, r.threshold, "geoalign dedup: " + args.value("eval"));
      if (!curve_file.stream.flush()) throw Error(args.value("curve") + ": write failed");
    }
    const dedup::PairwiseScores s = dedup::evaluate(r, labelled);
    std::fprintf(stderr,
                 "geoalign dedup: against %s: precision %.4f recall %.4f F1 %.4f (TP %zu FP %zu FN %zu); candidate recall "
                 "%.4f; %zu labelled pairs not in the input\n",
                 args.value("eval").c_str(), s.precision(), s.recall(), s.f1(), s.true_positives, s.false_positives,
                 s.false_negatives, s.candidate_recall(), s.not_in_input);
  }
  return 0;
}

}  // namespace geoalign::cli
