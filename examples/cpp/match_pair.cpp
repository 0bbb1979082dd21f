// Scores one address pair, parses its first address, looks the first address up among the
// second and two others in an index, and deduplicates the pair with a third address, with
// geoalign's public C++ API:
//   match_pair ADDRESS_A ADDRESS_B [MODEL_DIR]
#include <cstdio>
#include <exception>
#include <filesystem>
#include <vector>

#include <geoalign/dedup.h>
#include <geoalign/index.h>
#include <geoalign/matcher.h>
#include <geoalign/parser.h>

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: match_pair ADDRESS_A ADDRESS_B [MODEL_DIR]\n");
    return 2;
  }
  const std::filesystem::path model_dir = argc == 4 ? argv[3] : GEOALIGN_EXAMPLE_MODEL_DIR;
  try {
    const geoalign::Matcher matcher = geoalign::Matcher::load(model_dir);
    const std::vector<geoalign::AddressPair> pairs = {{argv[1], argv[2]}};
    const geoalign::MatchResult result = matcher.score(pairs).front();
    std::printf("%s\t%.4f\n", result.label.c_str(), result.score);

    const auto parser = geoalign::AddressParser::load(model_dir / "parser");
    for (const auto& element : parser.parse(argv[1]).elements) {
      std::printf("%s\t%s\n", element.tag.c_str(), element.text.c_str());
    }

    geoalign::Index index = geoalign::Index::create(model_dir);
    const std::vector<geoalign::IndexRecord> records = {
        {"b", argv[2]}, {"bj", "北京市海淀区中关村大街27号"}, {"gz", "广州市天河区体育西路191号"}};
    index.add(records);
    const std::vector<std::string> queries = {argv[1]};
    const std::vector<std::vector<geoalign::IndexHit>> hits = index.search(queries);
    const geoalign::IndexHit& best = hits.front().front();
    std::printf("best hit\t%s\t%s\t%.4f\n", best.id.c_str(), best.text.c_str(), best.score);

    const auto dedup = geoalign::Deduplicator::load(model_dir);
    const std::vector<std::string> rows = {argv[1], argv[2], "广州市天河区体育西路191号"};
    const geoalign::DedupTable table = dedup.run(rows);
    std::printf("clusters\t%zu\t", table.clusters);
    for (const std::size_t first_row : table.cluster_row) std::printf("%zu", first_row);
    std::printf("\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "match_pair: %s\n", e.what());
    return 1;
  }
  return 0;
}
