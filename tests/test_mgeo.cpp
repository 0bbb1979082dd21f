// MGeo's checkpoints as ModelScope's MGeoForSequenceClassification runs them: the text
// encoder's layers [0, fusion_layer) only, BERT's pooler and the classifier. The fixture
// tests/fixtures/tiny_mgeo and its golden file come from tools/reference/make_mgeo_fixture.py
// (3 layers, fusion_layer 2, cross-attention in layer 2, converted from pytorch_model.bin).
// Also: what a checkpoint may hold that geoalign does not run, and what it rejects.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

#include "geoalign/matcher.h"
#include "model/model_folder.h"
#include "support/safetensors_writer.h"
#include "support/load_error.h"
#include "support/temp_dir.h"

namespace geoalign {
namespace {

using namespace geoalign::testing;

const nlohmann::json& golden() {
  static const auto g = nlohmann::json::parse(read_file(source_dir() / "tests/golden/tiny_mgeo_outputs.json"));
  return g;
}

std::vector<AddressPair> golden_pairs() {
  std::vector<AddressPair> pairs;
  for (const auto& p : golden()["pairs"]) pairs.push_back({p[0], p[1]});
  return pairs;
}

void rewrite_weights(const std::filesystem::path& folder,
                     const std::function<void(std::map<std::string, RawTensor>&)>& edit) {
  auto tensors = read_safetensors(folder / "model.safetensors");
  edit(tensors);
  write_file(folder / "model.safetensors", safetensors_bytes(tensors));
}

void edit_config(const std::filesystem::path& folder, const std::function<void(nlohmann::json&)>& edit) {
  auto config = nlohmann::json::parse(read_file(folder / "config.json"));
  edit(config);
  write_file(folder / "config.json", config.dump());
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

RawTensor zeros(std::vector<std::int64_t> shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return f32_tensor(shape, std::vector<float>(static_cast<std::size_t>(n), 0.0f));
}

// Probabilities of the golden pairs through the public API, fp32.
std::vector<MatchResult> score(const std::filesystem::path& folder) {
  return Matcher::load(folder, {.precision = Precision::FP32}).score(golden_pairs());
}

void expect_matches_golden(const std::vector<MatchResult>& got) {
  ASSERT_EQ(got.size(), golden()["probabilities"].size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto want = golden()["probabilities"][i].get<std::vector<float>>();
    ASSERT_EQ(got[i].probabilities.size(), want.size());
    for (std::size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[i].probabilities[k], want[k], 1e-4) << "pair " << i;
  }
}

TEST(Mgeo, FixtureIsMgeoShaped) {
  const auto m = model::ModelFolder::load(mgeo_fixture_model());
  EXPECT_EQ(m.config.bert.num_hidden_layers, 3);
  EXPECT_EQ(m.config.bert.fusion_layer, 2);
  EXPECT_TRUE(std::filesystem::exists(mgeo_fixture_model() / "configuration.json"));
  const auto tensors = read_safetensors(mgeo_fixture_model() / "model.safetensors");
  EXPECT_TRUE(tensors.count("bert.text_encoder.encoder.layer.2.crossattention.self.key.weight"));
  EXPECT_TRUE(tensors.count("bert.text_encoder.embeddings.position_ids"));
}

TEST(Mgeo, ProbabilitiesMatchMgeoReference) {
  const auto got = score(mgeo_fixture_model());
  expect_matches_golden(got);
  // The test means something only if running every layer gives other numbers.
  float gap = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto all = golden()["all_layers_probabilities"][i].get<std::vector<float>>();
    for (std::size_t k = 0; k < all.size(); ++k) gap = std::max(gap, std::abs(got[i].probabilities[k] - all[k]));
  }
  EXPECT_GT(gap, 0.05f);
}

TEST(Mgeo, LogitsMatchMgeoReference) {
  const auto m = model::ModelFolder::load(mgeo_fixture_model());
  std::vector<text::EncodedInput> inputs;
  for (const auto& p : golden()["pairs"]) {
    inputs.push_back(m.tokenizer.encode_pair(p[0].get<std::string>(), p[1].get<std::string>(), m.config.settings.max_length));
  }
  std::vector<const text::EncodedInput*> pointers;
  for (const auto& in : inputs) pointers.push_back(&in);
  model::BertModel::Workspace ws;
  Tensor probs;
  m.model.classify(runtime::TokenBatch::pack(pointers), ws, probs);
  const auto& want = golden()["logits"];
  ASSERT_EQ(static_cast<std::size_t>(ws.logits.dim(0)), want.size());
  for (std::size_t r = 0; r < want.size(); ++r) {
    for (std::size_t c = 0; c < 3; ++c) {
      EXPECT_NEAR(ws.logits.data<float>()[r * 3 + c], want[r][c].get<float>(), 1e-4) << "row " << r;
    }
  }
}

// The fusion layers are neither run nor loaded: changing or dropping them changes nothing.
TEST(Mgeo, FusionLayersAreNotLoaded) {
  TempDir dir;
  const auto folder = copy_fixture_model(dir, mgeo_fixture_model());
  rewrite_weights(folder, [](auto& t) {
    t.erase("bert.text_encoder.encoder.layer.2.output.dense.weight");
    t["bert.text_encoder.encoder.layer.2.attention.self.query.weight"] = zeros({5});
  });
  expect_matches_golden(score(folder));
}

TEST(Mgeo, CrossAttentionBelowFusionLayerIsRejected) {
  TempDir dir;
  const auto folder = copy_fixture_model(dir, mgeo_fixture_model());
  rewrite_weights(folder, [](auto& t) { t["bert.text_encoder.encoder.layer.1.crossattention.self.query.weight"] = zeros({16, 16}); });
  const std::string e = load_error(folder);
  EXPECT_TRUE(contains(e, (folder / "model.safetensors").string())) << e;
  EXPECT_TRUE(contains(e, "\"bert.text_encoder.encoder.layer.1.crossattention.self.query.weight\"")) << e;
  EXPECT_TRUE(contains(e, "1 tensor would change")) << e;
  EXPECT_TRUE(contains(e, "cross-attention in layer 1, below fusion_layer 2")) << e;
}

// fusion_layer = num_hidden_layers asks to run layer 2 as a text layer, but it has cross-attention.
TEST(Mgeo, FusionLayerThatWouldRunAFusionLayerIsRejected) {
  TempDir dir;
  const auto folder = copy_fixture_model(dir, mgeo_fixture_model());
  edit_config(folder, [](auto& c) { c["fusion_layer"] = 3; });
  const std::string e = load_error(folder);
  EXPECT_TRUE(contains(e, "bert.text_encoder.encoder.layer.2.crossattention.")) << e;
  // query, key, value, output.dense and output.LayerNorm, weight and bias; 4 of them are listed.
  EXPECT_TRUE(contains(e, "10 tensors")) << e;
  EXPECT_TRUE(contains(e, "cross-attention in layer 2, below fusion_layer 3")) << e;
  EXPECT_TRUE(contains(e, "and 6 more")) << e;
}

// A plain BERT folder whose config.json carries fusion_layer: Hugging Face runs every
// layer, so dropping some would answer wrong without a word.
TEST(Mgeo, FusionLayerOnAPlainBertIsRefused) {
  TempDir dir;
  const auto folder = copy_fixture_model(dir, fixture_model());
  edit_config(folder, [](auto& c) { c["fusion_layer"] = 1; });
  const std::string e = load_error(folder);
  EXPECT_TRUE(contains(e, "fusion_layer 1")) << e;
  EXPECT_TRUE(contains(e, "not MGeo's")) << e;
  edit_config(folder, [](auto& c) { c["fusion_layer"] = 2; });  // every layer: harmless
  EXPECT_EQ(load_error(folder), "");
}

TEST(Mgeo, FusionLayerOutOfRangeIsRejected) {
  for (const nlohmann::json& value : {nlohmann::json(0), nlohmann::json(4), nlohmann::json(-1), nlohmann::json("2")}) {
    TempDir dir;
    const auto folder = copy_fixture_model(dir, mgeo_fixture_model());
    edit_config(folder, [&](auto& c) { c["fusion_layer"] = value; });
    const std::string e = load_error(folder);
    EXPECT_TRUE(contains(e, (folder / "config.json").string())) << e;
    EXPECT_TRUE(contains(e, "fusion_layer")) << e;
  }
}

TEST(Mgeo, GisEmbeddingIsRejected) {
  TempDir dir;
  const auto folder = copy_fixture_model(dir, mgeo_fixture_model());
  edit_config(folder, [](auto& c) { c["gis_embedding"] = 1; });
  const std::string e = load_error(folder);
  EXPECT_TRUE(contains(e, (folder / "config.json").string())) << e;
  EXPECT_TRUE(contains(e, "gis_embedding 1")) << e;
  EXPECT_TRUE(contains(e, "not supported")) << e;
}

TEST(Mgeo, GisTensorsAreRejected) {
  TempDir dir;
  const auto folder = copy_fixture_model(dir, mgeo_fixture_model());
  rewrite_weights(folder, [](auto& t) {
    t["bert.text_encoder.embeddings.rel_type_embeddings.weight"] = zeros({4, 16});
    t["bert.gis2text.weight"] = zeros({16, 16});
  });
  const std::string e = load_error(folder);
  EXPECT_TRUE(contains(e, "2 tensors")) << e;
  EXPECT_TRUE(contains(e, "one of MGeo's GIS embeddings, which geoalign does not support: "
                          "\"bert.text_encoder.embeddings.rel_type_embeddings.weight\"")) << e;
  EXPECT_TRUE(contains(e, "part of MGeo's multi-modal GIS encoder, which geoalign does not support: "
                          "\"bert.gis2text.weight\"")) << e;
}

TEST(Mgeo, UnknownEncoderTensorsAreRejected) {
  struct Case {
    std::filesystem::path fixture;
    std::string tensor, why;
  };
  const Case cases[] = {
      {mgeo_fixture_model(), "bert.text_encoder.encoder.layer.0.attention.self.distance_embedding.weight",
       "a layer parameter geoalign does not know"},
      {mgeo_fixture_model(), "bert.text_encoder.encoder.layer.3.output.dense.weight",
       "layer 3 is beyond config.json's num_hidden_layers 3"},
      {mgeo_fixture_model(), "bert.text_encoder.pooler.extra.weight", "a tensor of the encoder geoalign does not know"},
      {mgeo_fixture_model(), "bert.something.weight", "a tensor of MGeo's backbone geoalign does not know"},
      {fixture_model(), "bert.embeddings.extra_embeddings.weight", "an embedding geoalign does not know"},
      {fixture_model(), "classifier.dense.weight", "a classifier tensor geoalign does not know"},
  };
  for (const auto& c : cases) {
    TempDir dir;
    const auto folder = copy_fixture_model(dir, c.fixture);
    rewrite_weights(folder, [&](auto& t) { t[c.tensor] = zeros({16}); });
    const std::string e = load_error(folder);
    EXPECT_TRUE(contains(e, (folder / "model.safetensors").string())) << e;
    EXPECT_TRUE(contains(e, c.why + ": \"" + c.tensor + "\"")) << e;
  }
}

// What a plain Hugging Face checkpoint may carry beside the encoder and still load as before:
// the pretraining heads (BertForPreTraining) and the position_ids buffer.
TEST(Mgeo, PlainCheckpointsKeepLoadingWithHeadsAndBuffers) {
  TempDir dir;
  const auto folder = copy_fixture_model(dir);
  const auto before = Matcher::load(folder, {.precision = Precision::FP32}).score(golden_pairs());
  rewrite_weights(folder, [](auto& t) {
    t["cls.predictions.bias"] = zeros({384});
    t["cls.predictions.transform.dense.weight"] = zeros({32, 32});
    t["cls.seq_relationship.weight"] = zeros({2, 32});
    t["bert.embeddings.position_ids"] = RawTensor{"I64", {1, 128}, std::string(8 * 128, '\0')};
  });
  const auto after = Matcher::load(folder, {.precision = Precision::FP32}).score(golden_pairs());
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < after.size(); ++i) EXPECT_EQ(after[i].probabilities, before[i].probabilities);
}

// A pair classifier puts the second address in token type 1, so it needs two token types;
// a model without a classification head only embeds (token type 0) and may have one.
TEST(Mgeo, OneTokenTypeIsRejectedForAClassifierOnly) {
  TempDir dir;
  const auto folder = copy_fixture_model(dir, mgeo_fixture_model());
  edit_config(folder, [](auto& c) { c["type_vocab_size"] = 1; });
  rewrite_weights(folder, [](auto& t) {
    auto& types = t["bert.text_encoder.embeddings.token_type_embeddings.weight"];
    types.shape = {1, 16};
    types.bytes.resize(16 * 4);
  });
  const std::string e = load_error(folder);
  EXPECT_TRUE(contains(e, (folder / "config.json").string())) << e;
  EXPECT_TRUE(contains(e, "type_vocab_size 1")) << e;

  rewrite_weights(folder, [](auto& t) {
    t.erase("classifier.weight");
    t.erase("classifier.bias");
  });
  const auto m = model::ModelFolder::load(folder);
  EXPECT_FALSE(m.model.can_classify());
  const auto matcher = Matcher::load(folder, {.precision = Precision::FP32});
  const auto vectors = matcher.embed(std::vector<std::string>{"北京市朝阳区建国路88号"}, Pooling::Cls);
  ASSERT_EQ(vectors.size(), 1u);
  EXPECT_EQ(vectors[0].size(), 16u);
}

}  // namespace
}  // namespace geoalign
