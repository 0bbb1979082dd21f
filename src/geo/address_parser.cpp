#include "geo/address_parser.h"

#include <algorithm>
#include <future>

#include "geo/admin_resolver.h"
#include "geo/address_tokens.h"
#include "geo/tag_set.h"
#include "geo/tagger_features.h"
#include "geo/division_rules.h"
#include "text/utf8.h"

namespace geoalign {

namespace geo {

namespace {

std::vector<AddressElement> elements_of(std::u32string_view text, const std::vector<AddressToken>& tokens,
                                        const std::vector<Label>& labels, const Gazetteer& gazetteer) {
  std::vector<AddressElement> elements;
  for (const TagSpan& span : spans_from_labels(labels)) {
    AddressElement e;
    e.tag = tag_name(span.tag);
    e.start = tokens[span.begin].start;
    e.end = tokens[span.end - 1].end;
    e.text = text::encode_utf8(text.substr(e.start, e.end - e.start));
    elements.push_back(std::move(e));
  }
  tag_leading_country(elements);
  retag_trailing_divisions(elements, text, gazetteer);
  tag_municipality_as_city(elements, gazetteer);
  return elements;
}

}  // namespace

std::vector<AddressElement> tag_elements(std::u32string_view text, const Gazetteer& gazetteer,
                                         const SequenceTagger& tagger, const HistoricalDivisions* historical) {
  if (const std::size_t n = leading_country(text, gazetteer); n > 0) {
    auto rest = tag_elements(text.substr(n), gazetteer, tagger, historical);
    for (auto& e : rest) {
      e.start += n;
      e.end += n;
    }
    rest.insert(rest.begin(), AddressElement{"country", text::encode_utf8(text.substr(0, n)), 0, n});
    return rest;
  }
  const auto tokens = tokenize_address(text);
  // Brackets and list marks separate elements (separates_elements), as '-' and '_' do,
  // which the data tags redundant. The tagged data has none of them, and the tagger
  // guessed at them (a closing bracket became a house number, 北京/ a redundant name), so it
  // reads the address without them, as the data would write it. Every variant counts, for
  // text that was not normalized.
  static const std::size_t kRedundant = *tag_index("redundant");
  auto is_mark = [&](const AddressToken& t) { return t.end == t.start + 1 && separates_elements(text[t.start]); };
  if (std::none_of(tokens.begin(), tokens.end(), is_mark)) {
    return elements_of(text, tokens, tagger.tag(extract_features(tokens, gazetteer, historical)), gazetteer);
  }
  std::vector<AddressToken> words;
  words.reserve(tokens.size());
  for (const auto& t : tokens) {
    if (!is_mark(t)) words.push_back(t);
  }
  const auto word_labels = words.empty() ? std::vector<Label>() : tagger.tag(extract_features(words, gazetteer, historical));
  // A mark is an element of its own. spans_from_labels ends the element before it there,
  // and one the tagger ran across it continues after it as a new element.
  std::vector<Label> labels(tokens.size());
  for (std::size_t i = 0, w = 0; i < tokens.size(); ++i) {
    labels[i] = is_mark(tokens[i]) ? make_label(kRedundant, LabelKind::kSingle) : word_labels[w++];
  }
  return elements_of(text, tokens, labels, gazetteer);
}

}  // namespace geo

AddressParser::AddressParser(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
AddressParser::AddressParser(AddressParser&&) noexcept = default;
AddressParser& AddressParser::operator=(AddressParser&&) noexcept = default;
AddressParser::~AddressParser() = default;

AddressParser AddressParser::load(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir)) {
    throw Error("parser folder " + dir.string() + " does not exist (expected " + geo::kTaggerFile + " and " +
                geo::kGazetteerFile + ")");
  }
  // The tagger's table is read on a second thread while the gazetteer is parsed here:
  // the two are independent, and each took about half of the parser's load (35 and 70 ms
  // of the start of score on the project's VM).
  auto loading_tagger =
      std::async(std::launch::async, [file = dir / geo::kTaggerFile] { return geo::SequenceTagger::load(file); });
  auto gazetteer = geo::Gazetteer::load(dir / geo::kGazetteerFile);
  auto tagger = loading_tagger.get();
  // A folder written before historical.tsv existed still loads, without former names.
  const auto historical_file = dir / geo::kHistoricalFile;
  auto historical = std::filesystem::exists(historical_file) ? geo::HistoricalDivisions::load(historical_file, gazetteer)
                                                             : geo::HistoricalDivisions();
  const auto prior_file = dir / geo::kPriorFile;
  auto prior = std::filesystem::exists(prior_file) ? geo::DivisionPrior::load(prior_file, gazetteer)
                                                   : geo::DivisionPrior(gazetteer);
  return AddressParser(std::make_unique<Impl>(
      Impl{std::move(gazetteer), std::move(tagger), dir, std::move(historical), std::move(prior)}));
}

const std::filesystem::path& AddressParser::folder() const { return impl_->folder; }

ParsedAddress AddressParser::parse(std::string_view utf8, const ParseOptions& options) const {
  const std::u32string text = text::decode_utf8(utf8);
  if (text.size() > kMaxChars) {
    throw Error("the address is " + std::to_string(text.size()) + " characters long; the parser reads at most " +
                std::to_string(kMaxChars));
  }
  ParsedAddress out;
  out.text = std::string(utf8);
  out.elements = geo::tag_elements(text, impl_->gazetteer, impl_->tagger, &impl_->historical);
  out.admin = geo::resolve_admin(out.elements, impl_->gazetteer, &impl_->historical,
                                 options.guess ? &impl_->prior : nullptr);
  return out;
}

ParsedAddress AddressParser::complete(std::string_view utf8, std::vector<AddressElement> elements,
                                      const ParseOptions& options) const {
  ParsedAddress out;
  out.text = std::string(utf8);
  const std::u32string text = text::decode_utf8(utf8);
  for (AddressElement& e : elements) {
    if (!geo::tag_index(e.tag)) throw Error("element tag \"" + e.tag + "\" is not one of the parser's");
    if (e.start > e.end || e.end > text.size()) {
      throw Error("element [" + std::to_string(e.start) + ", " + std::to_string(e.end) + ") lies outside the " +
                  std::to_string(text.size()) + " characters of the address");
    }
    e.text = text::encode_utf8(std::u32string_view(text).substr(e.start, e.end - e.start));
  }
  out.elements = std::move(elements);
  out.admin = geo::resolve_admin(out.elements, impl_->gazetteer, &impl_->historical,
                                 options.guess ? &impl_->prior : nullptr);
  return out;
}

std::vector<std::vector<AdminDivision>> AddressParser::divisions_named(std::string_view name) const {
  const geo::Gazetteer& g = impl_->gazetteer;
  std::vector<std::vector<AdminDivision>> out;
  for (const std::int32_t d : g.lookup(text::decode_utf8(name))) {
    if (g.division(d).level == geo::AdminLevel::Town || g.division(d).placeholder) continue;
    std::vector<AdminDivision>& chain = out.emplace_back();
    for (const std::int32_t a : g.chain(d)) {
      if (!g.division(a).placeholder) chain.push_back({g.division(a).name, g.division(a).code, false});
    }
  }
  return out;
}

}  // namespace geoalign
