#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace geoalign::eval {

// Confusion matrix and the usual figures for a labelled run: accuracy, per-class
// precision/recall/F1 and their unweighted (macro) mean.
class ClassificationReport {
 public:
  explicit ClassificationReport(std::vector<std::string> class_names);

  void add(std::size_t gold, std::size_t predicted);

  std::size_t total() const { return total_; }
  double accuracy() const;
  double precision(std::size_t c) const;
  double recall(std::size_t c) const;
  double f1(std::size_t c) const;
  double macro_f1() const;
  std::size_t count(std::size_t gold, std::size_t predicted) const { return matrix_[gold][predicted]; }
  const std::vector<std::string>& class_names() const { return names_; }

 private:
  std::vector<std::string> names_;
  std::vector<std::vector<std::size_t>> matrix_;  // [gold][predicted]
  std::size_t total_ = 0;
};

}  // namespace geoalign::eval
