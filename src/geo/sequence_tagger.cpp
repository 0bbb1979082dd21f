#include "geo/sequence_tagger.h"

#include <algorithm>
#include <bitset>
#include <bit>
#include <cstring>
#include <fstream>

#include "backend/cpu/kernel_targets.h"
#include "common/open_file.h"
#include "geo/viterbi.h"
#include "geoalign/error.h"

namespace geoalign::geo {

namespace {

constexpr char kMagic[8] = {'G', 'A', 'T', 'A', 'G', 'G', 'E', 'R'};
// 2: four labels per tag (B-, I-, E-, S-); version 1 had B- and I- only.
constexpr std::uint32_t kFormatVersion = 2;
constexpr std::size_t kTransitionCount = (kNumLabels + 1) * kNumLabels;

struct Header {
  char magic[8];
  std::uint32_t format_version;
  std::uint32_t feature_version;
  std::uint32_t num_labels;
  std::uint32_t num_features;
  std::uint64_t num_weights;
};

template <typename T>
void write_array(std::ofstream& out, const std::vector<T>& v) {
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
}

using Range = SequenceTagger::Range;
using Entry = SequenceTagger::Entry;
constexpr std::size_t kWidth = SequenceTagger::kDenseWidth;

// Each token's scores: its features' weights added in feature order, into a row as wide as
// the dense rows so that those add in whole vectors, copied out at the end.
__attribute__((always_inline)) inline void sum_weights(const Range* const* found, const std::uint32_t* begin,
                                                       std::size_t tokens, const float* dense, const Entry* entries,
                                                       float* scores) {
  for (std::size_t t = 0; t < tokens; ++t) {
    alignas(64) float row[kWidth] = {};
    for (std::size_t f = begin[t]; f < begin[t + 1]; ++f) {
      const Range* range = found[f];
      if (!range) continue;
      if (range->dense != SequenceTagger::kNoDenseRow) {
        const float* weights = &dense[range->dense * kWidth];
#pragma omp simd aligned(row : 64)
        for (std::size_t y = 0; y < kWidth; ++y) row[y] += weights[y];
        continue;
      }
      const std::uint32_t size = range->count;
      for (std::uint32_t k = 0; k < std::min(size, SequenceTagger::kInline); ++k) row[range->label[k]] += range->weight[k];
      for (std::uint32_t e = range->begin + SequenceTagger::kInline; e < range->end(); ++e) {
        row[entries[e].label] += entries[e].weight;
      }
    }
    std::copy_n(row, kNumLabels, scores + t * kNumLabels);
  }
}

using SumKernel = void (*)(const Range* const*, const std::uint32_t*, std::size_t, const float*, const Entry*, float*);
void sum_baseline(const Range* const* r, const std::uint32_t* b, std::size_t n, const float* d, const Entry* e,
                  float* s) {
  sum_weights(r, b, n, d, e, s);
}
GEOALIGN_TARGET_AVX2 void sum_avx2(const Range* const* r, const std::uint32_t* b, std::size_t n, const float* d,
                                   const Entry* e, float* s) {
  sum_weights(r, b, n, d, e, s);
}
GEOALIGN_TARGET_AVX512 void sum_avx512(const Range* const* r, const std::uint32_t* b, std::size_t n, const float* d,
                                       const Entry* e, float* s) {
  sum_weights(r, b, n, d, e, s);
}

}  // namespace

SequenceTagger::SequenceTagger(std::vector<float> transitions, std::vector<FeatureWeights> features)
    : transitions_(std::move(transitions)) {
  if (transitions_.size() != kTransitionCount) throw Error("tagger: wrong number of transition weights");
  std::sort(features.begin(), features.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  std::vector<std::uint64_t> ids;
  std::vector<std::uint32_t> row_begin{0};
  std::vector<Label> labels;
  std::vector<float> weights;
  for (auto& f : features) {
    if (!ids.empty() && ids.back() == f.id) throw Error("tagger: duplicate feature id");
    ids.push_back(f.id);
    for (const auto& [label, weight] : f.weights) {
      if (label >= kNumLabels) throw Error("tagger: label out of range");
      labels.push_back(label);
      weights.push_back(weight);
    }
    row_begin.push_back(static_cast<std::uint32_t>(labels.size()));
  }
  build_index(ids, row_begin, labels, weights);
}

void SequenceTagger::build_index(const std::vector<std::uint64_t>& ids, const std::vector<std::uint32_t>& row_begin,
                                 const std::vector<Label>& labels, const std::vector<float>& weights) {
  decoder_.emplace(transitions_);
  dense_.clear();
  features_ = FlatU64Map<Range>(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    Range range;
    if (row_begin[i + 1] - row_begin[i] > 255) throw Error("tagger: a feature with more than 255 weights");
    range.begin = row_begin[i];
    range.count = static_cast<std::uint8_t>(row_begin[i + 1] - row_begin[i]);
    for (std::uint32_t k = 0; k < kInline && range.begin + k < range.end(); ++k) {
      range.weight[k] = weights[range.begin + k];
      range.label[k] = labels[range.begin + k];
    }
    // (A feature that lists a label twice keeps its sparse form: a dense row would add
    // the two weights in another order.)
    std::bitset<kNumLabels> voted;
    bool once_each = true;
    for (std::uint32_t e = range.begin; e < range.end() && once_each; ++e) {
      once_each = !voted.test(labels[e]);
      voted.set(labels[e]);
    }
    if (range.count >= kDenseFrom && once_each) {
      range.dense = static_cast<std::uint32_t>(dense_.size() / kDenseWidth);
      dense_.resize(dense_.size() + kDenseWidth, 0.0f);
      for (std::uint32_t e = range.begin; e < range.end(); ++e) dense_[range.dense * kDenseWidth + labels[e]] = weights[e];
    }
    features_.emplace(ids[i], range);
  }
  entries_.resize(labels.size());
  for (std::size_t e = 0; e < entries_.size(); ++e) entries_[e] = Entry{weights[e], labels[e]};
  presence_.assign(std::size_t{1} << (kPresenceBits - 6), 0);
  for (const std::uint64_t id : ids) presence_[presence_bit(id) >> 6] |= std::uint64_t{1} << (presence_bit(id) & 63);
}

std::vector<float> SequenceTagger::emissions(const TokenFeatures& features) const {
  std::vector<float> scores(features.tokens() * kNumLabels, 0.0f);
  // Three passes over all the address's features, so that the table's cache misses
  // overlap instead of queuing behind one another: a probe's loop branch depends on the
  // loaded slot, and each mispredicted exit used to hold back the next lookup.
  const std::size_t count = features.ids.size();
  constexpr std::size_t kAbsent = ~std::size_t{0};
  std::vector<std::size_t> home(count);
  for (std::size_t f = 0; f < count; ++f) {
    // Without a branch here (the probe pass below skips absent ids): which ids are
    // absent is as random as the ids, and a mispredicted skip in this pass held back the
    // prefetches behind it. An absent id prefetches slot 0, which stays cached.
    const bool present = maybe_present(features.ids[f]);
    const std::size_t slot = features_.home(features.ids[f]);
    home[f] = present ? slot : kAbsent;
    features_.prefetch(present ? slot : 0);
  }
  std::vector<const Range*> found(count, nullptr);
  for (std::size_t f = 0; f < count; ++f) {
    if (home[f] == kAbsent) continue;
    found[f] = features_.find_from(features.ids[f], home[f]);
    const Range* range = found[f];
    if (!range) continue;
    if (range->dense != kNoDenseRow) {
      __builtin_prefetch(&dense_[range->dense * kDenseWidth]);
    } else if (range->count > kInline) {
      __builtin_prefetch(&entries_[range->begin + kInline]);
    }
  }
  const SumKernel kernel = cpu::pick_kernel<SumKernel>(sum_baseline, sum_avx2, sum_avx512);
  kernel(found.data(), features.begin.data(), features.tokens(), dense_.data(), entries_.data(), scores.data());
  return scores;
}

std::vector<Label> SequenceTagger::tag(const TokenFeatures& features) const {
  return viterbi(emissions(features), *decoder_);
}

void SequenceTagger::save(const std::filesystem::path& file) const {
  // Back to the file's layout: features by id, each one's weights in table order.
  std::vector<std::pair<std::uint64_t, Range>> used;
  used.reserve(features_.size());
  features_.for_each([&](std::uint64_t id, const Range& range) { used.emplace_back(id, range); });
  std::sort(used.begin(), used.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::uint64_t> ids;
  std::vector<std::uint32_t> row_begin{0};
  std::vector<float> weights;
  std::vector<Label> labels;
  for (const auto& [id, range] : used) {
    ids.push_back(id);
    for (std::uint32_t e = range.begin; e < range.end(); ++e) {
      weights.push_back(entries_[e].weight);
      labels.push_back(entries_[e].label);
    }
    row_begin.push_back(static_cast<std::uint32_t>(labels.size()));
  }
  std::ofstream out = open_for_writing(file, "tagger");
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.format_version = kFormatVersion;
  h.feature_version = kFeatureVersion;
  h.num_labels = kNumLabels;
  h.num_features = static_cast<std::uint32_t>(ids.size());
  h.num_weights = labels.size();
  out.write(reinterpret_cast<const char*>(&h), sizeof h);
  write_array(out, transitions_);
  write_array(out, ids);
  write_array(out, row_begin);
  write_array(out, weights);
  write_array(out, labels);
  if (!out.flush()) throw Error("write error on " + file.string());
}

SequenceTagger SequenceTagger::load(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::ifstream in = open_for_reading(file, "tagger");
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<std::uint64_t>(in.tellg());
  in.seekg(0);
  Header h{};
  if (file_size < sizeof h || !in.read(reinterpret_cast<char*>(&h), sizeof h)) {
    throw Error(name + ": truncated (no header)");
  }
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) throw Error(name + ": not a geoalign tagger file");
  if (h.format_version != kFormatVersion) {
    throw Error(name + ": format version " + std::to_string(h.format_version) + ", this build reads " +
                std::to_string(kFormatVersion) +
                (h.format_version < kFormatVersion ? " (a tagger from an older geoalign: train it again with train-parser)" : ""));
  }
  if (h.feature_version != kFeatureVersion) {
    throw Error(name + ": trained on feature version " + std::to_string(h.feature_version) + ", this build extracts " +
                std::to_string(kFeatureVersion) + "; retrain it with 'geoalign train-parser'");
  }
  if (h.num_labels != kNumLabels) throw Error(name + ": " + std::to_string(h.num_labels) + " labels, expected " + std::to_string(kNumLabels));
  // Each weight takes five bytes: a count beyond the file's size is damage, and would
  // overflow the size it implies.
  if (h.num_weights > file_size) {
    throw Error(name + ": the header claims " + std::to_string(h.num_weights) + " weights in a file of " +
                std::to_string(file_size) + " bytes (corrupt)");
  }
  const std::uint64_t expected = sizeof h + kTransitionCount * sizeof(float) + std::uint64_t{h.num_features} * 8 +
                                 (std::uint64_t{h.num_features} + 1) * 4 + h.num_weights * (sizeof(float) + 1);
  if (expected != file_size) {
    throw Error(name + ": " + std::to_string(file_size) + " bytes, the header implies " + std::to_string(expected) +
                " (truncated or corrupt)");
  }
  SequenceTagger t;
  auto read_array = [&](auto& v, std::size_t count) {
    v.resize(count);
    in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(count * sizeof(v[0])));
    if (!in) throw Error(name + ": read error");
  };
  std::vector<std::uint64_t> ids;
  std::vector<std::uint32_t> row_begin;
  std::vector<float> weights;
  std::vector<Label> labels;
  read_array(t.transitions_, kTransitionCount);
  read_array(ids, h.num_features);
  read_array(row_begin, std::size_t{h.num_features} + 1);
  read_array(weights, h.num_weights);
  read_array(labels, h.num_weights);
  if (row_begin.front() != 0 || row_begin.back() != h.num_weights || !std::is_sorted(row_begin.begin(), row_begin.end())) {
    throw Error(name + ": corrupt feature rows");
  }
  if (std::adjacent_find(row_begin.begin(), row_begin.end(), [](auto a, auto b) { return b - a > 255; }) !=
      row_begin.end()) {
    throw Error(name + ": a feature with more than 255 weights");
  }
  if (std::adjacent_find(ids.begin(), ids.end(), [](auto a, auto b) { return a >= b; }) != ids.end()) {
    throw Error(name + ": feature ids are not sorted and unique");
  }
  if (std::any_of(labels.begin(), labels.end(), [](Label l) { return l >= kNumLabels; })) {
    throw Error(name + ": label out of range");
  }
  auto not_finite = [](float w) { return !(w == w) || w > 3e38f || w < -3e38f; };
  if (std::any_of(weights.begin(), weights.end(), not_finite) ||
      std::any_of(t.transitions_.begin(), t.transitions_.end(), not_finite)) {
    throw Error(name + ": weights are not finite");
  }
  t.build_index(ids, row_begin, labels, weights);
  return t;
}

}  // namespace geoalign::geo
