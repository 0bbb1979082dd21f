#include <cstdio>
#include <iostream>
#include <string>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/input_file.h"
#include "cli/line_reader.h"
#include "geoalign/error.h"
#include "match/term_weights.h"
#include "text/unicode.h"

namespace geoalign::cli {

// Counts in how many addresses each character and bigram appears, and writes the term
// weights file the match head's idf-weighted features read (match/term_weights.h).
int run_term_weights(int argc, char** argv, int first) {
  Args args("term-weights",
            {{"min-bigram-count", true, "leave out bigrams seen in fewer addresses (they weigh as unseen)", "2"}},
            "[FILE|-]  one address per line (default: standard input); writes the table to standard output");
  args.parse(argc, argv, first);
  if (args.flag("help")) {
    std::cout << args.usage();
    return 0;
  }
  if (args.positional().size() > 1) throw UsageError("at most one input file");
  const long min_count = args.integer("min-bigram-count", 1, 1L << 40);
  const std::string input = args.positional().empty() ? "-" : args.positional()[0];
  InputFile file(input);
  LineReader lines(file.stream(), file.name());
  match::TermCounter counter;
  std::size_t bad = 0;
  for (InputLine line; lines.next(line);) {
    if (!line.problem.empty()) {
      std::fprintf(stderr, "%s:%zu: %s (skipped)\n", file.name().c_str(), line.number, line.problem.c_str());
      ++bad;
    } else if (!text::unicode::is_blank(line.text)) {
      counter.add_document(line.text);
    }
  }
  if (counter.documents() == 0) throw Error(file.name() + " holds no addresses");
  counter.write(std::cout, static_cast<std::uint64_t>(min_count));
  std::fprintf(stderr, "%llu addresses counted%s\n", static_cast<unsigned long long>(counter.documents()),
               bad ? (", " + std::to_string(bad) + " skipped").c_str() : "");
  return bad ? 1 : 0;
}

}  // namespace geoalign::cli
