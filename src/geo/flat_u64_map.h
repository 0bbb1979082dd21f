#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "geo/huge_page_allocator.h"

namespace geoalign::geo {

// An open-addressing hash map from 64-bit keys to small values, with linear probing in
// one flat array of {key, value} slots: a lookup costs one cache miss where
// std::unordered_map costs two or three. The parser's hot lookups (tagger features,
// gazetteer trie edges) go through it. Kept at most half full.
template <typename Value>
class FlatU64Map {
 public:
  explicit FlatU64Map(std::size_t expected = 0) { rehash(capacity_for(expected)); }

  // Inserts (key, value) if key is absent. Returns the stored value and whether it was added.
  std::pair<Value*, bool> emplace(std::uint64_t key, Value value) {
    if (key == kEmptyKey) {
      if (has_empty_key_) return {&empty_key_value_, false};
      has_empty_key_ = true;
      empty_key_value_ = value;
      ++size_;
      return {&empty_key_value_, true};
    }
    if (2 * (size_ + 1) > slots_.size()) rehash(2 * slots_.size());
    std::size_t slot = home(key);
    for (; slots_[slot].key != kEmptyKey; slot = (slot + 1) & mask_) {
      if (slots_[slot].key == key) return {&slots_[slot].value, false};
    }
    slots_[slot] = Slot{key, value};
    ++size_;
    return {&slots_[slot].value, true};
  }

  const Value* find(std::uint64_t key) const { return find_from(key, home(key)); }
  Value* find(std::uint64_t key) { return const_cast<Value*>(std::as_const(*this).find(key)); }

  // Removes key's entry, if any; returns whether there was one. The entries after it in
  // its probe run move back over the hole (no tombstones: lookups stay one run long).
  bool erase(std::uint64_t key) {
    if (key == kEmptyKey) {
      if (!has_empty_key_) return false;
      has_empty_key_ = false;
      --size_;
      return true;
    }
    std::size_t hole = home(key);
    for (; slots_[hole].key != key; hole = (hole + 1) & mask_) {
      if (slots_[hole].key == kEmptyKey) return false;
    }
    for (std::size_t next = (hole + 1) & mask_; slots_[next].key != kEmptyKey; next = (next + 1) & mask_) {
      // An entry stays where it is when its home lies cyclically in (hole, next]: moving
      // it back over the hole would put it before its home, where lookups never look.
      const std::size_t h = home(slots_[next].key);
      const bool stays = hole < next ? (hole < h && h <= next) : (hole < h || h <= next);
      if (stays) continue;
      slots_[hole] = slots_[next];
      hole = next;
    }
    slots_[hole] = Slot{};
    --size_;
    return true;
  }

  // For lookups in bulk: take every key's home slot and prefetch it first, then probe,
  // so that the cache misses overlap.
  std::size_t home(std::uint64_t key) const { return mix(key) & mask_; }
  void prefetch(std::size_t home) const { __builtin_prefetch(&slots_[home]); }
  const Value* find_from(std::uint64_t key, std::size_t home) const {
    if (key == kEmptyKey) return has_empty_key_ ? &empty_key_value_ : nullptr;
    for (std::size_t slot = home;; slot = (slot + 1) & mask_) {
      const Slot& s = slots_[slot];
      if (s.key == key) return &s.value;
      if (s.key == kEmptyKey) return nullptr;
    }
  }

  std::size_t size() const { return size_; }

  // Calls f(key, value) for every entry, in no particular order.
  template <typename F>
  void for_each(F&& f) const {
    if (has_empty_key_) f(kEmptyKey, empty_key_value_);
    for (const Slot& s : slots_) {
      if (s.key != kEmptyKey) f(s.key, s.value);
    }
  }

 private:
  // Marks a free slot; an entry with this key lives beside the table.
  static constexpr std::uint64_t kEmptyKey = ~std::uint64_t{0};
  struct Slot {
    std::uint64_t key = kEmptyKey;
    Value value{};
  };

  static std::uint64_t mix(std::uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
  }
  static std::size_t capacity_for(std::size_t entries) { return std::bit_ceil(std::max<std::size_t>(16, 2 * entries)); }

  void rehash(std::size_t capacity) {
    std::vector<Slot, HugePageAllocator<Slot>> old(capacity);
    old.swap(slots_);
    mask_ = capacity - 1;
    for (const Slot& s : old) {
      if (s.key == kEmptyKey) continue;
      std::size_t slot = home(s.key);
      while (slots_[slot].key != kEmptyKey) slot = (slot + 1) & mask_;
      slots_[slot] = s;
    }
  }

  std::vector<Slot, HugePageAllocator<Slot>> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
  bool has_empty_key_ = false;
  Value empty_key_value_{};
};

}  // namespace geoalign::geo
