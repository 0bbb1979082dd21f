#include "model/model_folder.h"

#include <algorithm>
#include <future>
#include <optional>

#include "backend/threads.h"
#include "geoalign/error.h"
#include "model/label_names.h"

namespace geoalign::model {

namespace {

// Up to this size an encoder's weights are packed on one thread beside the match head's
// load (ModelFolder::load); the default model's file is 16.6 MB, BERT-base's 400 MB.
constexpr std::uintmax_t kMaxBytesPackedBesideHead = std::uintmax_t{64} << 20;

std::string lowercase_ascii(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

LabelRoles LabelRoles::from_labels(const std::vector<std::string>& labels) {
  LabelRoles roles;
  bool all_named = true;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    switch (class_of_label_name(lowercase_ascii(labels[i]))) {
      case 0: roles.not_match = i; break;
      case 1: roles.partial_match = i; break;
      case 2: roles.exact_match = i; break;
      default: all_named = false;
    }
  }
  if (all_named) return roles;
  if (labels.size() == 3) return LabelRoles{0, 1, 2};
  if (labels.size() == 2) return LabelRoles{0, std::nullopt, 1};
  return LabelRoles{};
}

MatchResult LabelRoles::result(const std::vector<std::string>& labels, const float* probabilities) const {
  const std::size_t n = labels.size();
  MatchResult r;
  r.probabilities.assign(probabilities, probabilities + n);
  r.label_id = static_cast<std::size_t>(std::max_element(probabilities, probabilities + n) - probabilities);
  r.label = labels[r.label_id];
  auto p = [&](const std::optional<std::size_t>& role) { return role ? probabilities[*role] : 0.0f; };
  r.p_not_match = p(not_match);
  r.p_partial_match = p(partial_match);
  r.p_exact_match = p(exact_match);
  r.score = std::clamp(r.p_exact_match + 0.5f * r.p_partial_match, 0.0f, 1.0f);
  return r;
}

MatchResult LabelRoles::decide(const std::vector<std::string>& labels, const float* probabilities, bool same_text) const {
  if (same_text) {
    if (std::optional<MatchResult> certain = certain_exact(labels)) return *std::move(certain);
  }
  return result(labels, probabilities);
}

MatchResult LabelRoles::decide_both_orders(const std::vector<std::string>& labels, const float* ab, const float* ba,
                                           bool same_text) const {
  std::vector<float> mean(labels.size());
  for (std::size_t id = 0; id < labels.size(); ++id) mean[id] = 0.5f * (ab[id] + ba[id]);
  return decide(labels, mean.data(), same_text);
}

std::optional<MatchResult> LabelRoles::certain_exact(const std::vector<std::string>& labels) const {
  if (!exact_match) return std::nullopt;
  std::vector<float> probabilities(labels.size(), 0.0f);
  probabilities[*exact_match] = 1.0f;
  return result(labels, probabilities.data());
}

ModelFolder ModelFolder::load(const std::filesystem::path& dir, ops::MatmulPrecision precision, Device device,
                              const std::filesystem::path& parser_dir, const std::filesystem::path& aliases_file,
                              PairReading reading) {
  if (!std::filesystem::is_directory(dir)) throw Error("model folder " + dir.string() + " does not exist");
  ModelConfig config = load_model_config(dir);
  auto aliases = load_folder_aliases(dir, aliases_file);

  const auto vocab_path = dir / "vocab.txt";
  if (!std::filesystem::exists(vocab_path)) throw Error("model folder " + dir.string() + " has no vocab.txt");
  text::WordPieceTokenizer tokenizer = text::WordPieceTokenizer::from_file(vocab_path, config.tokenizer);
  if (tokenizer.vocab_size() > static_cast<std::size_t>(config.bert.vocab_size)) {
    throw Error(vocab_path.string() + " has " + std::to_string(tokenizer.vocab_size()) +
                " tokens, more than config.json's vocab_size " + std::to_string(config.bert.vocab_size));
  }

  const auto weights_path = dir / "model.safetensors";
  if (!std::filesystem::exists(weights_path)) {
    std::string hint;
    if (std::filesystem::exists(dir / "pytorch_model.bin")) {
      hint = " (it has pytorch_model.bin: convert it with tools/convert_to_safetensors.py)";
    }
    throw Error("model folder " + dir.string() + " has no model.safetensors" + hint);
  }
  // A small encoder's weights are packed on this thread alone while the match head (its
  // parser's gazetteer and tagger, its trees) loads on a second one: the start of `score`
  // on the default model fell from 0.194 to 0.167 s (Zen 5, 2 cores). Both loads free to
  // fork were no faster, as OpenMP workers spun against the head's thread. A large
  // encoder packs its weights on every core instead (BERT-base: 0.31 s, 0.63 on one).
  const char* head_name = reading == PairReading::Ordered && std::filesystem::exists(dir / match::MatchHead::kOrderedFileName)
                              ? match::MatchHead::kOrderedFileName
                              : match::MatchHead::kFileName;
  const auto head_file = dir / head_name;
  const bool has_head = std::filesystem::exists(head_file);
  const bool head_beside = has_head && std::filesystem::file_size(weights_path) <= kMaxBytesPackedBesideHead;
  const auto load_head = [&] { return match::MatchHead::load(dir, config.bert.labels.size(), head_name); };
  std::future<std::unique_ptr<match::MatchHead>> loading_head;
  if (head_beside) {
    loading_head = std::async(std::launch::async, [&] {
      run_serially_on_this_thread();
      return load_head();
    });
  }
  const SafetensorsFile weights = SafetensorsFile::open(weights_path);
  std::optional<SerialThreadScope> packing_alone;
  if (head_beside) packing_alone.emplace();
  BertModel model = BertModel::load(BertWeightReader(weights), config.bert, precision, device);
  packing_alone.reset();
  // A pair is encoded with token type 1 for the second address; with one token type the
  // classifier would fail on every pair, so such a model loads only without one (to embed,
  // which uses token type 0 alone).
  if (model.can_classify() && config.bert.type_vocab_size < 2) {
    throw Error((dir / "config.json").string() + ": type_vocab_size " + std::to_string(config.bert.type_vocab_size) +
                ": a pair classifier needs token types 0 and 1 (the second address is type 1); this folder has a "
                "classification head (pooler.dense and classifier)");
  }

  text::AddressNormalizer normalizer(config.settings.normalize);
  LabelRoles roles = LabelRoles::from_labels(config.bert.labels);
  std::shared_ptr<const match::MatchHead> head;
  if (has_head) {
    // A head trained without the encoder's probabilities decides from the pair features
    // alone, and scoring then runs no encoder (runtime::PairScorer::runs_encoder).
    head = head_beside ? loading_head.get() : load_head();
  }
  EmbeddingHead embedding = EmbeddingHead::load(dir, config.bert.hidden_size, device);
  // The head's parser is shared, not loaded twice (an aliasing pointer keeps the head alive).
  std::shared_ptr<const AddressParser> head_parser;
  if (head) head_parser = std::shared_ptr<const AddressParser>(head, &head->comparer().parser());
  auto parser = std::make_shared<const FolderParser>(dir, std::move(head_parser), parser_dir);
  return ModelFolder{std::move(config), std::move(tokenizer), std::move(normalizer), std::move(model), roles,
                     reading,           std::move(head),       std::move(embedding), std::move(parser),
                     std::move(aliases)};
}

}  // namespace geoalign::model
