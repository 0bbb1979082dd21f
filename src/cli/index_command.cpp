#include <cstdio>
#include <iostream>

#include "cli/address_reader.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/input_file.h"
#include "cli/build_progress.h"
#include "cli/model_options.h"
#include "backend/threads.h"
#include "index/address_index.h"

namespace geoalign::cli {

namespace {

constexpr const char* kUsage =
    "usage: geoalign index build --input FILE --out DIR [--model DIR] [options]\n"
    "       geoalign index add --index DIR --input FILE [options]\n"
    "\n"
    "Builds a reference base of addresses for `geoalign search` (and `serve --index`), or\n"
    "appends to one. FILE holds one address per line, or id<TAB>address; a line without an\n"
    "id is named by its line number.\n";

// The file's usable rows as records, every bad line listed before a run stops. A line
// without an id is named by its line number, which must not be an id the index holds.
// An index is built to be searched, and search reranks with the folder's rerank head: a
// head that cannot score is refused before the build, not after it.
engine::EngineOptions index_engine_options(const Args& args) {
  engine::EngineOptions options = engine_options(args);
  options.head = engine::Head::Rerank;
  return options;
}

std::vector<index::NewRecord> read_records(const Args& args, const index::AddressIndex& ix, const engine::Engine& model) {
  const std::string& path = args.value("input");
  BadRows bad_rows(args.value("on-error"), "index", input_name(path));
  std::vector<index::NewRecord> records;
  for (auto& row : name_rows_by_line(read_address_file(path, bad_rows, &model), bad_rows)) {
    if (ix.has_id(row.id)) {
      bad_rows.report(row.line, row.named_by_line ? "this line has no id, and its line number \"" + row.id +
                                                        "\" is already an id in the index; give every line an id"
                                                  : "id \"" + row.id + "\" is already in the index");
      continue;
    }
    records.push_back({std::move(row.id), std::move(row.text)});
  }
  bad_rows.finish();
  if (records.empty()) throw Error(path + ": no addresses to index");
  return records;
}

}  // namespace

int run_index(int argc, char** argv, int first) {
  if (argc <= first || (std::string(argv[first]) != "build" && std::string(argv[first]) != "add")) {
    const bool help = argc > first && (std::string(argv[first]) == "--help" || std::string(argv[first]) == "-h");
    std::fputs(kUsage, help ? stdout : stderr);
    return help ? 0 : 2;
  }
  const std::string action = argv[first];
  const bool build = action == "build";
  std::vector<Args::Option> options = {
      {"input", true, "addresses: one per line, or id<TAB>address", ""},
      {"precision", true, "fp32, bf16, int8 or auto (embeddings)", "auto"},
      kThreadsOption,
      kOnErrorOption,
      kParserOption};
  if (build) {
    options.push_back(kModelOption);
    options.push_back({"out", true, "index folder to create", ""});
    options.push_back({"links", true, "HNSW graph degree (M)", "16"});
    options.push_back({"build-candidates", true, "HNSW ef_construction", "200"});
  } else {
    options.push_back({"index", true, "index folder to append to", ""});
  }
  Args args("index " + action, options, "");
  args.parse(argc, argv, first + 1);
  if (args.flag("help")) {
    std::cout << args.usage();
    return 0;
  }
  on_error_option(args);
  if (args.value("input").empty()) throw UsageError("--input is required");
  const std::string out = build ? args.value("out") : args.value("index");
  if (out.empty()) throw UsageError(build ? "--out is required" : "--index is required");
  if (build && std::filesystem::exists(std::filesystem::path(out) / index::AddressIndex::kManifest)) {
    throw UsageError(out + " already holds an index (use geoalign index add, or another --out)");
  }
  set_num_threads(threads_option(args));

  Progress progress("index " + action, "addresses");
  std::optional<index::AddressIndex> ix;
  std::unique_ptr<engine::Engine> model;
  if (build) {
    const std::string model_dir = model_dir_option(args);
    model = engine::Engine::load(model_dir, index_engine_options(args));
    ix.emplace(model_dir, *model,
               index::VectorIndex::Options{static_cast<std::size_t>(args.integer("links", 4, 128)),
                                           static_cast<std::size_t>(args.integer("build-candidates", 10, 4096))});
  } else {
    ix.emplace(index::AddressIndex::open(out));
    model = engine::Engine::load(ix->model_dir(), index_engine_options(args));
    ix->check_model(ix->model_dir());
  }
  const std::vector<index::NewRecord> records = read_records(args, *ix, *model);
  StepTimes steps(progress);
  auto callbacks = steps.callbacks();
  ix->add(*model, records, callbacks);
  callbacks.step("save", 0);
  ix->save(out);
  progress.finish();
  std::fprintf(stderr, "geoalign index %s: %zu addresses added, %zu in %s, %.1f s (%s)\n", action.c_str(), records.size(),
               ix->size(), out.c_str(), progress.seconds(), steps.summary().c_str());
  return 0;
}

}  // namespace geoalign::cli
