#pragma once

#include <chrono>
#include <map>
#include <vector>
#include <string>

namespace geoalign::model {

// Accumulates wall time per named stage, in first-seen order, for `geoalign profile`.
// Model code takes a nullable pointer, so an unprofiled run pays one branch per stage.
class StageTimer {
 public:
  using Clock = std::chrono::steady_clock;

  void add(const std::string& stage, double seconds) {
    auto [it, inserted] = totals_.try_emplace(stage, Entry{order_, 0.0});
    if (inserted) ++order_;
    it->second.seconds += seconds;
  }

  // (stage, seconds) in the order stages were first seen.
  std::vector<std::pair<std::string, double>> stages() const {
    std::vector<std::pair<std::string, double>> out(totals_.size());
    for (const auto& [name, e] : totals_) out[e.order] = {name, e.seconds};
    return out;
  }

 private:
  struct Entry {
    std::size_t order;
    double seconds;
  };
  std::map<std::string, Entry> totals_;
  std::size_t order_ = 0;
};

// Times the rest of a scope into a stage when a timer is given.
class ScopedStage {
 public:
  ScopedStage(StageTimer* timer, std::string stage)
      : timer_(timer), stage_(timer ? std::move(stage) : std::string()), start_(StageTimer::Clock::now()) {}
  ~ScopedStage() {
    if (timer_) timer_->add(stage_, std::chrono::duration<double>(StageTimer::Clock::now() - start_).count());
  }
  ScopedStage(const ScopedStage&) = delete;
  ScopedStage& operator=(const ScopedStage&) = delete;

 private:
  StageTimer* timer_;
  std::string stage_;
  StageTimer::Clock::time_point start_;
};

}  // namespace geoalign::model
