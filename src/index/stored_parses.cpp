#include "index/stored_parses.h"

#include <string>

#include "geo/tag_set.h"

namespace geoalign::index {

void StoredParses::push_back(std::span<const AddressElement> elements) {
  for (const AddressElement& e : elements) {
    const auto tag = geo::tag_index(e.tag);
    if (!tag) throw Error("element tag \"" + e.tag + "\" is not one of the parser's");
    tags_.push_back(static_cast<std::uint8_t>(*tag));
    starts_.push_back(static_cast<std::uint32_t>(e.start));
    ends_.push_back(static_cast<std::uint32_t>(e.end));
  }
  offsets_.push_back(tags_.size());
}

std::vector<AddressElement> StoredParses::elements(std::size_t r) const {
  std::vector<AddressElement> out;
  out.reserve(offsets_[r + 1] - offsets_[r]);
  for (std::uint64_t i = offsets_[r]; i < offsets_[r + 1]; ++i) {
    AddressElement e;
    e.tag = geo::tag_name(tags_[i]);
    e.start = starts_[i];
    e.end = ends_[i];
    out.push_back(std::move(e));
  }
  return out;
}

void StoredParses::write(BinaryWriter& out) const {
  out.array<std::uint64_t>(offsets_);
  out.array<std::uint8_t>(tags_);
  out.array<std::uint32_t>(starts_);
  out.array<std::uint32_t>(ends_);
}

StoredParses StoredParses::read(BinaryReader& in) {
  StoredParses p;
  p.offsets_ = in.array<std::uint64_t>("parse offsets");
  p.tags_ = in.array<std::uint8_t>("element tags");
  p.starts_ = in.array<std::uint32_t>("element starts");
  p.ends_ = in.array<std::uint32_t>("element ends");
  if (p.offsets_.empty() || p.offsets_.front() != 0 || p.offsets_.back() != p.tags_.size()) {
    in.corrupt("parse offsets do not cover the elements");
  }
  for (std::size_t i = 1; i < p.offsets_.size(); ++i) {
    if (p.offsets_[i] < p.offsets_[i - 1]) in.corrupt("parse offsets out of order");
  }
  if (p.starts_.size() != p.tags_.size() || p.ends_.size() != p.tags_.size()) {
    in.corrupt("element tags, starts and ends differ in number");
  }
  for (std::size_t i = 0; i < p.tags_.size(); ++i) {
    if (p.tags_[i] >= geo::kNumTags) in.corrupt("element " + std::to_string(i) + " has an unknown tag");
    if (p.starts_[i] > p.ends_[i]) in.corrupt("element " + std::to_string(i) + " ends before it starts");
  }
  return p;
}

}  // namespace geoalign::index
