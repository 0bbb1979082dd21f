#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "geoalign/parser.h"
#include "index/binary_file.h"

namespace geoalign::index {

// Each record's parsed elements, as tag and span only (a few bytes an element, about 70
// per address): search completes a stored parse (element texts, admin chain) in a fraction
// of the time the tagger takes to find it again. Texts and the admin chain are left out:
// they follow from the record's text and the gazetteer.
class StoredParses {
 public:
  StoredParses() : offsets_{0} {}

  // Throws Error for a tag the parser does not have.
  void push_back(std::span<const AddressElement> elements);
  std::size_t size() const { return offsets_.size() - 1; }
  // Tag, start and end of record r's elements; the texts are empty.
  std::vector<AddressElement> elements(std::size_t r) const;

  void write(BinaryWriter& out) const;
  static StoredParses read(BinaryReader& in);

 private:
  std::vector<std::uint64_t> offsets_;  // record r's elements are [offsets_[r], offsets_[r + 1])
  std::vector<std::uint8_t> tags_;
  std::vector<std::uint32_t> starts_, ends_;
};

}  // namespace geoalign::index
