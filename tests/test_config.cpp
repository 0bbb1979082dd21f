#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/config.h"
#include "support/temp_dir.h"

namespace geoalign::model {
namespace {

using namespace geoalign::testing;

nlohmann::json base_config() {
  return nlohmann::json::parse(read_file(fixture_model() / "config.json"));
}

std::string load_error(const nlohmann::json& config) {
  TempDir dir;
  write_file(dir / "config.json", config.dump());
  try {
    load_model_config(dir.path());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ModelConfig, ReadsTheFixture) {
  const ModelConfig c = load_model_config(fixture_model());
  EXPECT_EQ(c.bert.hidden_size, 32);
  EXPECT_EQ(c.bert.num_hidden_layers, 2);
  EXPECT_EQ(c.bert.labels, (std::vector<std::string>{"not_match", "partial_match", "exact_match"}));
  EXPECT_EQ(c.settings.max_length, 128u);
  EXPECT_FALSE(c.settings.normalize.any());  // a plain HF folder is processed as HF would
  EXPECT_TRUE(c.tokenizer.do_lower_case);
}

TEST(ModelConfig, ErrorsNameTheField) {
  auto c = base_config();
  c.erase("hidden_size");
  EXPECT_NE(load_error(c).find("\"hidden_size\" is missing"), std::string::npos);

  c = base_config();
  c["num_attention_heads"] = "four";
  EXPECT_NE(load_error(c).find("\"num_attention_heads\" must be an integer"), std::string::npos);

  c = base_config();
  c["num_attention_heads"] = 5;
  EXPECT_NE(load_error(c).find("not a multiple"), std::string::npos);

  c = base_config();
  c.erase("id2label");
  c["num_labels"] = 0;
  EXPECT_NE(load_error(c).find("num_labels must be between 1 and 4096, got 0"), std::string::npos);
  c["num_labels"] = 100000000000;
  EXPECT_NE(load_error(c).find("num_labels must be between 1 and 4096"), std::string::npos);

  c = base_config();
  c["max_position_embeddings"] = 2;
  EXPECT_NE(load_error(c).find("max_position_embeddings must be at least 3"), std::string::npos);

  c = base_config();
  c["hidden_act"] = "swish";
  EXPECT_NE(load_error(c).find("swish"), std::string::npos);

  c = base_config();
  c["id2label"] = {{"0", "a"}, {"2", "c"}};
  EXPECT_NE(load_error(c).find("\"1\" is missing"), std::string::npos);

  c = base_config();
  c["geoalign"] = {{"max_length", 1000}};
  EXPECT_NE(load_error(c).find("max_length"), std::string::npos);
}

TEST(ModelConfig, FusionLayerDefaultsToEveryLayer) {
  EXPECT_EQ(load_model_config(fixture_model()).bert.fusion_layer, 2);  // no fusion_layer: all layers run
  TempDir dir;
  auto c = base_config();
  c["num_hidden_layers"] = 4;
  c["fusion_layer"] = 3;
  c["gis_embedding"] = 0;
  write_file(dir / "config.json", c.dump());
  EXPECT_EQ(load_model_config(dir.path()).bert.fusion_layer, 3);

  c["fusion_layer"] = 5;
  EXPECT_NE(load_error(c).find("fusion_layer must be between 1 and num_hidden_layers (4), got 5"), std::string::npos);
  c["fusion_layer"] = 3;
  c["gis_embedding"] = 2;
  EXPECT_NE(load_error(c).find("gis_embedding 2"), std::string::npos);
}

TEST(ModelConfig, InvalidJsonNamesTheFile) {
  TempDir dir;
  write_file(dir / "config.json", "{\"hidden_size\": 1E99999}");
  EXPECT_THROW(load_model_config(dir.path()), Error);
  write_file(dir / "config.json", "{\"hidden_size\": ");
  try {
    load_model_config(dir.path());
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("config.json: invalid JSON"), std::string::npos) << e.what();
  }
}

TEST(ModelConfig, AFolderInPlaceOfTheFileIsAClearError) {
  TempDir dir;
  std::filesystem::create_directory(dir / "config.json");
  try {
    load_model_config(dir.path());
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("config.json is not a regular file"), std::string::npos) << e.what();
  }
}

TEST(ModelConfig, ReadsGeoalignSettingsAndTokenizerConfig) {
  TempDir dir;
  auto c = base_config();
  c["geoalign"] = {{"normalize", {{"fullwidth_to_halfwidth", true}, {"clean_whitespace", true}, {"drop_annotations", true},
                                  {"decode_markup", true}}},
                   {"max_length", 64}};
  write_file(dir / "config.json", c.dump());
  write_file(dir / "tokenizer_config.json", R"({"do_lower_case": false, "strip_accents": true})");
  const ModelConfig m = load_model_config(dir.path());
  EXPECT_TRUE(m.settings.normalize.fullwidth_to_halfwidth);
  EXPECT_TRUE(m.settings.normalize.clean_whitespace);
  EXPECT_FALSE(m.settings.normalize.traditional_to_simplified);
  EXPECT_FALSE(m.settings.normalize.fold_variants);
  EXPECT_TRUE(m.settings.normalize.drop_annotations);
  EXPECT_TRUE(m.settings.normalize.decode_markup);
  EXPECT_EQ(m.settings.max_length, 64u);
  EXPECT_FALSE(m.tokenizer.do_lower_case);
  EXPECT_EQ(m.tokenizer.strip_accents, true);
}

// Tokenizer settings geoalign does not follow are refused, not ignored: Hugging Face
// would tokenize by them and answer differently.
TEST(ModelConfig, TokenizerSettingsItCannotFollowAreRefused) {
  TempDir dir;
  write_file(dir / "config.json", base_config().dump());
  auto error = [&] {
    try {
      load_model_config(dir.path());
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  // BertTokenizer's defaults, as strings or AddedToken objects, load.
  write_file(dir / "tokenizer_config.json",
             R"({"unk_token": {"content": "[UNK]", "lstrip": false}, "cls_token": "[CLS]", "never_split": null})");
  write_file(dir / "special_tokens_map.json", R"({"sep_token": "[SEP]", "pad_token": "[PAD]", "mask_token": "[MASK]"})");
  write_file(dir / "added_tokens.json", "{}");
  EXPECT_EQ(error(), "");
  write_file(dir / "tokenizer_config.json", R"({"unk_token": "<unk>"})");
  EXPECT_NE(error().find("tokenizer_config.json: unk_token \"<unk>\" is not supported"), std::string::npos) << error();
  write_file(dir / "tokenizer_config.json", R"({"do_basic_tokenize": false})");
  EXPECT_NE(error().find("do_basic_tokenize false"), std::string::npos) << error();
  write_file(dir / "tokenizer_config.json", R"({"never_split": ["北京"]})");
  EXPECT_NE(error().find("never_split"), std::string::npos) << error();
  write_file(dir / "tokenizer_config.json", "{}");
  write_file(dir / "special_tokens_map.json", R"({"cls_token": {"content": "<s>"}})");
  EXPECT_NE(error().find("special_tokens_map.json: cls_token \"<s>\""), std::string::npos) << error();
  write_file(dir / "special_tokens_map.json", "{}");
  write_file(dir / "added_tokens.json", R"({"[ADDR]": 3490})");
  EXPECT_NE(error().find("added_tokens.json: added tokens are not supported"), std::string::npos) << error();
}

}  // namespace
}  // namespace geoalign::model
