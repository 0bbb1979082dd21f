#include <cstdio>
#include <fstream>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/input_file.h"
#include "cli/pair_reader.h"
#include "geoalign/parser.h"
#include "match/pair_features.h"
#include "model/model_folder.h"
#include "runtime/token_batch.h"

namespace geoalign::cli {

// Writes the match head's pair features as TSV (one row per pair, any extra input
// columns such as a label carried over), for training the head and for looking at why
// a pair scored as it did.
int run_features(int argc, char** argv, int first) {
  Args args("features",
            {{"parser", true, "parser folder (tagger.bin, divisions.tsv)", "models/default/parser"},
             {"term-weights", true, "idf table of characters and bigrams", "models/default/term_weights.tsv"},
            {"model", true, "also print this model's encoder probabilities (before any match head)", ""}},
            "[FILE|-]  addr1<TAB>addr2[<TAB>label...] rows (default: standard input)");
  args.parse(argc, argv, first);
  if (args.flag("help")) {
    std::cout << args.usage();
    return 0;
  }
  if (args.positional().size() > 1) throw UsageError("at most one input file");
  const AddressParser parser = AddressParser::load(args.value("parser"));
  const auto weights = match::TermWeights::load(args.value("term-weights"));
  const std::string input = args.positional().empty() ? "-" : args.positional()[0];
  InputFile file(input);
  PairReader reader(file.stream(), file.name());

  std::optional<model::ModelFolder> encoder;
  if (!args.value("model").empty()) encoder = model::ModelFolder::load(args.value("model"));
  model::BertModel::Workspace workspace;

  std::cout << "line";
  for (const auto& name : match::pair_feature_names()) std::cout << '\t' << name;
  if (encoder) {
    for (std::size_t k = 0; k < encoder->config.bert.labels.size(); ++k) std::cout << "\tencoder_p" << k;
  }
  std::cout << "\trest\n";
  std::size_t bad_rows = 0;
  std::variant<PairRow, BadRow> row;
  char number[32];
  while (reader.next(row)) {
    if (const auto* bad = std::get_if<BadRow>(&row)) {
      std::fprintf(stderr, "%s:%zu: %s (skipped)\n", file.name().c_str(), bad->line, bad->reason.c_str());
      ++bad_rows;
      continue;
    }
    const auto& pair = std::get<PairRow>(row);
    std::vector<float> values = match::pair_features(parser.parse(match::compared_prefix(pair.a)),
                                                      parser.parse(match::compared_prefix(pair.b)), weights);
    if (encoder) {
      const auto& folder = *encoder;
      const text::EncodedInput encoded = folder.tokenizer.encode_pair(
          folder.normalizer.normalize(pair.a), folder.normalizer.normalize(pair.b), folder.config.settings.max_length);
      const text::EncodedInput* one[] = {&encoded};
      Tensor probabilities;
      folder.model.classify(runtime::TokenBatch::pack(one), workspace, probabilities);
      values.insert(values.end(), probabilities.data<float>(), probabilities.data<float>() + probabilities.dim(1));
    }
    std::cout << pair.line;
    // Nine significant digits: a float read back exactly, so trees trained on these
    // values split them exactly as geoalign will.
    for (const float v : values) {
      std::snprintf(number, sizeof number, "\t%.9g", static_cast<double>(v));
      std::cout << number;
    }
    std::cout << '\t' << pair.rest << '\n';
  }
  if (bad_rows) std::fprintf(stderr, "%zu rows skipped\n", bad_rows);
  return bad_rows ? 1 : 0;
}

}  // namespace geoalign::cli
