#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "geo/flat_u64_map.h"
#include "geo/huge_page_allocator.h"
#include "geo/tag_set.h"
#include "geo/tagger_features.h"
#include "geo/viterbi.h"

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

  // The weight table's layout (public for the per-ISA kernels in sequence_tagger.cpp).
  // A feature's weights: entries_[begin, end), whose first kInline also sit in the
  // feature's own hash slot. Most features vote for two or three labels, so one cache miss
  // finds all their weights, where a separate weight array cost a second, dependent one.
  // Parsing spends most of its time here.
  // Features that vote for many labels (the bias, common characters) are also stored as
  // a dense row of kDenseWidth weights, zero for the labels they never voted for, added
  // with vector instructions: adding 0 changes no sum, so the scores stay those of adding
  // the sparse weights one by one.
  static constexpr std::uint32_t kInline = 3;
  static constexpr std::uint32_t kDenseFrom = 9;
  static constexpr std::size_t kDenseWidth = 96;  // kNumLabels rounded up to 16
  static_assert(kDenseWidth >= kNumLabels && kDenseWidth % 16 == 0);
  static constexpr std::uint32_t kNoDenseRow = ~std::uint32_t{0};
  // 24 bytes, so that a slot with its key is 32: in the shipped tagger's table (over
  // 2 MiB, so aligned to 2 MiB) no slot straddles two cache lines.
  struct Range {
    float weight[kInline] = {};
    Label label[kInline] = {};
    std::uint8_t count = 0;
    std::uint32_t begin = 0;
    std::uint32_t dense = kNoDenseRow;  // row index into dense_
    std::uint32_t end() const { return begin + count; }
  };
  static_assert(sizeof(Range) == 24);
  struct Entry {
    float weight;
    Label label;
  };

 private:
  SequenceTagger() = default;
  // ids: sorted and unique; feature i's weights are [row_begin[i], row_begin[i + 1]) of
  // labels and weights. This is the file's layout.
  void build_index(const std::vector<std::uint64_t>& ids, const std::vector<std::uint32_t>& row_begin,
                   const std::vector<Label>& labels, const std::vector<float>& weights);

  // One bit per 2^-22 of the id space, set where some feature's id falls: a fifth of
  // an address's features are unknown to the tagger, and most of those are rare n-grams
  // whose table slot would be a cache miss. 512 KiB, so it mostly stays in L2.
  static constexpr unsigned kPresenceBits = 22;
  static std::uint64_t presence_bit(std::uint64_t id) { return id >> (64 - kPresenceBits); }
  bool maybe_present(std::uint64_t id) const {
    return (presence_[presence_bit(id) >> 6] >> (presence_bit(id) & 63)) & 1;
  }

  std::vector<float> transitions_;
  std::optional<ViterbiTransitions> decoder_;  // transitions_ laid out for viterbi
  FlatU64Map<Range> features_;
  std::vector<Entry, HugePageAllocator<Entry>> entries_;
  std::vector<float, HugePageAllocator<float>> dense_;
  std::vector<std::uint64_t> presence_;
};

}  // namespace geoalign::geo
