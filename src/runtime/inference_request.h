#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/request_kind.h"

namespace geoalign::runtime {

// One client request: pairs to score, addresses to embed, or what another kind reads
// (a kind may derive its own request type for its options and results). The batcher
// fills the results and calls `done` exactly once, from one of its threads (an exception
// from `done` is reported on stderr and goes no further).
struct InferenceRequest : std::enable_shared_from_this<InferenceRequest> {
  enum class Outcome { Pending, Ok, TimedOut, Cancelled, Failed };

  virtual ~InferenceRequest() = default;

  const RequestKind* kind = nullptr;  // required: match_kind(), embed_kind() or another
  std::vector<std::string> first;   // addr1 of each pair, or the addresses to embed, or the queries
  std::vector<std::string> second;  // addr2 of each pair (match only)
  Clock::time_point deadline = Clock::time_point::max();
  std::atomic<bool> cancelled{false};  // set when the client has gone
  std::function<void(InferenceRequest&)> done;

  std::vector<MatchResult> matches;
  std::vector<std::vector<float>> vectors;
  std::atomic<std::size_t> tokens_read{0};  // embedding: tokens the encoder read, [CLS] and [SEP] included
  Outcome outcome = Outcome::Pending;
  std::string error;

  std::size_t size() const { return first.size(); }

 private:
  friend class Batcher;
  std::size_t tokenized = 0;  // items handed to the model queue so far (tokenizer thread only)
  std::atomic<std::size_t> remaining{0};
  std::atomic<bool> finished{false};
};

}  // namespace geoalign::runtime
