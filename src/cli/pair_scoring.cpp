#include "cli/pair_scoring.h"

#include <memory>

#include "cli/model_options.h"
#include "engine/engine.h"

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
  engine::EngineOptions options = engine_options(args);
  options.reading = reading_option(args);
  const std::string model_dir = model_dir_option(args);
  if (options.head == engine::Head::Rerank) {
    if (options.device != "cpu") throw UsageError("--device applies to --head match: the rerank head runs no encoder");
    // Asked for by name, the rerank head must be there: scoring a file with another head
    // would report that head's answers under this one's name.
    engine::require_rerank_head(model_dir);
  }
  std::shared_ptr<const engine::Engine> engine = engine::Engine::load(model_dir, options);
  return [engine, batch_size](std::span<const AddressPair> pairs) { return engine->score(pairs, batch_size); };
}

}  // namespace geoalign::cli
