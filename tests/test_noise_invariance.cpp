// Invisible characters and blanks that carry no meaning must not change a decision: the
// shipped model scores each pair again with zero-width spaces and byte-order marks
// anywhere, and no-break, ideographic or ASCII blanks between Chinese characters and at
// the ends, and must give the same label and probabilities. On a sample of the real
// pairs in ../shared/data when it is there, else on hand-written pairs.
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "geoalign/matcher.h"
#include "support/temp_dir.h"
#include "text/unicode.h"
#include "text/utf8.h"

namespace geoalign {
namespace {

using testing::source_dir;

std::vector<AddressPair> sample_pairs(std::size_t wanted) {
  const auto real = source_dir() / "../shared/data/ccks2021_address_relevance/pairs.tsv";
  std::vector<AddressPair> all;
  if (std::ifstream in(real); in) {
    for (std::string line; std::getline(in, line);) {
      const auto tab = line.find('\t');
      if (tab == std::string::npos) continue;
      const auto tab2 = line.find('\t', tab + 1);
      all.push_back({line.substr(0, tab), line.substr(tab + 1, tab2 == std::string::npos ? tab2 : tab2 - tab - 1)});
    }
  }
  if (all.empty()) {
    return {{"杭州市西湖区文三路478号华星科技大厦", "文三路478号华星大厦"},
            {"北京市朝阳区建国路88号", "北京朝阳建外88号"},
            {"深圳市南山区科技园B栋301", "深圳南山科技园B栋301室"},
            {"上海市浦东新区陆家嘴环路1000号", "上海市黄浦区南京东路100号"},
            {"栖霞区仙林街道文枢东路2号商住楼4楼", "栖霞区文枢东路2号书店"},
            {"紫萱路363号人力社保局", "紫萱路363号市人社局"}};
  }
  std::vector<AddressPair> sample;
  const std::size_t step = std::max<std::size_t>(1, all.size() / wanted);
  for (std::size_t i = 0; i < all.size() && sample.size() < wanted; i += step) sample.push_back(all[i]);
  return sample;
}

std::string add_noise(const std::string& address, std::mt19937& rng) {
  static const std::u32string kInvisible[] = {U"\u200B", U"\uFEFF"};
  static const std::u32string kBlanks[] = {U"\u00A0", U"\u3000", U" ", U"  "};
  std::uniform_int_distribution<int> coin(0, 9), pick(0, 1), blank(0, 3);
  const std::u32string text = text::decode_utf8(address);
  std::u32string out = kBlanks[blank(rng)] + kInvisible[pick(rng)];
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (i + 1 == text.size()) break;
    if (coin(rng) < 2) out += kInvisible[pick(rng)];
    if (text::unicode::is_cjk_ideograph(text[i]) && text::unicode::is_cjk_ideograph(text[i + 1]) && coin(rng) < 2) {
      out += kBlanks[blank(rng)];
    }
  }
  out += kInvisible[pick(rng)] + kBlanks[blank(rng)];
  return text::encode_utf8(out);
}

class NoiseInvariance : public ::testing::TestWithParam<Precision> {};

TEST_P(NoiseInvariance, NoiseChangesNoDecision) {
  const auto dir = source_dir() / "models/default";
  if (!std::filesystem::exists(dir / "model.safetensors")) GTEST_SKIP() << "no shipped model";
  const auto matcher = Matcher::load(dir, {.precision = GetParam()});
  const auto clean = sample_pairs(300);
  std::mt19937 rng(7);
  std::vector<AddressPair> noisy;
  for (const auto& p : clean) noisy.push_back({add_noise(p.a, rng), add_noise(p.b, rng)});
  const auto want = matcher.score(clean), got = matcher.score(noisy);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].label, want[i].label) << clean[i].a << " | " << clean[i].b;
    for (std::size_t k = 0; k < want[i].probabilities.size(); ++k) {
      EXPECT_NEAR(got[i].probabilities[k], want[i].probabilities[k], 1e-4f) << clean[i].a << " | " << clean[i].b;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Precisions, NoiseInvariance, ::testing::Values(Precision::FP32, Precision::Auto),
                         [](const auto& param_info) { return param_info.param == Precision::FP32 ? "fp32" : "auto"; });

}  // namespace
}  // namespace geoalign
