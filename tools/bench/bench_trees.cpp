// One thread's time per row for a head's boosted trees, on feature rows that
// `geoalign features` wrote, with whichever tree kernel the CPU (or GEOALIGN_MAX_ISA) gets:
//
//   build/release/geoalign features pairs.tsv > features.tsv
//   OMP_NUM_THREADS=1 build/release/bench_trees features.tsv [models/default [rerank_head.json]]
//   OMP_NUM_THREADS=1 GEOALIGN_MAX_ISA=baseline build/release/bench_trees features.tsv
//
// Prints rows, the best of five passes in us/row, the ISA, and a checksum of the
// probabilities: kernels that agree to the bit print the same checksum.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "backend/cpu/isa.h"
#include "match/match_head.h"

int main(int argc, char** argv) {
  using namespace geoalign;
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_trees FEATURES.tsv [MODEL_DIR [HEAD_FILE]]\n");
    return 2;
  }
  try {
    const std::string model = argc > 2 ? argv[2] : "models/default";
    const char* head_file = argc > 3 ? argv[3] : match::MatchHead::kRerankFileName;
    const auto head = match::MatchHead::load(model, 3, head_file);
    if (head->uses_encoder()) throw Error(std::string(head_file) + ": reads the encoder's probabilities; use a rerank head");
    const std::size_t width = head->input_names().size();
    std::ifstream in(argv[1]);
    if (!in) throw Error(std::string("cannot read ") + argv[1]);
    std::string line;
    std::getline(in, line);  // the header
    std::vector<std::vector<float>> rows;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string value;
      std::getline(fields, value, '\t');  // the line number
      std::vector<float>& row = rows.emplace_back();
      while (row.size() < width && std::getline(fields, value, '\t')) row.push_back(std::stof(value));
      if (row.size() != width) throw Error(std::string(argv[1]) + ": row " + std::to_string(rows.size()) + " is short");
    }
    const std::vector<std::span<const float>> spans(rows.begin(), rows.end());
    std::vector<float> out(rows.size() * 3);
    double best = 1e30;
    for (int pass = 0; pass < 5; ++pass) {
      const auto start = std::chrono::steady_clock::now();
      head->probabilities(spans, {}, out);
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    double checksum = 0;
    for (std::size_t i = 0; i < out.size(); ++i) checksum += out[i] * static_cast<double>(i % 97 + 1);
    std::printf("%zu rows, %.2f us/row, isa %s, checksum %.9g\n", rows.size(), best * 1e6 / static_cast<double>(rows.size()),
                cpu::isa_name(cpu::active_isa()), checksum);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_trees: %s\n", e.what());
    return 1;
  }
}
