#pragma once

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

namespace geoalign::testing {

// n random unit vectors of dim floats, row after row, from a seeded generator.
inline std::vector<float> random_unit_vectors(std::size_t n, std::size_t dim, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> rows(n * dim);
  for (std::size_t i = 0; i < n; ++i) {
    float norm = 0;
    for (std::size_t d = 0; d < dim; ++d) norm += (rows[i * dim + d] = normal(rng)) * rows[i * dim + d];
    for (std::size_t d = 0; d < dim; ++d) rows[i * dim + d] /= std::sqrt(norm);
  }
  return rows;
}

}  // namespace geoalign::testing
