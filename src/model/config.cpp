#include "model/config.h"

#include "geoalign/error.h"
#include "model/json_file.h"
#include "text/wordpiece_tokenizer.h"

namespace geoalign::model {

namespace {

// More classes than any address task has; a bound so that a stray num_labels cannot
// allocate without end.
constexpr std::int64_t kMaxLabels = 4096;

ops::Activation parse_activation(const std::string& name, const std::string& where) {
  if (name == "gelu") return ops::Activation::Gelu;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh") return ops::Activation::GeluTanh;
  if (name == "relu") return ops::Activation::Relu;
  throw Error(where + ": hidden_act \"" + name + "\" is not supported (gelu, gelu_new, gelu_pytorch_tanh, relu)");
}

std::vector<std::string> parse_labels(const JsonFields& config) {
  if (!config.has("id2label")) {
    // Hugging Face's default for a classifier without id2label is two labels.
    const std::int64_t n = config.integer("num_labels", 2);
    if (n < 1 || n > kMaxLabels) {
      throw Error(config.where() + ": num_labels must be between 1 and " + std::to_string(kMaxLabels) + ", got " +
                  std::to_string(n));
    }
    std::vector<std::string> labels;
    for (std::int64_t i = 0; i < n; ++i) labels.push_back("LABEL_" + std::to_string(i));
    return labels;
  }
  const auto& id2label = config.raw("id2label");
  if (!id2label.is_object() || id2label.empty()) {
    throw Error(config.where() + ": id2label must be a non-empty object");
  }
  std::vector<std::string> labels(id2label.size());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const std::string key = std::to_string(i);
    if (!id2label.contains(key) || !id2label.at(key).is_string()) {
      throw Error(config.where() + ": id2label must map \"0\".. \"" + std::to_string(labels.size() - 1) +
                  "\" to names; \"" + key + "\" is missing or not a string");
    }
    labels[i] = id2label.at(key).get<std::string>();
  }
  return labels;
}

BertConfig parse_bert(const JsonFields& c) {
  BertConfig b;
  b.vocab_size = c.integer("vocab_size");
  b.hidden_size = c.integer("hidden_size");
  b.num_hidden_layers = c.integer("num_hidden_layers");
  b.num_attention_heads = c.integer("num_attention_heads");
  b.intermediate_size = c.integer("intermediate_size");
  b.max_position_embeddings = c.integer("max_position_embeddings", b.max_position_embeddings);
  b.type_vocab_size = c.integer("type_vocab_size", b.type_vocab_size);
  b.layer_norm_eps = static_cast<float>(c.number("layer_norm_eps", b.layer_norm_eps));
  b.hidden_act = parse_activation(c.string("hidden_act", "gelu"), c.where());
  b.labels = parse_labels(c);

  const std::string position_type = c.string("position_embedding_type", "absolute");
  if (position_type != "absolute") {
    throw Error(c.where() + ": position_embedding_type \"" + position_type + "\" is not supported (absolute)");
  }
  auto positive = [&](const char* name, std::int64_t v) {
    if (v <= 0) throw Error(c.where() + ": " + name + " must be positive, got " + std::to_string(v));
  };
  positive("vocab_size", b.vocab_size);
  positive("hidden_size", b.hidden_size);
  positive("num_hidden_layers", b.num_hidden_layers);
  positive("num_attention_heads", b.num_attention_heads);
  positive("intermediate_size", b.intermediate_size);
  positive("max_position_embeddings", b.max_position_embeddings);
  positive("type_vocab_size", b.type_vocab_size);
  if (b.max_position_embeddings < 3) {
    throw Error(c.where() + ": max_position_embeddings must be at least 3 ([CLS], a token, [SEP]), got " +
                std::to_string(b.max_position_embeddings));
  }
  // MGeo (ModelScope's modelscope/models/multi_modal/mgeo/backbone.py) runs its text
  // encoder in mode 'text': layers [0, fusion_layer) only.
  b.fusion_layer = c.integer("fusion_layer", b.num_hidden_layers);
  if (b.fusion_layer <= 0 || b.fusion_layer > b.num_hidden_layers) {
    throw Error(c.where() + ": fusion_layer must be between 1 and num_hidden_layers (" +
                std::to_string(b.num_hidden_layers) + "), got " + std::to_string(b.fusion_layer));
  }
  // gis_embedding != 0 makes MGeo embed geographic inputs (GisEmbeddings: relation types,
  // absolute and relative coordinates) that an address pair does not carry.
  if (const std::int64_t gis = c.integer("gis_embedding", 0); gis != 0) {
    throw Error(c.where() + ": gis_embedding " + std::to_string(gis) +
                ": MGeo's GIS variant (embeddings of geographic inputs besides the text) is not supported; "
                "only text models with gis_embedding 0 load");
  }
  if (b.hidden_size % b.num_attention_heads != 0) {
    throw Error(c.where() + ": hidden_size " + std::to_string(b.hidden_size) + " is not a multiple of " +
                "num_attention_heads " + std::to_string(b.num_attention_heads));
  }
  return b;
}

GeoalignSettings parse_settings(const JsonFields& config, const BertConfig& bert) {
  GeoalignSettings s;
  s.max_length = static_cast<std::size_t>(std::min<std::int64_t>(128, bert.max_position_embeddings));
  if (!config.has("geoalign")) return s;
  const JsonFields g = config.object("geoalign");
  if (g.has("normalize")) {
    const JsonFields n = g.object("normalize");
    s.normalize.fullwidth_to_halfwidth = n.boolean("fullwidth_to_halfwidth", false);
    s.normalize.clean_whitespace = n.boolean("clean_whitespace", false);
    s.normalize.traditional_to_simplified = n.boolean("traditional_to_simplified", false);
    s.normalize.fold_variants = n.boolean("fold_variants", false);
    s.normalize.drop_annotations = n.boolean("drop_annotations", false);
    s.normalize.decode_markup = n.boolean("decode_markup", false);
  }
  const std::int64_t max_length = g.integer("max_length", static_cast<std::int64_t>(s.max_length));
  if (max_length < 3 || max_length > bert.max_position_embeddings) {
    throw Error(g.where() + ": max_length must be between 3 and max_position_embeddings (" +
                std::to_string(bert.max_position_embeddings) + "), got " + std::to_string(max_length));
  }
  s.max_length = static_cast<std::size_t>(max_length);
  return s;
}

// Refuses special tokens other than BertTokenizer's defaults in a tokenizer file (as a
// string, or an AddedToken object's "content"): Hugging Face would tokenize with them,
// and geoalign, which does not, would answer differently without a word.
void refuse_other_special_tokens(const nlohmann::json& json, const std::string& where) {
  for (const auto& [config_key, default_token] : text::kSpecialTokens) {
    const std::string key(config_key);
    if (!json.contains(key) || json[key].is_null()) continue;
    const nlohmann::json& token = json[key].is_object() && json[key].contains("content") ? json[key]["content"] : json[key];
    if (!token.is_string() || token.get<std::string>() != default_token) {
      throw Error(where + ": " + key + " " + token.dump() + " is not supported; geoalign tokenizes with " + std::string(default_token));
    }
  }
}

text::TokenizerOptions parse_tokenizer(const std::filesystem::path& model_dir) {
  text::TokenizerOptions t;
  const auto path = model_dir / "tokenizer_config.json";
  if (std::filesystem::exists(path)) {
    const nlohmann::json json = read_json_file(path);
    const JsonFields f(json, path.string());
    t.do_lower_case = f.boolean("do_lower_case", t.do_lower_case);
    t.tokenize_chinese_chars = f.boolean("tokenize_chinese_chars", t.tokenize_chinese_chars);
    if (f.has("strip_accents")) t.strip_accents = f.boolean("strip_accents", false);
    if (!f.boolean("do_basic_tokenize", true)) {
      throw Error(path.string() + ": do_basic_tokenize false is not supported; geoalign always splits text as "
                  "BertTokenizer's basic tokenizer does");
    }
    if (f.has("never_split") && !f.raw("never_split").is_null() && !f.raw("never_split").empty()) {
      throw Error(path.string() + ": never_split is not supported");
    }
    refuse_other_special_tokens(json, path.string());
  }
  if (const auto map = model_dir / "special_tokens_map.json"; std::filesystem::exists(map)) {
    refuse_other_special_tokens(read_json_file(map), map.string());
  }
  if (const auto added = model_dir / "added_tokens.json"; std::filesystem::exists(added)) {
    const nlohmann::json tokens = read_json_file(added);
    if (!tokens.is_object() || !tokens.empty()) {
      throw Error(added.string() + ": added tokens are not supported (geoalign tokenizes with vocab.txt alone)");
    }
  }
  return t;
}

}  // namespace

ModelConfig load_model_config(const std::filesystem::path& model_dir) {
  const auto config_path = model_dir / "config.json";
  if (!std::filesystem::exists(config_path)) {
    throw Error("model folder " + model_dir.string() + " has no config.json");
  }
  const nlohmann::json json = read_json_file(config_path);
  const JsonFields fields(json, config_path.string());
  ModelConfig config;
  config.bert = parse_bert(fields);
  config.settings = parse_settings(fields, config.bert);
  config.tokenizer = parse_tokenizer(model_dir);
  return config;
}

}  // namespace geoalign::model
