#include "eval/classification_report.h"

#include <stdexcept>

namespace geoalign::eval {

ClassificationReport::ClassificationReport(std::vector<std::string> class_names)
    : names_(std::move(class_names)), matrix_(names_.size(), std::vector<std::size_t>(names_.size(), 0)) {}

void ClassificationReport::add(std::size_t gold, std::size_t predicted) {
  if (gold >= names_.size() || predicted >= names_.size()) throw std::out_of_range("class index out of range");
  ++matrix_[gold][predicted];
  ++total_;
}

double ClassificationReport::accuracy() const {
  std::size_t right = 0;
  for (std::size_t c = 0; c < names_.size(); ++c) right += matrix_[c][c];
  return total_ ? static_cast<double>(right) / static_cast<double>(total_) : 0.0;
}

double ClassificationReport::precision(std::size_t c) const {
  std::size_t predicted = 0;
  for (std::size_t g = 0; g < names_.size(); ++g) predicted += matrix_[g][c];
  return predicted ? static_cast<double>(matrix_[c][c]) / static_cast<double>(predicted) : 0.0;
}

double ClassificationReport::recall(std::size_t c) const {
  std::size_t gold = 0;
  for (std::size_t p = 0; p < names_.size(); ++p) gold += matrix_[c][p];
  return gold ? static_cast<double>(matrix_[c][c]) / static_cast<double>(gold) : 0.0;
}

double ClassificationReport::f1(std::size_t c) const {
  const double p = precision(c), r = recall(c);
  return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

double ClassificationReport::macro_f1() const {
  double sum = 0;
  for (std::size_t c = 0; c < names_.size(); ++c) sum += f1(c);
  return names_.empty() ? 0.0 : sum / static_cast<double>(names_.size());
}

}  // namespace geoalign::eval
