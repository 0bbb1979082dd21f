// libFuzzer: arbitrary bytes as an address for the parser (with and without the admin
// guess) and the match head's pair features, as a CoNLL file and as a term weights file.
// Invalid input may throw geoalign::Error; anything else (a crash, another exception, an
// element outside the text, a guess without an ambiguity, a feature that is not finite) is
// a bug.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "geo/address_parser.h"
#include "geo/conll.h"
#include "geo/tagger_training.h"
#include "geoalign/parser.h"
#include "match/pair_features.h"
#include "match/term_weights.h"
#include "text/utf8.h"

namespace {

constexpr const char* kGazetteer =
    "11\tprov\t北京市\t\n1101\tcity\t市辖区\t11\n110105\tdistrict\t朝阳区\t1101\n"
    "22\tprov\t吉林省\t\n2201\tcity\t长春市\t22\n220104\tdistrict\t朝阳区\t2201\n"
    "220104001\ttown\t朝阳区街道\t220104\n";

constexpr const char* kTraining =
    "北 B-prov\n京 I-prov\n朝 B-district\n阳 I-district\n建 B-road\n国 I-road\n路 I-road\n88 B-roadno\n号 I-roadno\n\n"
    "长 B-city\n春 I-city\n市 I-city\nA B-houseno\n栋 I-houseno\n12 B-roomno\n室 I-roomno\n\n";

// A parser folder trained once, on a few lines, in a temporary directory.
const geoalign::AddressParser& parser() {
  static const geoalign::AddressParser instance = [] {
    const auto dir = std::filesystem::temp_directory_path() / ("geoalign_fuzz_parser_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / geoalign::geo::kGazetteerFile) << kGazetteer;
    // The prior of the admin guess: 朝阳区 alone is ambiguous, and guessed.
    std::ofstream(dir / geoalign::geo::kPriorFile) << "110105\t3\n220104\t1\n2201\t1\n";
    std::istringstream gazetteer_in(kGazetteer), training_in(kTraining);
    const auto gazetteer = geoalign::geo::Gazetteer::parse(gazetteer_in, "fuzz gazetteer");
    std::vector<geoalign::geo::TaggedSequence> data;
    for (const auto& a : geoalign::geo::read_conll(training_in, "fuzz training")) {
      data.push_back({geoalign::geo::extract_features(a.tokens, gazetteer), a.labels});
    }
    geoalign::geo::TaggerTrainingOptions options;
    options.epochs = 2;
    geoalign::geo::train_tagger(data, options).save(dir / geoalign::geo::kTaggerFile);
    auto loaded = geoalign::AddressParser::load(dir);
    std::filesystem::remove_all(dir);
    return loaded;
  }();
  return instance;
}

const geoalign::match::TermWeights& term_weights() {
  static const auto instance = geoalign::match::TermWeights::parse("documents\t10\n路\t9\n朝阳\t2\n", "fuzz weights");
  return instance;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  try {
    const auto parsed = parser().parse(input);
    const std::size_t length = geoalign::text::decode_utf8(input).size();
    for (const auto& e : parsed.elements) {
      if (e.start >= e.end || e.end > length) std::abort();
    }
    // A guess only beside an ambiguity, always with a reading; without guessing, the same
    // elements and candidates and no guess.
    const auto& admin = parsed.admin;
    if (admin.guess && (!admin.ambiguous || admin.adcode.empty() || admin.guess->reading.empty())) std::abort();
    if (admin.ambiguous && !admin.guess) std::abort();
    const auto plain = parser().parse(input, {.guess = false});
    if (plain.admin.guess || plain.admin.candidates != admin.candidates || plain.elements.size() != parsed.elements.size()) {
      std::abort();
    }
    const auto other = parser().parse("北京市朝阳区建国路88号A栋12室");
    for (const auto& features : {geoalign::match::pair_features(parsed, other, term_weights()),
                                 geoalign::match::pair_features(other, parsed, term_weights())}) {
      if (features.size() != geoalign::match::pair_feature_names().size()) std::abort();
      for (const float v : features) {
        if (!std::isfinite(v)) std::abort();
      }
    }
  } catch (const geoalign::Error&) {
  }
  try {
    geoalign::match::TermWeights::parse(input, "fuzz");
  } catch (const geoalign::Error&) {
  }
  try {
    std::istringstream in(input);
    for (const auto& a : geoalign::geo::read_conll(in, "fuzz")) {
      if (a.tokens.size() != a.labels.size()) std::abort();
    }
  } catch (const geoalign::Error&) {
  }
  return 0;
}
