#include <cstdio>
#include <fstream>
#include <iostream>

#include "cli/model_options.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/input_file.h"
#include "cli/pair_reader.h"
#include "cli/pair_scoring.h"
#include "cli/progress.h"
#include "cli/standard_output.h"
#include "runtime/score_chunks.h"

namespace geoalign::cli {

namespace {

constexpr const char* kHeader = "addr1\taddr2\tlabel\tscore\tp_not_match\tp_partial_match\tp_exact_match\n";

void write_results(const std::vector<PairRow>& rows, const std::vector<MatchResult>& results) {
  std::string out;
  char numbers[160];
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const MatchResult& r = results[i];
    std::snprintf(numbers, sizeof numbers, "\t%.6f\t%.6f\t%.6f\t%.6f\n", static_cast<double>(r.score),
                  static_cast<double>(r.p_not_match), static_cast<double>(r.p_partial_match),
                  static_cast<double>(r.p_exact_match));
    out += rows[i].a;
    out += '\t';
    out += rows[i].b;
    out += '\t';
    out += r.label;
    out += numbers;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
}

}  // namespace

int run_score(int argc, char** argv, int first) {
  Args args("score",
            {kModelOption,
             kPrecisionOption,
             kBatchSizeOption,
             kThreadsOption,
             kAliasesOption,
             kOnErrorOption,
             kHeadOption,
             kOrderedOption,
             kDeviceOption},
            "[FILE|-]");
  args.parse(argc, argv, first);
  if (args.flag("help")) {
    std::cout << args.usage()
              << "\nReads addr1<TAB>addr2 rows and writes one TSV row per pair:\n  " << kHeader
              << "score = P(exact_match) + 0.5 * P(partial_match).\n";
    return 0;
  }
  const std::string on_error = on_error_option(args);
  const auto batch_size = batch_size_option(args);
  if (args.positional().size() > 1) throw UsageError("score reads one input; got " + std::to_string(args.positional().size()));
  const std::string input = args.positional().empty() ? "-" : args.positional()[0];

  const ScorePairs score_pairs = load_pair_scoring(args, batch_size);

  InputFile file(input);
  PairReader reader(file.stream(), file.name());

  std::fputs(kHeader, stdout);
  std::vector<PairRow> chunk;
  std::vector<AddressPair> pairs;
  std::size_t scored = 0, skipped = 0;
  Progress progress("score", "pairs");
  progress.off_if_terminal(stdout);
  auto flush = [&] {
    pairs.clear();
    for (const auto& row : chunk) pairs.push_back({row.a, row.b});
    write_results(chunk, score_pairs(pairs));
    check_standard_output();  // a full disk stops the run at once, not after every pair is scored
    scored += chunk.size();
    // The reader stops at the end of each chunk, so its bytes measure what is scored.
    progress.set_bytes(reader.bytes_read(), file.size());
    progress.advance(chunk.size());
    chunk.clear();
  };

  std::variant<PairRow, BadRow> row;
  while (reader.next(row)) {
    if (auto* bad = std::get_if<BadRow>(&row)) {
      progress.erase_line();
      std::fprintf(stderr, "%s:%zu: %s\n", file.name().c_str(), bad->line, bad->reason.c_str());
      if (on_error == "fail") {
        flush();
        progress.finish();
        std::fprintf(stderr, "geoalign score: stopped at line %zu after %zu pairs (use --on-error skip to go on)\n",
                     bad->line, scored);
        return 1;
      }
      ++skipped;
      continue;
    }
    chunk.push_back(std::move(std::get<PairRow>(row)));
    if (chunk.size() >= runtime::score_chunk_size(batch_size)) flush();
  }
  flush();
  progress.finish();
  std::fprintf(stderr, "geoalign score: %zu pairs scored, %zu bad rows skipped, %.2f s\n", scored, skipped,
               progress.seconds());
  return 0;
}

}  // namespace geoalign::cli
