#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/input_file.h"
#include "cli/pair_reader.h"
#include "match/pair_features.h"
#include "runtime/pair_scorer.h"

namespace geoalign::cli {

namespace {

// Rows run through the model together (any order: a row's numbers do not depend on its
// batch neighbours).
constexpr std::size_t kRowsPerBatch = 64;

}  // namespace

// Writes what the match head sees for each pair as TSV: its pair features, the encoder's
// class probabilities (unless the head reads none, or --without-encoder) and for a head in
// canonical order, the pair read in that order and order_swapped; one row per pair with
// any extra input columns (a label) carried over. It runs the scorer's own pipeline
// (normalization included), so a head is trained on exactly what `score` and `serve`
// compute, and a decision can be traced.
int run_features(int argc, char** argv, int first) {
  Args args("features",
            {{"model", true, "model folder; its match head's parser and term weights are used", "models/default"},
             {"parser", true, "for a folder without a match head: the parser folder, relative to --model", "parser"},
             {"term-weights", true, "for a folder without a match head: the idf table, relative to --model",
              "term_weights.tsv"},
             {"order", true,
              "given (each pair as it comes) or canonical (shorter address first, as a head trained in that order "
              "reads pairs; adds the column order_swapped); default: as the folder's match head reads",
              ""},
             {"without-encoder", false,
              "leave out the encoder's probabilities (and do not run it), for a head trained on the pair features "
              "alone; a folder whose match head reads no encoder leaves them out anyway",
              ""}},
            "[FILE|-]  addr1<TAB>addr2[<TAB>label...] rows (default: standard input)");
  args.parse(argc, argv, first);
  if (args.flag("help")) {
    std::cout << args.usage();
    return 0;
  }
  if (args.positional().size() > 1) throw UsageError("at most one input file");
  const std::filesystem::path model_dir = args.value("model");
  auto folder = model::ModelFolder::load(model_dir);
  std::shared_ptr<const match::PairComparer> comparer;
  if (!folder.head) {
    comparer = std::make_shared<const match::PairComparer>(
        match::PairComparer::load(model_dir / args.value("parser"), model_dir / args.value("term-weights")));
  }
  std::optional<bool> canonical;
  if (const std::string order = args.value("order"); !order.empty()) {
    if (order != "given" && order != "canonical") throw UsageError("--order must be given or canonical");
    canonical = order == "canonical";
  }
  const runtime::PairScorer scorer(std::move(folder), comparer, canonical);
  scorer.require_classifier();
  const std::string input = args.positional().empty() ? "-" : args.positional()[0];
  InputFile file(input);
  PairReader reader(file.stream(), file.name());
  model::BertModel::Workspace workspace;

  const std::size_t encoder_columns = args.flag("without-encoder") ? 0 : scorer.encoder_width();
  std::cout << "line";
  for (const auto& name : match::pair_feature_names()) std::cout << '\t' << name;
  for (std::size_t k = 0; k < encoder_columns; ++k) std::cout << "\tencoder_p" << k;
  if (scorer.reads_canonical_order()) std::cout << "\torder_swapped";
  std::cout << "\trest\n";

  std::vector<PairRow> rows;
  auto flush = [&] {
    std::vector<AddressPair> pairs;
    for (const auto& row : rows) pairs.push_back({row.a, row.b});
    const auto encoded = scorer.encode_pairs(pairs, nullptr, 0, /*with_tokens=*/encoder_columns > 0);
    std::vector<const text::EncodedInput*> pointers;
    for (const auto& e : encoded) pointers.push_back(&e);
    std::vector<float> probabilities;
    if (encoder_columns > 0) {
      Tensor on_device;
      scorer.encoder_probabilities(pointers, workspace, on_device);
      probabilities = on_device.to_vector();
    }
    std::string out;
    char number[32];
    for (std::size_t i = 0; i < rows.size(); ++i) {
      out += std::to_string(rows[i].line);
      // Nine significant digits: a float read back exactly, so trees trained on these
      // values split them exactly as geoalign will.
      auto put = [&](float v) {
        std::snprintf(number, sizeof number, "\t%.9g", static_cast<double>(v));
        out += number;
      };
      for (const float v : encoded[i].pair_features) put(v);
      for (std::size_t k = 0; k < encoder_columns; ++k) put(probabilities[i * encoder_columns + k]);
      if (scorer.reads_canonical_order()) out += encoded[i].order_swapped ? "\t1" : "\t0";
      out += '\t';
      out += rows[i].rest;
      out += '\n';
    }
    std::cout << out;
    rows.clear();
  };
  std::size_t bad_rows = 0;
  std::variant<PairRow, BadRow> row;
  while (reader.next(row)) {
    if (const auto* bad = std::get_if<BadRow>(&row)) {
      std::fprintf(stderr, "%s:%zu: %s (skipped)\n", file.name().c_str(), bad->line, bad->reason.c_str());
      ++bad_rows;
      continue;
    }
    rows.push_back(std::move(std::get<PairRow>(row)));
    if (rows.size() == kRowsPerBatch) flush();
  }
  if (!rows.empty()) flush();
  if (bad_rows) std::fprintf(stderr, "%zu rows skipped\n", bad_rows);
  return bad_rows ? 1 : 0;
}

}  // namespace geoalign::cli
