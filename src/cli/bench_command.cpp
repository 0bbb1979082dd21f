#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "backend/memory.h"
#include "backend/ops/linear.h"
#include "backend/threads.h"
#include "cli/args.h"
#include "cli/bench_inputs.h"
#include "cli/commands.h"
#include "cli/model_options.h"
#include "cli/pair_scoring.h"
#include "cli/stopwatch.h"
#include "model/precision.h"
#include "runtime/flop_count.h"
#include "runtime/pair_scorer.h"
#include "text/utf8.h"

namespace geoalign::cli {

namespace {

std::vector<std::size_t> parse_sizes(const Args& args) {
  std::vector<std::size_t> out;
  for (const std::string& item : args.list("batch-sizes")) {
    char* end = nullptr;
    const unsigned long v = std::strtoul(item.c_str(), &end, 10);
    if (*end != '\0' || v == 0 || v > 65536) {
      throw UsageError("--batch-sizes must be comma-separated whole numbers from 1 to 65536, got \"" +
                       args.value("batch-sizes") + "\"");
    }
    out.push_back(v);
  }
  return out;
}

// The backend's linear-layer throughput in `precision` at an encoder-sized shape (2048
// tokens through the FFN's first layer): the ceiling that the model's effective GFLOP/s
// in that precision is compared against.
double measure_gemm_gflops(std::int64_t hidden, std::int64_t inner, ops::MatmulPrecision precision, Device device) {
  const std::int64_t rows = 2048;
  Tensor weight({inner, hidden}), bias({inner}), x({rows, hidden}), y;
  std::fill_n(weight.data<float>(), weight.numel(), 0.01f);
  std::fill_n(bias.data<float>(), bias.numel(), 0.0f);
  std::fill_n(x.data<float>(), x.numel(), 1.0f);
  const ops::Linear linear(weight.to(device), bias.to(device), ops::Activation::None, precision);
  x = x.to(device);
  linear(x, y);  // first call pays for setup
  synchronize(device);
  const auto start = Clock::now();
  int runs = 0;
  do {
    linear(x, y);
    ++runs;
    synchronize(device);  // a GPU queues the work: count it done only when it is
  } while (seconds_since(start) < 0.5);
  return 2.0 * static_cast<double>(rows * hidden * inner) * runs / seconds_since(start) / 1e9;
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p / 100.0 * static_cast<double>(v.size() - 1) + 0.5))];
}

// One thread's speed over `chars` characters of input: the median of at least five rounds
// and one second, after an untimed round. One cold pass moved by 30% from run to run.
template <typename Round>
double chars_per_second_of_rounds(std::size_t chars, Round&& round) {
  round();
  std::vector<double> rounds;
  const auto start = Clock::now();
  while (rounds.size() < 5 || seconds_since(start) < 1.0) {
    const auto t = Clock::now();
    round();
    rounds.push_back(static_cast<double>(chars) / seconds_since(t));
  }
  return percentile(rounds, 50);
}

}  // namespace

int run_bench(int argc, char** argv, int first) {
  Args args("bench",
            {kModelOption,
             {"input", true, "pairs whose lengths to use", "examples/bench_pairs.tsv"},
             {"batch-sizes", true, "batch sizes to measure", "1,4,8,16,32,64,128"},
             {"precision", true, "precisions to measure, comma-separated", "fp32,bf16,int8"},
             {"seconds", true, "measured time per batch size", "3"},
             kThreadsOption,
             kDeviceOption,
             {"json", false, "print JSON instead of a table", ""}},
            "");
  args.parse(argc, argv, first);
  if (args.flag("help")) {
    std::cout << args.usage()
              << "\nModel time per batch on pre-tokenized pairs (tokenization is measured apart), with the\n"
                 "effective GFLOP/s as a share of the backend's measured GEMM throughput in the same\n"
                 "precision. bf16 runs natively only with AVX512-BF16 or AMX (elsewhere it is fp32\n"
                 "arithmetic on bf16-rounded weights), int8 at full speed only with VNNI or AMX.\n";
    return 0;
  }
  const Device device = device_option(args);
  require_device(device);  // fail before measuring anything
  std::vector<Precision> precisions;
  for (const std::string& p : args.list("precision")) precisions.push_back(precision_value(p));
  if (device != Device::CPU && std::find(precisions.begin(), precisions.end(), Precision::INT8) != precisions.end()) {
    throw UsageError("int8 has no CUDA kernel: measure --precision fp32,bf16 on the GPU");
  }
  const auto sizes = parse_sizes(args);
  const double budget = static_cast<double>(args.integer("seconds", 1, 3600));
  set_num_threads(threads_option(args));
  const auto pairs = read_valid_pairs(args.value("input"));
  const std::string model_dir = model_dir_option(args);

  nlohmann::json rows = nlohmann::json::array();
  double tokenize_chars_per_second = 0, prepare_chars_per_second = 0;
  nlohmann::json peaks = nlohmann::json::object();
  bool decision_reads_encoder = true;
  for (const Precision requested : precisions) {
    const auto precision = model::resolve_precision(requested, device);
    const runtime::PairScorer scorer(model::ModelFolder::load(model_dir, precision, device));
    scorer.require_classifier();
    decision_reads_encoder = scorer.runs_encoder();

    // Input preparation on one thread, measured apart from the model: tokenization alone
    // (normalize + WordPiece), then everything encode_pair does (with a match head, also
    // parsing both addresses and comparing them).
    // Each is the median round over the input, after a first round that warms the caches.
    std::size_t chars = 0;
    for (const auto& p : pairs) chars += text::decode_utf8(p.a).size() + text::decode_utf8(p.b).size();
    if (tokenize_chars_per_second == 0) {  // the same in every precision
      tokenize_chars_per_second = chars_per_second_of_rounds(chars, [&] {
        for (const auto& p : pairs) scorer.tokenize(scorer.normalize(p.a, p.b));
      });
      prepare_chars_per_second = chars_per_second_of_rounds(chars, [&] {
        for (const auto& p : pairs) scorer.encode_pair(p.a, p.b);
      });
    }
    std::vector<text::EncodedInput> encoded;
    for (const auto& p : pairs) encoded.push_back(scorer.encode_pair(p.a, p.b));
    const auto& config = scorer.folder().config.bert;
    const std::string name = precision_name(model::precision_of(precision));
    if (!peaks.contains(name)) peaks[name] = measure_gemm_gflops(config.hidden_size, config.intermediate_size, precision, device);
    const double peak = peaks[name].get<double>();

    model::BertModel::Workspace ws;
    std::vector<MatchResult> results;
    std::size_t next = 0;
    for (std::size_t batch_size : sizes) {
      std::vector<double> latencies;
      double flops = 0;
      std::size_t done = 0;
      const auto run_batch = [&](bool counted) {
        std::vector<const text::EncodedInput*> batch;
        for (std::size_t k = 0; k < batch_size; ++k) batch.push_back(&encoded[next++ % encoded.size()]);
        const auto t = Clock::now();
        // The encoder's pass, which the GFLOP/s count, then the decision. A match head on
        // the pair features alone decides without it (score runs no encoder then), but the
        // encoder is what embedding and a folder without such a head run, so it is measured.
        Tensor probabilities;
        scorer.encoder_probabilities(batch, ws, probabilities);
        scorer.decide(batch, scorer.runs_encoder() ? probabilities.to_vector() : std::vector<float>{}, results);
        const double seconds = seconds_since(t);
        if (counted) {
          flops += runtime::classification_flops(config, batch);
          done += batch_size;
        }
        return seconds;
      };
      const auto start = Clock::now();
      while (seconds_since(start) < budget || latencies.size() < 3) {
        latencies.push_back(run_batch(true));
      }
      // The share spent in linear layers comes from batches of its own: its clock waits for
      // a GPU to finish before and after every layer, which would slow the batches above.
      ops::LinearClock::enable(true);
      ops::LinearClock::reset();
      double clocked = 0;
      for (std::size_t round = 0; round < 3 && (round == 0 || clocked < budget / 4); ++round) clocked += run_batch(false);
      ops::LinearClock::enable(false);
      double total = 0;
      for (double l : latencies) total += l;
      rows.push_back({{"precision", precision_name(model::precision_of(precision))},
                      {"batch_size", batch_size},
                      {"ms_per_pair", 1000 * total / static_cast<double>(done)},
                      {"pairs_per_second", static_cast<double>(done) / total},
                      {"p50_batch_ms", 1000 * percentile(latencies, 50)},
                      {"p99_batch_ms", 1000 * percentile(latencies, 99)},
                      {"gflops", flops / total / 1e9},
                      {"share_of_gemm_peak", flops / total / 1e9 / peak},
                      {"share_outside_linear_layers", std::max(0.0, 1 - ops::LinearClock::seconds() / clocked)}});
    }
  }

  nlohmann::json out = {{"model", model_dir},
                        {"threads", num_threads()},
                        {"pairs", pairs.size()},
                        {"tokenize_chars_per_second", tokenize_chars_per_second},
                        {"input_preparation_chars_per_second", prepare_chars_per_second},
                        {"gemm_peak_gflops", peaks},
                        {"decision_reads_encoder", decision_reads_encoder},
                        {"results", rows}};
  if (args.flag("json")) {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::printf("model %s, %d threads, %zu pairs from %s\n", model_dir.c_str(), num_threads(), pairs.size(),
              args.value("input").c_str());
  std::printf("one thread: tokenization %.2f M chars/s; input preparation (tokenization, and with a match head "
              "parsing and comparing) %.2f M chars/s\n",
              tokenize_chars_per_second / 1e6, prepare_chars_per_second / 1e6);
  if (!decision_reads_encoder) {
    std::printf("this folder's match head decides from the pair features alone: score and /v1/match run no "
                "encoder; the rows time the encoder's pass (as embedding runs it) and the decision\n");
  }
  std::printf("GEMM peak here (one linear layer, 2048 tokens, hidden to intermediate):");
  for (const auto& [name, gflops] : peaks.items()) std::printf(" %s %.0f", name.c_str(), gflops.get<double>());
  std::printf(" GFLOP/s; %% peak is of the row's precision\n\n");
  std::printf("%9s %6s %10s %10s %12s %12s %9s %7s %9s\n", "precision", "batch", "ms/pair", "pairs/s", "p50 batch ms",
              "p99 batch ms", "GFLOP/s", "% peak", "% not GEMM");
  for (const auto& r : rows) {
    std::printf("%9s %6zu %10.3f %10.1f %12.2f %12.2f %9.1f %6.0f%% %8.0f%%\n", r["precision"].get<std::string>().c_str(),
                r["batch_size"].get<std::size_t>(), r["ms_per_pair"].get<double>(), r["pairs_per_second"].get<double>(),
                r["p50_batch_ms"].get<double>(), r["p99_batch_ms"].get<double>(), r["gflops"].get<double>(),
                100 * r["share_of_gemm_peak"].get<double>(), 100 * r["share_outside_linear_layers"].get<double>());
  }
  return 0;
}

}  // namespace geoalign::cli
