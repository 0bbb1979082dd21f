#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/stopwatch.h"
#include "cli/span_report.h"
#include "geo/address_parser.h"
#include "geo/conll.h"
#include "geo/tagger_eval.h"
#include "geo/tagger_training.h"

namespace geoalign::cli {

int run_train_parser(int argc, char** argv, int first) {
  Args args("train-parser",
            {{"train", true, "tagged addresses, CoNLL (token TAG per line, blank line between addresses)", ""},
             {"dev", true, "tagged addresses scored after every epoch (optional)", ""},
             {"gazetteer", true, "divisions.tsv to train with and copy into --out",
              std::string("models/default/parser/") + geo::kGazetteerFile},
             {"out", true, "parser folder to write (tagger.bin, divisions.tsv)", ""},
             {"algorithm", true, "crf (linear-chain CRF, as the shipped tagger) or perceptron (averaged structured perceptron, about 10x faster to train)", "crf"},
             {"epochs", true, "passes over the training data", "10"},
             {"seed", true, "shuffling seed", "1"},
             {"learning-rate", true, "crf: the first step of its gradient ascent", "0.1"},
             {"prune", true, "crf: weights no larger than this are left out of the tagger", "0.01"}},
            "");
  args.parse(argc, argv, first);
  if (args.flag("help")) {
    std::cout << args.usage();
    return 0;
  }
  if (args.value("train").empty() || args.value("out").empty()) throw UsageError("--train FILE and --out DIR are required");
  // Everything that can be wrong with the options is found before the training, not after it.
  const std::filesystem::path out = args.value("out");
  if (std::filesystem::exists(out) && !std::filesystem::is_directory(out)) {
    throw UsageError("--out " + out.string() + " exists and is not a folder");
  }
  geo::TaggerTrainingOptions options;
  options.epochs = static_cast<int>(args.integer("epochs", 1, 1000));
  options.seed = static_cast<std::uint64_t>(args.integer("seed", 0, 1L << 62));
  const std::string algorithm = args.value("algorithm");
  if (algorithm == "crf") {
    options.algorithm = geo::TaggerAlgorithm::kCrf;
  } else if (algorithm != "perceptron") {
    throw UsageError("--algorithm must be perceptron or crf, not '" + algorithm + "'");
  }
  options.learning_rate = args.real("learning-rate", 1e-6, 100.0);
  options.prune = args.real("prune", 0.0, 1e6);
  const auto start = Clock::now();

  const geo::Gazetteer gazetteer = geo::Gazetteer::load(args.value("gazetteer"));
  const auto train = geo::read_conll_file(args.value("train"));
  const auto dev = args.value("dev").empty() ? std::vector<geo::TaggedAddress>() : geo::read_conll_file(args.value("dev"));
  std::vector<geo::TaggedSequence> sequences;
  sequences.reserve(train.size());
  for (const auto& address : train) sequences.push_back({geo::extract_features(address.tokens, gazetteer), address.labels});
  std::fprintf(stderr, "%zu training addresses, %zu dev; features extracted in %.1f s\n", train.size(), dev.size(),
               seconds_since(start));

  options.on_epoch = [&](int epoch, const geo::SequenceTagger& tagger) {
    std::fprintf(stderr, "epoch %d/%d  %.1f s", epoch, options.epochs, seconds_since(start));
    if (!dev.empty()) std::fprintf(stderr, "  dev span F1 %.4f", geo::evaluate_tagger(dev, gazetteer, tagger).overall().f1());
    std::fprintf(stderr, "\n");
  };
  const geo::SequenceTagger tagger = geo::train_tagger(sequences, options);

  std::filesystem::create_directories(out);
  tagger.save(out / geo::kTaggerFile);
  const std::filesystem::path gazetteer_copy = out / geo::kGazetteerFile;
  if (!std::filesystem::exists(gazetteer_copy) ||
      !std::filesystem::equivalent(gazetteer_copy, args.value("gazetteer"))) {
    std::filesystem::copy_file(args.value("gazetteer"), gazetteer_copy, std::filesystem::copy_options::overwrite_existing);
  }
  std::printf("wrote %s: %zu features, %zu weights, %.1f MB (%.1f s)\n", (out / geo::kTaggerFile).string().c_str(),
              tagger.num_features(), tagger.num_weights(),
              static_cast<double>(std::filesystem::file_size(out / geo::kTaggerFile)) / 1e6, seconds_since(start));
  if (!dev.empty()) {
    std::printf("dev (%s):\n", args.value("dev").c_str());
    print_span_report(geo::evaluate_tagger(dev, gazetteer, tagger));
  }
  return 0;
}

}  // namespace geoalign::cli
