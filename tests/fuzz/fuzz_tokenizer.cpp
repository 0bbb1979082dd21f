// libFuzzer: arbitrary bytes as an address pair. Invalid UTF-8 must raise Utf8Error;
// anything else must encode within max_length without crashing, and the first address
// must normalize (geoalign's own normalization) to a text that normalizing again leaves
// as it is.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "text/normalize.h"
#include "text/utf8.h"
#include "text/wordpiece_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace geoalign::text;
  static const WordPieceTokenizer tokenizer =
      WordPieceTokenizer::from_file(GEOALIGN_SOURCE_DIR "/tests/fixtures/tiny_bert/vocab.txt", {});
  if (size == 0) return 0;
  const std::size_t max_length = 3 + data[0] % 126;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto split = text.find('\t');
  const std::string_view a = text.substr(0, split);
  const std::string_view b = split == std::string_view::npos ? std::string_view() : text.substr(split + 1);
  try {
    const EncodedInput e = tokenizer.encode_pair(a, b, max_length);
    if (e.input_ids.size() > max_length || e.input_ids.size() != e.token_type_ids.size()) std::abort();
  } catch (const Utf8Error&) {
    if (find_invalid_utf8(a) == std::nullopt && find_invalid_utf8(b) == std::nullopt) std::abort();
  }
  static const AddressNormalizer normalizer(NormalizeOptions::addresses());
  try {
    const std::string once = normalizer.normalize(a);
    if (normalizer.normalize(once) != once) std::abort();
  } catch (const Utf8Error&) {
    if (find_invalid_utf8(a) == std::nullopt) std::abort();
  }
  return 0;
}
