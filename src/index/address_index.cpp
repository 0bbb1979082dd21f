#include "index/address_index.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "model/json_file.h"
#include "runtime/run_in_parallel.h"
#include "text/normalize.h"

namespace geoalign::index {

namespace {
constexpr const char* kFormat = "geoalign-index";
constexpr int kVersion = 2;  // 2 added parses.bin
constexpr const char* kRecordsFile = "records.bin";
constexpr const char* kRecordsMagic = "GAXREC";
constexpr std::uint32_t kRecordsVersion = 1;
constexpr const char* kParsesFile = "parses.bin";
constexpr const char* kParsesMagic = "GAXPAR";
constexpr std::uint32_t kParsesVersion = 1;

std::string hex(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// A checksum the manifest writes as 16 hex digits (hex()).
std::uint64_t checksum_field(const model::JsonFields& m, const char* key, const std::filesystem::path& manifest) {
  const std::string text = m.string(key, "0");
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    throw Error(manifest.string() + ": \"" + key + "\" is not a hex checksum: \"" + text + "\"");
  }
  return value;
}

// Flushes a file (or a folder's entries) to the disk: the manifest must never reach it
// before the files it describes, or a power cut could leave a whole manifest beside
// short files.
void sync_to_disk(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(path.string() + ": cannot open to sync: " + std::strerror(errno));
  const int rc = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  if (rc != 0) throw Error(path.string() + ": sync failed: " + std::strerror(saved));
}

// Each save writes its files under names of its own generation (records.7.bin; a first
// save, generation 0, under the plain names), never over the files the manifest names,
// and replaces the manifest by one rename. An open reads one manifest and the files it
// names, which no later save changes: a save that fails or is killed leaves the index as
// it was, and a search opening during a save sees the one before or the one after.
std::string file_name(std::string_view role, std::uint64_t generation) {
  const std::string name(role);
  if (generation == 0) return name;
  const std::size_t dot = name.rfind('.');
  return name.substr(0, dot) + "." + std::to_string(generation) + name.substr(dot);
}

// One save into a folder at a time, across processes: an advisory lock on a file of the
// folder, held for the save, waited for by the next.
class SaveLock {
 public:
  explicit SaveLock(const std::filesystem::path& dir) : fd_(::open((dir / ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ < 0) throw Error((dir / ".lock").string() + ": cannot lock the index for saving: " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX) != 0) {
      const int saved = errno;
      ::close(fd_);
      throw Error(dir.string() + ": cannot lock the index for saving: " + std::strerror(saved));
    }
  }
  ~SaveLock() { ::close(fd_); }
  SaveLock(const SaveLock&) = delete;
  SaveLock& operator=(const SaveLock&) = delete;

 private:
  int fd_;
};

// A manifest names a few files: anything larger is not one (a link to /dev/zero was read
// until memory ran out).
constexpr std::size_t kMaxManifestBytes = 1 << 20;

std::optional<nlohmann::json> current_manifest(const std::filesystem::path& dir) {
  if (!std::filesystem::exists(dir / AddressIndex::kManifest)) return std::nullopt;
  return model::read_json_file(dir / AddressIndex::kManifest, kMaxManifestBytes);
}

std::uint64_t generation_of(const nlohmann::json& manifest) {
  const auto g = manifest.find("generation");
  return g != manifest.end() && g->is_number_unsigned() ? g->get<std::uint64_t>() : 0;
}
}  // namespace

std::uint64_t model_checksum(const std::filesystem::path& model_dir) {
  std::uint64_t h = 0;
  // config.json holds the normalization, which decides the stored texts as the weights
  // decide the embeddings.
  for (const char* name : {"model.safetensors", "modules.json", "2_Dense/model.safetensors", "vocab.txt", "config.json"}) {
    const auto file = model_dir / name;
    if (std::filesystem::exists(file)) h = h * 31 + file_checksum(file);
  }
  return h;
}

AddressIndex::AddressIndex(std::filesystem::path model_dir, std::uint64_t checksum, VectorIndex vectors)
    : model_dir_(std::move(model_dir)), model_checksum_(checksum), vectors_(std::move(vectors)) {}

AddressIndex::AddressIndex(const std::filesystem::path& model_dir, const engine::Engine& model, VectorIndex::Options graph)
    : AddressIndex(std::filesystem::absolute(model_dir), model_checksum(model_dir), VectorIndex(model.dim(), graph)) {
  lexical_ = LexicalIndex::build(normalized_);
}

void AddressIndex::check_model(const std::filesystem::path& model_dir) const {
  if (model_checksum(model_dir) != model_checksum_) {
    throw Error("the index was built with the model in " + model_dir_.string() + "; the weights or settings in " +
                model_dir.string() + " differ, and their embeddings or normalized texts would not match the "
                "index's (rebuild it)");
  }
}

void AddressIndex::check_room(std::size_t held, std::size_t added) {
  if (held > kMaxRecords || added > kMaxRecords - held) {
    throw Error("the index would hold " + std::to_string(held + added) + " records; it holds at most " +
                std::to_string(kMaxRecords) + " (records are numbered in 32 bits)");
  }
}

void AddressIndex::add(const engine::Engine& model, const std::vector<NewRecord>& records, const BuildProgress& progress) {
  const std::size_t first = size(), n = records.size();
  check_room(first, n);
  // Ids first: nothing is added when one is taken.
  std::vector<std::string> ids(n);
  std::unordered_map<std::string, std::size_t> batch_ids;
  for (std::size_t i = 0; i < n; ++i) {
    ids[i] = records[i].id.empty() ? std::to_string(first + i) : records[i].id;
    if (by_id_.count(ids[i])) throw Error("record " + std::to_string(i + 1) + ": id \"" + ids[i] + "\" is already in the index");
    if (!batch_ids.emplace(ids[i], i).second) {
      throw Error("record " + std::to_string(i + 1) + ": id \"" + ids[i] + "\" repeats record " +
                  std::to_string(batch_ids[ids[i]] + 1));
    }
  }
  // Elements are stored only while every record has them, from one parser.
  const bool store_parses = size() == 0 || (has_parses_ && parser_checksum_ == model.parser_checksum());
  progress.begin("parse", n);
  std::vector<std::string> normalized(n), adcodes(n);
  std::vector<std::vector<AddressElement>> elements(n);
  std::atomic<std::size_t> parsed{0};
  const auto record_name = [&](std::size_t k) { return "record " + std::to_string(k + 1) + " (id " + ids[k] + ")"; };
  runtime::for_each_named(n, 64, record_name, [&](std::size_t k) {
    normalized[k] = model.normalize(records[k].text);
    if (normalized[k].empty()) throw Error("the address is blank after normalization");
    engine::Address a = model.prepare(normalized[k]);
    adcodes[k] = a.parsed.admin.adcode;
    // Region filters read the adcode: an ambiguous record (龙岗区 alone) lies in its most
    // likely reading, not in no region at all, where every filter would leave it out; the
    // mark says it is a guess, which a query's own city does not overrule.
    if (a.parsed.admin.ambiguous) {
      const std::string guess = model.parser().complete(normalized[k], a.parsed.elements, {.guess = true}).admin.adcode;
      if (!guess.empty()) adcodes[k] = guess + kGuessMark;
    }
    elements[k] = std::move(a.parsed.elements);
    const std::size_t done = ++parsed;
    if (progress.done && done % 1024 == 0) progress.done(done);
  });
  progress.begin("embed", n);
  const std::vector<std::string_view> views(normalized.begin(), normalized.end());
  const std::vector<float> vectors = model.embed(views, progress.done);
  if (vectors.size() != n * vectors_.dim()) throw Error("the model's embeddings are not " + std::to_string(vectors_.dim()) + "-dimensional");
  progress.begin("graph", n);
  vectors_.add(vectors, progress.done);
  if (store_parses) {
    for (const auto& e : elements) parses_.push_back(e);
    parser_checksum_ = model.parser_checksum();
  } else {
    parses_ = {};
  }
  has_parses_ = store_parses;
  for (std::size_t k = 0; k < n; ++k) {
    by_id_.emplace(ids[k], static_cast<std::uint32_t>(first + k));
    ids_.push_back(ids[k]);
    texts_.push_back(records[k].text);
    normalized_.push_back(normalized[k]);
    adcodes_.push_back(adcodes[k]);
    regions_.add(static_cast<std::uint32_t>(first + k), adcode(first + k), adcode_is_guess(first + k));
  }
  progress.begin("lexical", 0);
  lexical_.add(normalized_);
}

RecordSet AddressIndex::records_in(std::string_view region, bool or_unknown) const {
  RecordSet set;
  set.lists = regions_.lists_in(region, or_unknown);
  for (const auto& list : set.lists) set.size += list.size();
  set.contains = [this, region = std::string(region), or_unknown](std::uint32_t r) {
    const std::string_view code = adcode(r);
    return code.starts_with(region) || (or_unknown && (std::string_view(region).starts_with(code) || adcode_is_guess(r)));
  };
  return set;
}

engine::Address AddressIndex::address(std::size_t r, const engine::Engine& model) const {
  if (has_parses_ && parser_checksum_ == model.parser_checksum()) return model.complete(normalized(r), parses_.elements(r));
  return model.prepare(normalized(r));
}

void AddressIndex::save(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const SaveLock lock(dir);
  const std::optional<nlohmann::json> previous = current_manifest(dir);
  const std::uint64_t previous_generation = previous ? generation_of(*previous) : 0;
  // Saving back where it was opened from, over a save another process made since, would
  // drop that process's records without a word.
  std::error_code ec;
  if (previous && !opened_from_.empty() && std::filesystem::equivalent(opened_from_, dir, ec) &&
      previous_generation != generation_) {
    throw Error(dir.string() + ": another process saved this index since it was opened here; open it again and repeat");
  }
  const std::uint64_t generation = previous ? previous_generation + 1 : 0;
  std::vector<const char*> roles = {kRecordsFile, LexicalIndex::kFileName, VectorIndex::kFileName};
  if (has_parses_) roles.push_back(kParsesFile);
  const auto path_of = [&](const char* role) { return dir / file_name(role, generation); };
  const auto temporary_manifest = dir / (std::string(kManifest) + ".partial");
  try {
    {
      BinaryWriter out(path_of(kRecordsFile), kRecordsMagic, kRecordsVersion);
      ids_.write(out);
      texts_.write(out);
      normalized_.write(out);
      adcodes_.write(out);
      out.close();
    }
    if (has_parses_) {
      BinaryWriter out(path_of(kParsesFile), kParsesMagic, kParsesVersion);
      parses_.write(out);
      out.close();
    }
    lexical_.write(path_of(LexicalIndex::kFileName));
    vectors_.write(path_of(VectorIndex::kFileName));
    nlohmann::json files = nlohmann::json::object();
    for (const char* role : roles) {
      const auto file = path_of(role);
      sync_to_disk(file);  // on the disk before the manifest that names it
      files[role] = {{"file", file_name(role, generation)},
                     {"bytes", std::filesystem::file_size(file)},
                     {"checksum", hex(file_checksum(file))}};
    }
    const nlohmann::json manifest = {{"format", kFormat},
                                     {"version", kVersion},
                                     {"generation", generation},
                                     {"normalization", text::kNormalizationRevision},
                                     {"records", size()},
                                     {"dim", vectors_.dim()},
                                     {"model", model_dir_.string()},
                                     {"model_checksum", hex(model_checksum_)},
                                     {"parser_checksum", hex(parser_checksum_)},
                                     {"files", files}};
    std::ofstream out(temporary_manifest);
    out << manifest.dump(2) << '\n';
    if (!out.flush()) throw Error(temporary_manifest.string() + ": write failed (disk full?)");
    out.close();
    sync_to_disk(temporary_manifest);
    sync_to_disk(dir);
    std::filesystem::rename(temporary_manifest, dir / kManifest);
  } catch (...) {
    std::error_code ignored;
    for (const char* role : roles) std::filesystem::remove(path_of(role), ignored);  // never the current files
    std::filesystem::remove(temporary_manifest, ignored);
    throw;
  }
  sync_to_disk(dir);
  // The files of the generation replaced (a search that opened it keeps reading them).
  if (previous && previous->contains("files") && (*previous)["files"].is_object()) {
    for (const auto& [role, entry] : (*previous)["files"].items()) {
      const std::string old = entry.is_object() ? entry.value("file", role) : role;
      if (old != file_name(role, generation) && old.find('/') == std::string::npos) {
        std::error_code ignored;
        std::filesystem::remove(dir / old, ignored);
      }
    }
  }
  generation_ = generation;
  opened_from_ = dir;
}

AddressIndex AddressIndex::open(const std::filesystem::path& dir) {
  // A save that replaces the manifest while this reads it removes the files it named: read
  // the new one instead.
  const auto manifest_text = [&]() -> std::string {
    try {
      return model::read_whole_file(dir / kManifest, kMaxManifestBytes);
    } catch (const Error&) {
      return "";  // open_whole says what is wrong with it
    }
  };
  for (int attempt = 0;; ++attempt) {
    const std::string before = manifest_text();
    try {
      return open_whole(dir);
    } catch (const Error&) {
      if (attempt == 4 || manifest_text() == before) throw;
    }
  }
}

AddressIndex AddressIndex::open_whole(const std::filesystem::path& dir) {
  const auto manifest_file = dir / kManifest;
  if (!std::filesystem::is_directory(dir)) throw Error(dir.string() + ": no such index folder");
  if (!std::filesystem::exists(manifest_file)) {
    throw Error(dir.string() + ": not an index (no " + kManifest + "; build one with geoalign index build)");
  }
  const nlohmann::json j = model::read_json_file(manifest_file, kMaxManifestBytes);
  const model::JsonFields m(j, manifest_file.string());
  if (m.string("format", "") != kFormat) throw Error(manifest_file.string() + ": not a geoalign index manifest");
  const std::int64_t version = m.integer("version");
  if (version != kVersion && version != 1) {
    throw Error(manifest_file.string() + ": index format version " + std::to_string(m.integer("version")) +
                ", this build reads version " + std::to_string(kVersion) + " (rebuild the index)");
  }
  if (const std::int64_t revision = m.integer("normalization", 0); revision != text::kNormalizationRevision) {
    throw Error(manifest_file.string() + ": built when addresses were normalized as in revision " +
                std::to_string(revision) + "; this build normalizes them as in revision " +
                std::to_string(text::kNormalizationRevision) + ", so its stored texts would not match (rebuild the index)");
  }
  const auto records = static_cast<std::size_t>(m.integer("records"));
  if (m.integer("records") < 0 || records > kMaxRecords) {
    throw Error(manifest_file.string() + ": \"records\" is not a record count this build can hold (0.." +
                std::to_string(kMaxRecords) + ")");
  }
  const auto dim = static_cast<std::size_t>(m.integer("dim"));
  const model::JsonFields files = m.object("files");
  std::vector<const char*> names = {kRecordsFile, LexicalIndex::kFileName, VectorIndex::kFileName};
  const bool has_parses = files.has(kParsesFile);
  if (has_parses) names.push_back(kParsesFile);
  // Where each file lies: named in the manifest since generations (a bare file name).
  std::unordered_map<std::string, std::filesystem::path> path_of;
  for (const char* name : names) {
    const model::JsonFields f = files.object(name);
    const std::string file = f.string("file", name);
    if (file.empty() || file.find('/') != std::string::npos || file == "." || file == "..") {
      throw Error(manifest_file.string() + ": \"" + file + "\" is not a file name");
    }
    path_of[name] = dir / file;
  }
  for (const char* name : names) {
    const auto file = path_of[name];
    const model::JsonFields f = files.object(name);
    if (!std::filesystem::exists(file)) throw Error(file.string() + ": missing");
    const auto bytes = std::filesystem::file_size(file);
    if (bytes != static_cast<std::uintmax_t>(f.integer("bytes"))) {
      throw Error(file.string() + ": " + std::to_string(bytes) + " bytes, the manifest says " +
                  std::to_string(f.integer("bytes")) + " (truncated or replaced)");
    }
    if (hex(file_checksum(file)) != f.string("checksum", "")) throw Error(file.string() + ": checksum mismatch (corrupt)");
  }
  AddressIndex ix(m.string("model", ""), checksum_field(m, "model_checksum", manifest_file),
                  VectorIndex::read(path_of[VectorIndex::kFileName], dim, records));
  ix.generation_ = generation_of(j);
  ix.opened_from_ = dir;
  BinaryReader in(path_of[kRecordsFile], kRecordsMagic, kRecordsVersion);
  ix.ids_ = StringColumn::read(in, "ids");
  ix.texts_ = StringColumn::read(in, "texts");
  ix.normalized_ = StringColumn::read(in, "normalized texts");
  ix.adcodes_ = StringColumn::read(in, "adcodes");
  in.expect_end();
  for (const StringColumn* c : {&ix.ids_, &ix.texts_, &ix.normalized_, &ix.adcodes_}) {
    if (c->size() != records) in.corrupt("holds " + std::to_string(c->size()) + " records, the manifest says " + std::to_string(records));
  }
  for (std::size_t r = 0; r < records; ++r) {
    if (!ix.by_id_.emplace(std::string(ix.ids_[r]), static_cast<std::uint32_t>(r)).second) {
      in.corrupt("id \"" + std::string(ix.ids_[r]) + "\" appears twice");
    }
    ix.regions_.add(static_cast<std::uint32_t>(r), ix.adcode(r), ix.adcode_is_guess(r));
  }
  ix.has_parses_ = has_parses;
  if (has_parses) {
    BinaryReader parses(path_of[kParsesFile], kParsesMagic, kParsesVersion);
    ix.parses_ = StoredParses::read(parses);
    parses.expect_end();
    if (ix.parses_.size() != records) {
      parses.corrupt("holds " + std::to_string(ix.parses_.size()) + " records, the manifest says " + std::to_string(records));
    }
    ix.parser_checksum_ = checksum_field(m, "parser_checksum", manifest_file);
  }
  ix.lexical_ = LexicalIndex::read(path_of[LexicalIndex::kFileName], records);
  return ix;
}

}  // namespace geoalign::index
