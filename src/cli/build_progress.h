#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "cli/progress.h"
#include "index/address_index.h"

namespace geoalign::cli {

// Shows the steps of index build and dedup on the progress line and remembers how long
// each took, for the closing summary ("parse 3.1 s, embed 40.2 s, ..."): where the time
// of a long run went.
class StepTimes {
 public:
  explicit StepTimes(Progress& progress) : progress_(progress) {}

  index::BuildProgress callbacks() {
    return {[this](const std::string& step, std::size_t total) {
              close();
              steps_.push_back({step, Clock::now()});
              progress_.phase(step, total);
            },
            [this](std::size_t done) { progress_.set_done(done); }};
  }
  std::string summary() {
    close();
    std::string out;
    char buf[64];
    for (const auto& s : done_) {
      std::snprintf(buf, sizeof buf, "%s%s %.1f s", out.empty() ? "" : ", ", s.first.c_str(), s.second);
      out += buf;
    }
    return out;
  }

 private:
  void close() {
    if (steps_.empty()) return;
    done_.emplace_back(steps_.back().name, seconds_since(steps_.back().start));
    steps_.clear();
  }
  struct Step {
    std::string name;
    Clock::time_point start;
  };
  Progress& progress_;
  std::vector<Step> steps_;
  std::vector<std::pair<std::string, double>> done_;
};

}  // namespace geoalign::cli
