#include "cli/pair_scoring.h"

#include <memory>

#include "backend/threads.h"
#include "cli/model_options.h"
#include "model/folder_aliases.h"
#include "runtime/rerank_scorer.h"

namespace geoalign::cli {

const Args::Option kHeadOption = {"head", true,
                                  "match (the encoder, then the folder's match head if it has one) or rerank (the "
                                  "rerank head alone: no encoder, so --precision and --batch-size do not apply)",
                                  "match"};
const Args::Option kOrderedOption = {"ordered", false,
                                     "read each pair as given (query, then reference), for data of that shape; "
                                     "by default a pair gets one answer whichever address comes first (a folder "
                                     "without a head of its own, such as an MGeo checkpoint, reads pairs as given "
                                     "either way)",
                                     ""};
const Args::Option kDeviceOption = {"device", true,
                                    "where the encoder runs: cpu, or cuda (cuda:0) for the GPU; a GPU that cannot be "
                                    "used is an error, never a fall-back to the CPU",
                                    "cpu"};

ScorePairs load_pair_scoring(const Args& args, std::size_t batch_size) {
  const std::string head = args.value("head");
  MatcherOptions options;
  options.precision = precision_option(args);
  options.threads = threads_option(args);
  device_option(args);  // an unknown device is a usage error, before the model loads
  options.device = args.value("device");
  options.aliases = args.value("aliases");
  options.reading = args.flag("ordered") ? PairReading::Ordered : PairReading::Symmetric;
  if (head == "rerank") {
    if (options.device != "cpu") throw UsageError("--device applies to --head match: the rerank head runs no encoder");
    set_num_threads(options.threads);
    const std::string model_dir = model_dir_option(args);
    auto scorer = std::make_shared<const runtime::RerankScorer>(
        runtime::RerankScorer::load(model_dir, model::load_folder_aliases(model_dir, options.aliases)));
    return [scorer, reading = options.reading](std::span<const AddressPair> pairs) {
      return scorer->score(pairs, reading);
    };
  }
  if (head != "match") throw UsageError("--head must be match or rerank");
  auto matcher = std::make_shared<const Matcher>(Matcher::load(model_dir_option(args), options));
  return [matcher, batch_size](std::span<const AddressPair> pairs) { return matcher->score(pairs, batch_size); };
}

}  // namespace geoalign::cli
