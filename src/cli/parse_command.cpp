#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/stopwatch.h"
#include "cli/input_file.h"
#include "cli/line_reader.h"
#include "cli/progress.h"
#include "cli/span_report.h"
#include "geo/address_parser.h"
#include "geo/conll.h"
#include "geo/parse_json.h"
#include "geo/tagger_eval.h"
#include "geoalign/parser.h"
#include "text/normalize.h"

namespace geoalign::cli {

namespace {

int evaluate(const std::filesystem::path& model, const std::string& file, bool json) {
  const auto gazetteer = geo::Gazetteer::load(model / geo::kGazetteerFile);
  const auto tagger = geo::SequenceTagger::load(model / geo::kTaggerFile);
  // The tagger as `parse` runs it: with the former divisions' names where the folder has them.
  const auto historical_file = model / geo::kHistoricalFile;
  const auto historical = std::filesystem::exists(historical_file) ? geo::HistoricalDivisions::load(historical_file, gazetteer)
                                                                   : geo::HistoricalDivisions();
  const auto data = geo::read_conll_file(file);
  const auto start = Clock::now();
  const auto scores = geo::evaluate_elements(data, gazetteer, tagger, &historical);
  const double seconds = seconds_since(start);
  const double rate = static_cast<double>(data.size()) / std::max(seconds, 1e-9);
  // The rules after the tagger change few tagged addresses: the tagger's own figure beside.
  const double tagger_f1 = geo::evaluate_tagger(data, gazetteer, tagger, &historical).overall().f1();
  if (json) {
    nlohmann::json out = span_report_json(scores);
    out["data"] = file;
    out["addresses"] = data.size();
    out["addresses_per_second"] = rate;
    out["tagger_alone_f1"] = tagger_f1;
    std::cout << out.dump(2) << "\n";
  } else {
    std::printf("%zu tagged addresses from %s, tagged in %.2f s (%.0f addresses/s, one thread); the elements parse reports:\n",
                data.size(), file.c_str(), seconds, rate);
    print_span_report(scores);
    std::printf("the tagger alone, before the rules after it: overall F1 %.4f\n", tagger_f1);
  }
  return 0;
}

}  // namespace

int run_parse(int argc, char** argv, int first) {
  Args args("parse",
            {{"model", true, "parser folder (tagger.bin, divisions.tsv)", "models/default/parser"},
             {"eval", true, "score the elements parse reports on a CoNLL file (token TAG lines) instead of parsing", ""},
             {"json", false, "with --eval: print JSON", ""},
             {"no-guess", false,
              "leave the levels of an ambiguous chain empty; by default they hold its most likely reading and "
              "\"guess\" says how it was chosen",
              ""},
             {"no-normalize", false,
              "parse each line as it is; by default full-width forms become ASCII and invisible characters and "
              "blanks beside Chinese characters are dropped, as geoalign's models do",
              ""}},
            "[FILE|-]  one address per line (default: standard input)");
  args.parse(argc, argv, first);
  if (args.flag("help")) {
    std::cout << args.usage();
    return 0;
  }
  if (!args.value("eval").empty()) {
    if (!args.positional().empty()) throw UsageError("--eval reads its own file; got " + args.positional()[0] + " too");
    return evaluate(args.value("model"), args.value("eval"), args.flag("json"));
  }
  if (args.flag("json")) throw UsageError("--json goes with --eval; parsing always prints JSON lines");
  const ParseOptions options{.guess = !args.flag("no-guess")};
  if (args.positional().size() > 1) throw UsageError("at most one input file");

  const AddressParser parser = AddressParser::load(args.value("model"));
  const text::AddressNormalizer normalizer(args.flag("no-normalize") ? text::NormalizeOptions{}
                                                                     : text::NormalizeOptions::addresses());
  const std::string input = args.positional().empty() ? "-" : args.positional()[0];
  InputFile file(input);
  LineReader lines(file.stream(), file.name());

  Progress progress("parse", "addresses");
  progress.off_if_terminal(stdout);
  std::size_t count = 0, errors = 0;
  // One output line per input line, so outputs can be pasted beside inputs; a bad line
  // gets an error object in its place.
  const auto report = [&](std::size_t number, const std::string& problem) {
    ++errors;
    progress.erase_line();
    std::fprintf(stderr, "%s:%zu: %s\n", file.name().c_str(), number, problem.c_str());
    std::cout << nlohmann::json{{"line", number}, {"error", problem}}.dump() << "\n";
  };
  for (InputLine line; lines.next(line); ++count) {
    progress.set_bytes(lines.bytes_read(), file.size());
    progress.advance(1);
    if (!line.problem.empty()) {
      report(line.number, line.problem);
      continue;
    }
    // "text" in the output is what was parsed: element offsets count its code points.
    try {
      std::cout << geo::parse_json(parser.parse(normalizer.normalize(line.text), options)).dump() << "\n";
    } catch (const Error& e) {  // an address too long to parse: this line's answer, not the run's end
      report(line.number, e.what());
    }
  }
  progress.finish();
  std::fprintf(stderr, "parsed %zu addresses (%zu errors) in %.2f s\n", count - errors, errors, progress.seconds());
  return errors == 0 ? 0 : 1;
}

}  // namespace geoalign::cli
