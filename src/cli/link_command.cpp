#include <cstdio>
#include <iostream>
#include <optional>

#include "backend/threads.h"
#include "cli/address_reader.h"
#include "cli/args.h"
#include "cli/build_progress.h"
#include "cli/commands.h"
#include "cli/input_file.h"
#include "cli/labelled_pairs.h"
#include "cli/model_options.h"
#include "cli/output_file.h"
#include "cli/pair_scoring.h"
#include "dedup/threshold_chart.h"
#include "link/link_evaluation.h"
#include "link/linker.h"

namespace geoalign::cli {

namespace {

constexpr const char* kHeader =
    "left_id\tleft_address\tright_id\tright_address\tlabel\tscore\tp_not_match\tp_partial_match\tp_exact_match";

// A table's usable rows (ids, or line numbers for lines without one), every bad line listed
// before a run stops.
std::vector<AddressRow> read_table(const std::string& path, const std::string& on_error,
                                   const engine::Engine& model) {
  BadRows bad_rows(on_error, "link", input_name(path));
  auto rows = name_rows_by_line(read_address_file(path, bad_rows, &model), bad_rows);
  bad_rows.finish();
  if (rows.empty()) throw Error(path + ": no addresses to link");
  return rows;
}

// The right table as an index: the one given (--right-index), or one built in memory from
// --right and, with --index-out, saved there for the next link or search.
index::AddressIndex right_index(const Args& args, const std::filesystem::path& model_dir,
                                const engine::Engine& model, Progress& progress) {
  if (!args.value("right-index").empty()) {
    auto ix = index::AddressIndex::open(args.value("right-index"));
    ix.check_model(model_dir);
    return ix;
  }
  std::vector<index::NewRecord> records;
  for (auto& row : read_table(args.value("right"), args.value("on-error"), model)) {
    records.push_back({std::move(row.id), std::move(row.text)});
  }
  index::AddressIndex ix(model_dir, model);
  StepTimes steps(progress);
  ix.add(model, records, steps.callbacks());
  if (!args.value("index-out").empty()) ix.save(args.value("index-out"));
  return ix;
}

}  // namespace

int run_link(int argc, char** argv, int first) {
  Args args("link",
            {{"left", true, "the addresses to link: one per line, or id<TAB>address", ""},
             {"right", true, "the reference table they link to, in the same format", ""},
             {"right-index", true, "instead of --right: an index folder (geoalign index build) of the reference table", ""},
             {"index-out", true, "with --right: save the reference table's index here, for later links and searches", ""},
             {"out", true, "the links TSV, - for standard output", "-"},
             {"k", true, "matches per left row at most, best first (adds a rank column when above 1)", "1"},
             {"one-to-one", false, "each right row matches one left row at most (greedy, highest P(exact_match) first)", ""},
             {"rerank", true, "candidates per left row rescored by the pair scorer (at least --k)", "50"},
             {"candidates", true, "candidates from each of the lexical and vector searches", "100"},
             {"region", true, "only right rows in this province, city or district (北京市, 深圳市南山区)", ""},
             {"threshold", true, "a match also needs P(exact_match) at least this; with --eval also best-f1, precision>=X or recall>=X, chosen on the labels' curve", ""},
             {"eval", true, "labelled pairs (left address<TAB>right address<TAB>label): report top-1 accuracy, and pairwise precision, recall and F1 over P(exact_match) thresholds 0.05-0.95", ""},
             kCurveOption,
             kOrderedOption,
             kModelOption,
             kPairScorerOption,
             kParserOption,
             kAliasesOption,
             kPrecisionOption,
             kThreadsOption,
             kOnErrorOption},
            "");
  args.parse(argc, argv, first);
  if (args.flag("help")) {
    std::cout << args.usage() << "\nWrites one row per match, left rows in input order:\n  " << kHeader
              << "\nscore is P(exact_match) + 0.5 x P(partial_match), as geoalign score's. A match is a right row the\n"
                 "pair scorer does not call not_match; a left row with none keeps one row with empty match columns.\n";
    return 0;
  }
  const std::string on_error = on_error_option(args);
  if (args.value("left").empty()) throw UsageError("--left is required");
  if (args.value("right").empty() == args.value("right-index").empty()) {
    throw UsageError("give the reference table as --right FILE or as --right-index DIR (one of them)");
  }
  if (!args.value("index-out").empty() && args.value("right").empty()) throw UsageError("--index-out needs --right");
  if (args.value("out").empty()) throw UsageError("--out must name a file, or - for standard output");
  link::LinkOptions options;
  options.k = static_cast<std::size_t>(args.integer("k", 1, 10000));
  options.one_to_one = args.flag("one-to-one");
  options.search.rerank = static_cast<std::size_t>(args.integer("rerank", 1, 10000));
  options.search.candidates = static_cast<std::size_t>(args.integer("candidates", 1, 100000));
  if (options.search.rerank < options.k) throw UsageError("--rerank must be at least --k: every match is a rescored candidate");
  options.search.reading = reading_option(args);
  const ThresholdOption threshold_given = threshold_option(args);
  const std::string& target = threshold_given.target;
  std::optional<float> threshold = threshold_given.value;
  set_num_threads(threads_option(args));

  // The model of the given index, unless told otherwise (check_model refuses a mismatch).
  std::optional<index::AddressIndex> given;
  std::filesystem::path model_dir;
  if (!args.value("right-index").empty() && args.value("model").empty()) {
    given.emplace(index::AddressIndex::open(args.value("right-index")));
    model_dir = given->model_dir();
  } else {
    model_dir = model_dir_option(args);
  }
  const auto model = engine::Engine::load(model_dir, engine_options(args));
  const std::vector<AddressRow> left = read_table(args.value("left"), on_error, *model);
  std::vector<dedup::LabelledPair> labelled;
  if (!args.value("eval").empty()) labelled = read_labelled_pairs(args.value("eval"), *model, "link");
  OutputFile file(args.value("out") == "-" ? "" : args.value("out")), curve_file(args.value("curve"));
  std::ostream& out = file.wanted() ? file.stream : std::cout;

  Progress progress("link", "addresses");
  if (!file.wanted()) progress.off_if_terminal(stdout);
  const index::AddressIndex ix = given ? std::move(*given) : right_index(args, model_dir, *model, progress);
  if (given) ix.check_model(model_dir);
  const index::Searcher searcher(ix, *model);
  if (!args.value("region").empty()) options.search.region = searcher.region_code(args.value("region"));
  std::vector<std::string> texts;
  for (const auto& row : left) texts.push_back(row.text);
  progress.phase("link", texts.size());
  auto matches = link::link_addresses(searcher, texts, options, [&](std::size_t done) { progress.set_done(done); });
  progress.finish();

  // Evaluation reads normalized texts, as the labels are read.
  std::vector<std::vector<link::ProposedLink>> proposed(left.size());
  std::vector<std::string> left_texts, right_texts;
  if (!labelled.empty()) {
    for (std::size_t i = 0; i < left.size(); ++i) {
      left_texts.push_back(model->normalize(left[i].text));
      for (const auto& [record, m] : matches[i]) {
        proposed[i].push_back({left_texts.back(), std::string(ix.normalized(record)), m.p_exact_match});
      }
    }
    for (std::size_t r = 0; r < ix.size(); ++r) right_texts.emplace_back(ix.normalized(r));
  }
  std::vector<dedup::ThresholdPoint> curve;
  if (!labelled.empty()) {
    curve = link::link_curve(proposed, left_texts, right_texts, labelled, dedup::threshold_grid());
    if (!target.empty()) threshold = threshold_given.chosen_on(curve, args.value("eval"));
  }
  if (threshold) {
    for (auto& found : matches) {
      std::erase_if(found, [&](const link::LinkMatch& m) { return m.match.p_exact_match < *threshold; });
    }
  }

  const bool ranked = options.k > 1;
  out << kHeader << (ranked ? "\trank\n" : "\n");
  const auto& labels = model->labels();
  std::size_t linked = 0;
  char numbers[96];
  for (std::size_t i = 0; i < left.size(); ++i) {
    if (matches[i].empty()) {
      out << left[i].id << '\t' << left[i].text << "\t\t\t\t\t\t\t" << (ranked ? "\t\n" : "\n");
      continue;
    }
    ++linked;
    for (std::size_t rank = 0; rank < matches[i].size(); ++rank) {
      const auto& [record, m] = matches[i][rank];
      std::snprintf(numbers, sizeof numbers, "\t%.6f\t%.6f\t%.6f\t%.6f", static_cast<double>(m.score),
                    static_cast<double>(m.p_not_match), static_cast<double>(m.p_partial_match),
                    static_cast<double>(m.p_exact_match));
      out << left[i].id << '\t' << left[i].text << '\t' << ix.id(record) << '\t' << ix.text(record) << '\t'
          << labels.at(m.label_id) << numbers;
      if (ranked) out << '\t' << rank + 1;
      out << '\n';
    }
  }
  if (!out.flush()) throw Error((file.wanted() ? args.value("out") : "standard output") + ": write failed");
  std::fprintf(stderr, "geoalign link: %zu left rows, %zu right rows; %zu linked, %zu without a match%s; %.1f s\n",
               left.size(), ix.size(), linked, left.size() - linked,
               threshold ? (" at P(exact_match) >= " + std::to_string(*threshold).substr(0, 4) +
                            (target.empty() ? "" : " (" + target + " on the labels)"))
                               .c_str()
                         : "",
               progress.seconds());
  if (!labelled.empty()) {
    std::fprintf(stderr, "geoalign link: pairwise quality by P(exact_match) threshold against %s (* the one used):\n%s",
                 args.value("eval").c_str(), dedup::threshold_table(curve, threshold).c_str());
    if (curve_file.wanted()) {
      curve_file.stream << dedup::threshold_chart_svg(curve, threshold, "geoalign link: " + args.value("eval"));
      if (!curve_file.stream.flush()) throw Error(args.value("curve") + ": write failed");
    }
    const link::LinkEvaluation e =
        link::evaluate_links(proposed, left_texts, right_texts, labelled, threshold.value_or(0.0f));
    std::fprintf(stderr,
                 "geoalign link: against %s: top-1 accuracy %.4f (%zu of %zu left rows with a labelled match); "
                 "precision %.4f recall %.4f F1 %.4f (TP %zu FP %zu FN %zu); %zu labelled pairs not in the tables\n",
                 args.value("eval").c_str(), e.top1_accuracy(), e.best_is_a_match, e.with_a_match, e.pairs.precision(),
                 e.pairs.recall(), e.pairs.f1(), e.pairs.true_positives, e.pairs.false_positives,
                 e.pairs.false_negatives, e.pairs.not_in_input);
  }
  return 0;
}

}  // namespace geoalign::cli
