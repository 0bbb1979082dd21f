#include "geo/sequence_tagger.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>

#include "geo/viterbi.h"
#include "geoalign/error.h"

namespace geoalign::geo {

namespace {

constexpr char kMagic[8] = {'G', 'A', 'T', 'A', 'G', 'G', 'E', 'R'};
constexpr std::uint32_t kFormatVersion = 1;
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

std::uint64_t mix(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h;
}

}  // namespace

SequenceTagger::SequenceTagger(std::vector<float> transitions, std::vector<FeatureWeights> features)
    : transitions_(std::move(transitions)) {
  if (transitions_.size() != kTransitionCount) throw Error("tagger: wrong number of transition weights");
  std::sort(features.begin(), features.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  row_begin_.push_back(0);
  for (auto& f : features) {
    if (!ids_.empty() && ids_.back() == f.id) throw Error("tagger: duplicate feature id");
    ids_.push_back(f.id);
    for (const auto& [label, weight] : f.weights) {
      if (label >= kNumLabels) throw Error("tagger: label out of range");
      entry_labels_.push_back(label);
      entry_weights_.push_back(weight);
    }
    row_begin_.push_back(static_cast<std::uint32_t>(entry_labels_.size()));
  }
  build_index();
}

void SequenceTagger::build_index() {
  const std::size_t capacity = std::bit_ceil(std::max<std::size_t>(16, 2 * ids_.size()));
  slots_.assign(capacity, Slot{});
  for (std::size_t i = 0; i < ids_.size(); ++i) {
    std::size_t slot = mix(ids_[i]) & (capacity - 1);
    while (slots_[slot].begin != Slot::kEmpty) slot = (slot + 1) & (capacity - 1);
    slots_[slot] = Slot{ids_[i], row_begin_[i], row_begin_[i + 1]};
  }
  entries_.resize(entry_labels_.size());
  for (std::size_t e = 0; e < entries_.size(); ++e) entries_[e] = Entry{entry_weights_[e], entry_labels_[e]};
}

const SequenceTagger::Slot* SequenceTagger::find_from(std::uint64_t id, std::size_t home) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t slot = home;; slot = (slot + 1) & mask) {
    const Slot& s = slots_[slot];
    if (s.begin == Slot::kEmpty) return nullptr;
    if (s.id == id) return &s;
  }
}

std::vector<float> SequenceTagger::emissions(const TokenFeatures& features) const {
  std::vector<float> scores(features.tokens() * kNumLabels, 0.0f);
  // Three passes over all the address's features, so that the table's cache misses
  // overlap instead of queuing behind one another: a probe's loop branch depends on the
  // loaded slot, and each mispredicted exit used to hold back the next lookup.
  const std::size_t count = features.ids.size();
  const std::size_t mask = slots_.size() - 1;
  std::vector<std::uint32_t> home(count);
  for (std::size_t f = 0; f < count; ++f) {
    home[f] = static_cast<std::uint32_t>(mix(features.ids[f]) & mask);
    __builtin_prefetch(&slots_[home[f]]);
  }
  std::vector<const Slot*> found(count);
  for (std::size_t f = 0; f < count; ++f) {
    found[f] = find_from(features.ids[f], home[f]);
    if (found[f]) __builtin_prefetch(&entries_[found[f]->begin]);
  }
  for (std::size_t t = 0; t < features.tokens(); ++t) {
    float* row = &scores[t * kNumLabels];
    for (std::size_t f = features.begin[t]; f < features.begin[t + 1]; ++f) {
      if (!found[f]) continue;
      for (std::uint32_t e = found[f]->begin; e < found[f]->end; ++e) row[entries_[e].label] += entries_[e].weight;
    }
  }
  return scores;
}

std::vector<Label> SequenceTagger::tag(const TokenFeatures& features) const {
  return viterbi(emissions(features), transitions_);
}

void SequenceTagger::save(const std::filesystem::path& file) const {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("cannot write " + file.string());
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.format_version = kFormatVersion;
  h.feature_version = kFeatureVersion;
  h.num_labels = kNumLabels;
  h.num_features = static_cast<std::uint32_t>(ids_.size());
  h.num_weights = entry_labels_.size();
  out.write(reinterpret_cast<const char*>(&h), sizeof h);
  write_array(out, transitions_);
  write_array(out, ids_);
  write_array(out, row_begin_);
  write_array(out, entry_weights_);
  write_array(out, entry_labels_);
  if (!out.flush()) throw Error("write error on " + file.string());
}

SequenceTagger SequenceTagger::load(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error("cannot open tagger " + name);
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
                std::to_string(kFormatVersion));
  }
  if (h.feature_version != kFeatureVersion) {
    throw Error(name + ": trained on feature version " + std::to_string(h.feature_version) + ", this build extracts " +
                std::to_string(kFeatureVersion) + "; retrain it with 'geoalign train-parser'");
  }
  if (h.num_labels != kNumLabels) throw Error(name + ": " + std::to_string(h.num_labels) + " labels, expected 42");
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
  read_array(t.transitions_, kTransitionCount);
  read_array(t.ids_, h.num_features);
  read_array(t.row_begin_, std::size_t{h.num_features} + 1);
  read_array(t.entry_weights_, h.num_weights);
  read_array(t.entry_labels_, h.num_weights);
  if (t.row_begin_.front() != 0 || t.row_begin_.back() != h.num_weights ||
      !std::is_sorted(t.row_begin_.begin(), t.row_begin_.end())) {
    throw Error(name + ": corrupt feature rows");
  }
  if (std::adjacent_find(t.ids_.begin(), t.ids_.end(), [](auto a, auto b) { return a >= b; }) != t.ids_.end()) {
    throw Error(name + ": feature ids are not sorted and unique");
  }
  if (std::any_of(t.entry_labels_.begin(), t.entry_labels_.end(), [](Label l) { return l >= kNumLabels; })) {
    throw Error(name + ": label out of range");
  }
  auto not_finite = [](float w) { return !(w == w) || w > 3e38f || w < -3e38f; };
  if (std::any_of(t.entry_weights_.begin(), t.entry_weights_.end(), not_finite) ||
      std::any_of(t.transitions_.begin(), t.transitions_.end(), not_finite)) {
    throw Error(name + ": weights are not finite");
  }
  t.build_index();
  return t;
}

}  // namespace geoalign::geo
