#include "dedup/dedup_table.h"

namespace geoalign::dedup {

namespace {
// The result's arrays must agree before they index each other: a front end may hand them
// over from elsewhere (geoalign.dask builds them from its stages' outputs).
void check_consistent(const DedupResult& r) {
  const std::size_t addresses = r.texts.size();
  if (r.cluster.size() != addresses || r.best_match.size() != addresses || r.best_link.size() != addresses) {
    throw Error("dedup table: " + std::to_string(addresses) + " addresses, but " + std::to_string(r.cluster.size()) +
                " clusters, " + std::to_string(r.best_match.size()) + " best matches and " +
                std::to_string(r.best_link.size()) + " best links");
  }
  for (std::size_t i = 0; i < r.address_of_row.size(); ++i) {
    if (r.address_of_row[i] >= addresses) {
      throw Error("dedup table: row " + std::to_string(i) + " names address " + std::to_string(r.address_of_row[i]) +
                  " of " + std::to_string(addresses));
    }
  }
  for (std::size_t a = 0; a < addresses; ++a) {
    if (r.cluster[a] >= addresses) {
      throw Error("dedup table: address " + std::to_string(a) + " is in cluster " + std::to_string(r.cluster[a]) +
                  ", past the last address");
    }
    if (r.best_match[a] < -1 || r.best_match[a] >= static_cast<std::int64_t>(addresses)) {
      throw Error("dedup table: address " + std::to_string(a) + "'s best match " + std::to_string(r.best_match[a]) +
                  " is not an address");
    }
  }
}
}  // namespace

DedupTable dedup_table(const DedupResult& r) {
  check_consistent(r);
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  const std::size_t rows = r.address_of_row.size(), addresses = r.texts.size();
  DedupTable t;
  // Cluster numbers are address numbers (the cluster's smallest), so both fit one array.
  std::vector<std::size_t> first_row_of_cluster(addresses, kNone), rows_in_cluster(addresses, 0);
  std::vector<std::size_t> second_row_of_address(addresses, kNone);
  t.first_row_of_address.assign(addresses, kNone);
  for (std::size_t i = 0; i < rows; ++i) {
    const std::uint32_t a = r.address_of_row[i], c = r.cluster[a];
    if (first_row_of_cluster[c] == kNone) {
      first_row_of_cluster[c] = i;
      ++t.clusters;
    }
    ++rows_in_cluster[c];
    if (t.first_row_of_address[a] == kNone) {
      t.first_row_of_address[a] = i;
    } else if (second_row_of_address[a] == kNone) {
      second_row_of_address[a] = i;
    }
  }
  t.cluster_row.resize(rows);
  t.cluster_size.resize(rows);
  t.best_match_row.assign(rows, -1);
  t.best_match_score.assign(rows, 0.0f);
  for (std::size_t i = 0; i < rows; ++i) {
    const std::uint32_t a = r.address_of_row[i], c = r.cluster[a];
    t.cluster_row[i] = first_row_of_cluster[c];
    t.cluster_size[i] = rows_in_cluster[c];
    // Copies of one address match each other best: the later ones the first, the first
    // the second.
    if (t.first_row_of_address[a] != i) {
      t.best_match_row[i] = static_cast<std::int64_t>(t.first_row_of_address[a]);
      t.best_match_score[i] = 1.0f;
    } else if (second_row_of_address[a] != kNone) {
      t.best_match_row[i] = static_cast<std::int64_t>(second_row_of_address[a]);
      t.best_match_score[i] = 1.0f;
    } else if (r.best_match[a] >= 0 && t.first_row_of_address[static_cast<std::size_t>(r.best_match[a])] != kNone) {
      t.best_match_row[i] = static_cast<std::int64_t>(t.first_row_of_address[static_cast<std::size_t>(r.best_match[a])]);
      t.best_match_score[i] = r.best_link[a];
    }
  }
  return t;
}

}  // namespace geoalign::dedup
