#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <utility>
#include <vector>

#include "geo/flat_u64_map.h"
#include "geo/huge_page_allocator.h"
#include "geo/tag_set.h"
#include "geo/tagger_features.h"

namespace geoalign::geo {

// A linear-chain tagger over hashed features: each feature holds weights for the few
// labels it ever voted for, and label pairs hold transition weights. Immutable and
// thread-safe once built.
class SequenceTagger {
 public:
  struct FeatureWeights {
    std::uint64_t id = 0;
    std::vector<std::pair<Label, float>> weights;
  };

  // transitions: (kNumLabels + 1) x kNumLabels, the last row scoring the first label.
  SequenceTagger(std::vector<float> transitions, std::vector<FeatureWeights> features);

  // Throws Error naming the file for a wrong magic, version, size or out-of-range value.
  static SequenceTagger load(const std::filesystem::path& file);
  void save(const std::filesystem::path& file) const;

  std::vector<Label> tag(const TokenFeatures& features) const;
  // Per-token label scores, tokens x kNumLabels (what tag() decodes).
  std::vector<float> emissions(const TokenFeatures& features) const;

  std::size_t num_features() const { return features_.size(); }
  std::size_t num_weights() const { return entries_.size(); }

 private:
  SequenceTagger() = default;
  // ids: sorted and unique; feature i's weights are [row_begin[i], row_begin[i + 1]) of
  // labels and weights. This is the file's layout.
  void build_index(const std::vector<std::uint64_t>& ids, const std::vector<std::uint32_t>& row_begin,
                   const std::vector<Label>& labels, const std::vector<float>& weights);

  // Each feature's weight range in entries_, whose weights sit beside their labels: a
  // feature costs about two cache misses. Parsing spends most of its time here.
  struct Range {
    std::uint32_t begin = 0, end = 0;
  };
  struct Entry {
    float weight;
    Label label;
  };

  std::vector<float> transitions_;
  FlatU64Map<Range> features_;
  std::vector<Entry, HugePageAllocator<Entry>> entries_;
};

}  // namespace geoalign::geo
