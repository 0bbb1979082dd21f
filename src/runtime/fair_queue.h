#pragma once

#include <cstddef>
#include <deque>
#include <unordered_map>
#include <utility>

namespace geoalign::runtime {

// Items of many owners (requests), served one owner at a time in turn: each pop takes the
// next item of the owner whose turn it is, and that owner goes to the back of the line.
// A request with a thousand items waiting delays one with a single item by one item,
// not by a thousand. Not thread-safe.
template <typename Owner, typename Item>
class FairQueue {
 public:
  void push(const Owner& owner, Item item) {
    auto [it, added] = items_.try_emplace(owner);
    if (it->second.empty()) turns_.push_back(owner);
    it->second.push_back(std::move(item));
    ++size_;
  }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  // Requires !empty().
  Item pop() {
    const Owner owner = turns_.front();
    turns_.pop_front();
    auto it = items_.find(owner);
    Item item = std::move(it->second.front());
    it->second.pop_front();
    if (it->second.empty()) {
      items_.erase(it);
    } else {
      turns_.push_back(owner);
    }
    --size_;
    return item;
  }

 private:
  std::unordered_map<Owner, std::deque<Item>> items_;  // owners with items waiting
  std::deque<Owner> turns_;                            // each owner in items_ once, next first
  std::size_t size_ = 0;
};

}  // namespace geoalign::runtime
