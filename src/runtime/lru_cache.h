#pragma once

#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace geoalign::runtime {

// A thread-safe least-recently-used map with a fixed number of entries (0 disables it).
template <typename Value>
class LruCache {
 public:
  explicit LruCache(std::size_t capacity) : capacity_(capacity) {}
  bool enabled() const { return capacity_ > 0; }

  std::optional<Value> get(const std::string& key) {
    if (capacity_ == 0) return std::nullopt;
    std::lock_guard lock(mutex_);
    const auto it = index_.find(key);
    if (it == index_.end()) return std::nullopt;
    entries_.splice(entries_.begin(), entries_, it->second);
    return it->second->second;
  }

  void put(const std::string& key, const Value& value) {
    if (capacity_ == 0) return;
    std::lock_guard lock(mutex_);
    if (const auto it = index_.find(key); it != index_.end()) {
      it->second->second = value;
      entries_.splice(entries_.begin(), entries_, it->second);
      return;
    }
    entries_.emplace_front(key, value);
    index_[key] = entries_.begin();
    if (entries_.size() > capacity_) {
      index_.erase(entries_.back().first);
      entries_.pop_back();
    }
  }

  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
  }

 private:
  using Entry = std::pair<std::string, Value>;
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::list<Entry> entries_;
  std::unordered_map<std::string, typename std::list<Entry>::iterator> index_;
};

}  // namespace geoalign::runtime
