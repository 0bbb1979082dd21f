#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "backend/threads.h"
#include "cli/address_reader.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/input_file.h"
#include "cli/line_reader.h"
#include "cli/model_options.h"
#include "cli/standard_output.h"
#include "cli/stopwatch.h"
#include "index/search_json.h"
#include "text/markup.h"
#include "text/unicode.h"

namespace geoalign::cli {

namespace {

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

void write_results(std::span<const std::string> queries, const std::vector<std::vector<index::SearchHit>>& results,
                   const index::AddressIndex& ix) {
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const nlohmann::json line = index::search_result_json(ix, queries[q], results[q]);
    std::puts(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  }
  check_standard_output();
}

}  // namespace

int run_search(int argc, char** argv, int first) {
  Args args("search",
            {{"index", true, "index folder (geoalign index build)", ""},
             {"model", true, "model folder (default: the one the index was built with)", ""},
             {"k", true, "results per query", "10"},
             {"rerank", true, "fused candidates rescored by the pair scorer, 0 = none", "50"},
             {"candidates", true, "candidates from each of the lexical and vector searches (at least --rerank and --k)", "100"},
             {"region", true, "only results in this province, city or district (北京市, 深圳市南山区)", ""},
             {"region-from-query", false, "leave out results in other cities than the one the query names (results of unknown city stay)", ""},
             {"ordered", false, "the pair scorer reads (query, record) as given instead of the mean of both orders", ""},
             kPairScorerOption,
             kParserOption,
             kAliasesOption,
             kPrecisionOption,
             kThreadsOption,
             {"batch", true, "queries searched together (1: one at a time, for latency)", std::to_string(index::kSearchBatch)},
             kOnErrorOption},
            "[FILE|-]");
  args.parse(argc, argv, first);
  if (args.flag("help")) {
    std::cout << args.usage()
              << "\nOne query address per line in; one JSON line per query out, in order (a bad line skipped\n"
                 "with --on-error skip gets {\"line\": N, \"error\": ..., \"results\": []}):\n"
                 "  {\"query\": ..., \"results\": [{\"id\": ..., \"text\": ..., \"score\": ..., \"label\": ...}]}\n"
                 "score is the pair scorer's P(exact_match) for reranked results (which carry a label),\n"
                 "the fused retrieval score for the rest.\n";
    return 0;
  }
  const std::string on_error = on_error_option(args);
  if (args.value("index").empty()) throw UsageError("--index is required");
  if (args.positional().size() > 1) throw UsageError("search reads one input");
  set_num_threads(threads_option(args));
  const index::AddressIndex ix = index::AddressIndex::open(args.value("index"));
  const std::filesystem::path model_dir = args.value("model").empty() ? ix.model_dir() : std::filesystem::path(args.value("model"));
  ix.check_model(model_dir);
  const auto model = engine::Engine::load(model_dir, engine_options(args));
  const index::Searcher searcher(ix, *model);
  index::SearchOptions options;
  options.k = static_cast<std::size_t>(args.integer("k", 1, 10000));
  options.rerank = static_cast<std::size_t>(args.integer("rerank", 0, 10000));
  options.candidates = static_cast<std::size_t>(args.integer("candidates", 1, 100000));
  if (!args.value("region").empty()) options.region = searcher.region_code(args.value("region"));
  options.region_from_query = args.flag("region-from-query");
  options.reading = reading_option(args);

  InputFile file(args.positional().empty() ? "-" : args.positional()[0]);
  LineReader reader(file.stream(), file.name());
  const auto batch = static_cast<std::size_t>(args.integer("batch", 1, 65536));
  std::vector<std::string> queries;
  std::size_t searched = 0, skipped = 0;
  std::vector<double> batch_ms;  // search time of each batch, output excluded
  auto flush = [&] {
    if (queries.empty()) return;
    const auto start = Clock::now();
    const auto results = searcher.search(queries, options);
    batch_ms.push_back(seconds_since(start) * 1000);
    write_results(queries, results, ix);
    searched += queries.size();
    queries.clear();
  };
  InputLine line;
  while (reader.next(line)) {
    std::string problem = line.problem;
    if (problem.empty() && text::is_blank_address(line.text)) problem = "empty query";
    if (problem.empty()) problem = normalization_problem(*model, line.text);
    if (!problem.empty()) {
      std::fprintf(stderr, "%s:%zu: %s\n", file.name().c_str(), line.number, problem.c_str());
      if (on_error == "fail") {
        flush();
        std::fprintf(stderr, "geoalign search: stopped at line %zu after %zu queries (use --on-error skip to go on)\n",
                     line.number, searched);
        return 1;
      }
      // The line still gets its output line, so output stays aligned with input.
      flush();
      const nlohmann::json error = {{"line", line.number}, {"error", problem}, {"results", nlohmann::json::array()}};
      std::puts(error.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
      ++skipped;
      continue;
    }
    queries.push_back(std::move(line.text));
    if (queries.size() == batch) flush();
  }
  flush();
  std::fprintf(stderr, "geoalign search: %zu queries answered, %zu bad lines skipped; per batch of %zu: p50 %.2f ms, p99 %.2f ms\n",
               searched, skipped, batch, percentile(batch_ms, 0.5), percentile(batch_ms, 0.99));
  return 0;
}

}  // namespace geoalign::cli
