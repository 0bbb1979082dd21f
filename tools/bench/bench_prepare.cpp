// One thread's input preparation for the match head, stage by stage: parsing each address,
// then comparing the two parses into pair features. `geoalign bench` gives the total; this
// splits it, and runs long enough to profile (`perf record build/release/bench_prepare`):
//
//   OMP_NUM_THREADS=1 build/release/bench_prepare [PAIRS.tsv [MODEL_DIR [SECONDS]]]
//
// Prints the median round of each stage in us/pair and M chars/s, and a checksum of the
// features: changes that must not move them print the same checksum.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "match/match_head.h"
#include "text/utf8.h"
#include "geoalign/error.h"

namespace {

using Clock = std::chrono::steady_clock;

template <typename Round>
double median_seconds(double budget, Round&& round) {
  round();  // warms the caches
  std::vector<double> rounds;
  const auto start = Clock::now();
  while (rounds.size() < 5 || std::chrono::duration<double>(Clock::now() - start).count() < budget) {
    const auto t = Clock::now();
    round();
    rounds.push_back(std::chrono::duration<double>(Clock::now() - t).count());
  }
  std::nth_element(rounds.begin(), rounds.begin() + static_cast<std::ptrdiff_t>(rounds.size() / 2), rounds.end());
  return rounds[rounds.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace geoalign;
  try {
    const std::string pairs_file = argc > 1 ? argv[1] : "examples/bench_pairs.tsv";
    const std::string model = argc > 2 ? argv[2] : "models/default";
    const double budget = argc > 3 ? std::stod(argv[3]) : 2.0;
    const auto head = match::MatchHead::load(model, 3, match::MatchHead::kFileName);
    const match::PairComparer& comparer = head->comparer();
    std::vector<std::string> a, b;
    FILE* in = std::fopen(pairs_file.c_str(), "r");
    if (!in) throw Error("cannot read " + pairs_file);
    char* line = nullptr;
    std::size_t cap = 0;
    std::size_t chars = 0;
    for (ssize_t len; (len = getline(&line, &cap, in)) > 0;) {
      std::string row(line, static_cast<std::size_t>(len));
      while (!row.empty() && (row.back() == '\n' || row.back() == '\r')) row.pop_back();
      const auto tab = row.find('\t');
      if (tab == std::string::npos || row.rfind("addr1\t", 0) == 0) continue;
      const auto end = row.find('\t', tab + 1);
      a.push_back(row.substr(0, tab));
      b.push_back(row.substr(tab + 1, end == std::string::npos ? std::string::npos : end - tab - 1));
      chars += text::decode_utf8(a.back()).size() + text::decode_utf8(b.back()).size();
    }
    std::free(line);
    std::fclose(in);
    const std::size_t n = a.size();
    if (n == 0) throw Error(pairs_file + ": no pairs");

    std::vector<ParsedAddress> pa(n), pb(n);
    const double parse = median_seconds(budget, [&] {
      for (std::size_t i = 0; i < n; ++i) {
        pa[i] = comparer.parse(a[i]);
        pb[i] = comparer.parse(b[i]);
      }
    });
    double checksum = 0;
    const double compare = median_seconds(budget, [&] {
      checksum = 0;
      for (std::size_t i = 0; i < n; ++i) {
        for (const float f : comparer.features(pa[i], pb[i])) checksum += f;
      }
    });
    const double whole = median_seconds(budget, [&] {
      for (std::size_t i = 0; i < n; ++i) comparer.features(a[i], b[i]);
    });
    auto row = [&](const char* name, double seconds) {
      std::printf("%-22s %8.1f us/pair %7.2f M chars/s\n", name, 1e6 * seconds / static_cast<double>(n),
                  static_cast<double>(chars) / seconds / 1e6);
    };
    std::printf("%zu pairs, %zu characters, one thread\n", n, chars);
    row("parse both", parse);
    row("compare the parses", compare);
    row("features(a, b)", whole);
    std::printf("feature checksum %.6f\n", checksum);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_prepare: %s\n", e.what());
    return 1;
  }
}
