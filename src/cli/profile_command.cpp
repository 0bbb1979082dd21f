#include <chrono>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <span>

#include "backend/ops/linear.h"
#include "backend/threads.h"
#include "cli/args.h"
#include "cli/bench_inputs.h"
#include "cli/commands.h"
#include "cli/model_options.h"
#include "model/precision.h"
#include "runtime/pair_scorer.h"

namespace geoalign::cli {

int run_profile(int argc, char** argv, int first) {
  Args args("profile",
            {kModelOption,
             {"input", true, "pairs to run", "examples/bench_pairs.tsv"},
             kBatchSizeOption,
             kThreadsOption,
             kPrecisionOption},
            "");
  args.parse(argc, argv, first);
  if (args.flag("help")) {
    std::cout << args.usage() << "\nTime per stage over the whole input: normalize, tokenize, pack, embeddings, each\n"
                                 "layer's attention and FFN, and the head.\n";
    return 0;
  }
  set_num_threads(threads_option(args));
  const auto batch_size = batch_size_option(args);
  const auto precision = model::resolve_precision(precision_option(args));
  const runtime::PairScorer scorer(model::ModelFolder::load(model_dir_option(args), precision));
  scorer.require_classifier();
  const auto pairs = read_valid_pairs(args.value("input"));

  model::BertModel::Workspace ws;
  std::vector<MatchResult> results;
  // The scorer's own stages, each timed as it runs (over all cores, as in `score`).
  auto run_all = [&](model::StageTimer& timer) {
    for (std::size_t first_pair = 0; first_pair < pairs.size(); first_pair += batch_size) {
      const std::size_t count = std::min(pairs.size() - first_pair, batch_size);
      const auto encoded = scorer.encode_pairs(std::span(pairs).subspan(first_pair, count), &timer);
      std::vector<const text::EncodedInput*> pointers;
      for (const auto& e : encoded) pointers.push_back(&e);
      scorer.classify(pointers, ws, results, &timer);
    }
  };
  // The first pass creates oneDNN's kernels for each batch shape and touches every
  // buffer; timing it would charge that one-time cost to whichever stage ran first.
  model::StageTimer warm_up, timer;
  run_all(warm_up);
  ops::LinearClock::enable(true);
  ops::LinearClock::reset();
  run_all(timer);
  ops::LinearClock::enable(false);

  const auto stages = timer.stages();
  const double total = std::accumulate(stages.begin(), stages.end(), 0.0,
                                       [](double s, const auto& st) { return s + st.second; });
  std::printf("%zu pairs, batch size %zu, %d threads, after one untimed warm-up pass: %.1f ms in all, %.3f ms per pair\n\n", pairs.size(), batch_size,
              num_threads(), 1000 * total, 1000 * total / static_cast<double>(pairs.size()));
  std::printf("%-22s %10s %8s\n", "stage", "ms", "share");
  for (const auto& [name, seconds] : stages) {
    std::printf("%-22s %10.2f %7.1f%%\n", name.c_str(), 1000 * seconds, 100 * seconds / total);
  }
  // Across the attention and FFN rows: what the matrix units do, against the rest.
  const double linear = ops::LinearClock::seconds();
  std::printf("\nof which in linear layers (GEMMs, their epilogues, int8 quantization): %.2f ms, %.1f%%; "
              "everything else %.1f%%\n",
              1000 * linear, 100 * linear / total, 100 * (1 - linear / total));
  return 0;
}

}  // namespace geoalign::cli
