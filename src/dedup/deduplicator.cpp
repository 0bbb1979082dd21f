#include "dedup/deduplicator.h"

#include <algorithm>
#include <atomic>
#include <optional>

#include "backend/cpu/parallel.h"

namespace geoalign::dedup {

namespace {

// Postings one address's lexical lookup may scan: blocking runs one lookup per address, so
// its cost must not grow with the file (the rarest grams, which decide, come first).
constexpr std::size_t kBlockingPostings = 20000;

// Pairs scored per call: large enough to amortize, small enough to spread over cores.
constexpr std::size_t kScoreChunk = 2048;

// Two addresses that each name a different province or city are never one place. Levels
// the parser completed from below (inferred) do not count: a village name can complete to
// the wrong city, and blocking must not lose a match on a guess.
bool admin_conflict(const AdminChain& x, const AdminChain& y) {
  auto differ = [](const std::optional<AdminDivision>& p, const std::optional<AdminDivision>& q) {
    return p && q && !p->inferred && !q->inferred && p->code != q->code;
  };
  return differ(x.prov, y.prov) || differ(x.city, y.city);
}

void step(const index::BuildProgress& progress, const char* name, std::size_t total) {
  if (progress.step) progress.step(name, total);
}

}  // namespace

MergeRule parse_merge_rule(std::string_view name) {
  if (name == "exact") return MergeRule::Exact;
  if (name == "partial") return MergeRule::ExactOrPartial;
  throw Error("unknown merge rule \"" + std::string(name) + "\" (exact, partial)");
}

float link_of(const PairEvidence& m, MergeRule rule) {
  // How the merging class fares against its strongest rival: at 0.5 exactly where the
  // scorer's label changes, so a pair links at the default threshold when `score` would
  // label it a match (the head's class offsets are in its probabilities).
  const float merging = rule == MergeRule::Exact ? m.p_exact_match : std::max(m.p_exact_match, m.p_partial_match);
  const float rival = rule == MergeRule::Exact ? std::max(m.p_not_match, m.p_partial_match) : m.p_not_match;
  return merging + rival > 0 ? merging / (merging + rival) : 0.0f;
}

DedupResult deduplicate(const index::AddressModel& model, const std::vector<std::string>& rows, const DedupOptions& options,
                        const index::BuildProgress& progress) {
  DedupResult r;
  // Normalize; identical normalized texts are one address from here on.
  step(progress, "normalize", rows.size());
  std::vector<std::string> normalized(rows.size());
  std::vector<std::optional<std::string>> errors(rows.size());
  cpu::parallel_for_dynamic(static_cast<std::int64_t>(rows.size()), 256, [&](std::int64_t i) {
    const auto k = static_cast<std::size_t>(i);
    try {
      normalized[k] = model.normalize(rows[k]);
    } catch (const std::exception& e) {
      errors[k] = e.what();
    }
  });
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (errors[k]) throw Error("row " + std::to_string(k + 1) + ": " + *errors[k]);
    if (normalized[k].empty()) throw Error("row " + std::to_string(k + 1) + ": the address is blank after normalization");
    const auto [it, fresh] = r.address_of_text.emplace(normalized[k], static_cast<std::uint32_t>(r.texts.size()));
    if (fresh) r.texts.push_back(std::move(normalized[k]));
    r.address_of_row.push_back(it->second);
  }
  std::vector<std::string>().swap(normalized);
  const std::size_t n = r.texts.size();

  step(progress, "parse", n);
  std::vector<index::Address> addresses(n);
  std::atomic<std::size_t> done{0};
  cpu::parallel_for_dynamic(static_cast<std::int64_t>(n), 64, [&](std::int64_t i) {
    const auto k = static_cast<std::size_t>(i);
    try {
      addresses[k] = model.prepare(r.texts[k]);
    } catch (const std::exception& e) {
      errors[k] = e.what();
    }
    if (progress.done && ++done % 1024 == 0) progress.done(done);
  });
  for (std::size_t k = 0; k < n; ++k) {
    if (errors[k]) throw Error("address \"" + r.texts[k] + "\": " + *errors[k]);
  }

  step(progress, "embed", n);
  const std::vector<std::string_view> views(r.texts.begin(), r.texts.end());
  const std::vector<float> vectors = model.embed(views, progress.done);
  const std::size_t dim = model.dim();
  step(progress, "graph", n);
  index::VectorIndex graph(dim, {});
  graph.add(vectors, progress.done);
  index::StringColumn column;
  for (const auto& t : r.texts) column.push_back(t);
  const index::LexicalIndex lexical = index::LexicalIndex::build(column);

  // Blocking: each address's neighbours by characters and by meaning.
  step(progress, "block", n);
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> found(n);
  done = 0;
  const std::size_t k = options.neighbours + 1;  // the address itself comes back too
  cpu::parallel_for_dynamic(static_cast<std::int64_t>(n), 64, [&](std::int64_t i) {
    const auto u = static_cast<std::uint32_t>(i);
    auto keep = [&](const std::vector<index::Hit>& hits) {
      for (const auto& h : hits) {
        if (h.record == u || admin_conflict(addresses[u].parsed.admin, addresses[h.record].parsed.admin)) continue;
        found[u].emplace_back(std::min(u, h.record), std::max(u, h.record));
      }
    };
    keep(lexical.search(r.texts[u], k, {}, kBlockingPostings));
    keep(graph.search({vectors.data() + static_cast<std::size_t>(u) * dim, dim}, k, std::max<std::size_t>(k, 32)));
    if (progress.done && ++done % 1024 == 0) progress.done(done);
  });
  for (auto& f : found) {
    r.candidates.insert(r.candidates.end(), f.begin(), f.end());
    std::vector<std::pair<std::uint32_t, std::uint32_t>>().swap(f);
  }
  std::sort(r.candidates.begin(), r.candidates.end());
  r.candidates.erase(std::unique(r.candidates.begin(), r.candidates.end()), r.candidates.end());

  // Scoring, in chunks over every core.
  auto score = [&](std::span<const std::pair<std::uint32_t, std::uint32_t>> pairs, bool report) {
    std::vector<MatchResult> out(pairs.size());
    auto run_chunk = [&](std::size_t first) {
      const std::size_t m = std::min(kScoreChunk, pairs.size() - first);
      std::vector<std::pair<const index::Address*, const index::Address*>> refs;
      for (std::size_t j = first; j < first + m; ++j) refs.emplace_back(&addresses[pairs[j].first], &addresses[pairs[j].second]);
      std::vector<MatchResult> results = model.score(refs);
      std::move(results.begin(), results.end(), out.begin() + static_cast<std::ptrdiff_t>(first));
      if (report && progress.done) progress.done(done += m);
    };
    const std::size_t chunks = (pairs.size() + kScoreChunk - 1) / kScoreChunk;
    if (model.fast_pairs()) {
      cpu::parallel_for_dynamic(static_cast<std::int64_t>(chunks), 1, [&](std::int64_t c) { run_chunk(static_cast<std::size_t>(c) * kScoreChunk); });
    } else {
      for (std::size_t c = 0; c < chunks; ++c) run_chunk(c * kScoreChunk);  // the cross-encoder uses every core itself
    }
    return out;
  };
  step(progress, "score", r.candidates.size());
  done = 0;
  std::vector<MatchResult> matches = score(r.candidates, true);
  std::vector<ScoredPair> links;
  links.reserve(r.candidates.size());
  for (std::size_t j = 0; j < r.candidates.size(); ++j) {
    r.scored.push_back(PairEvidence::of(r.candidates[j].first, r.candidates[j].second, matches[j]));
    links.push_back({r.candidates[j].first, r.candidates[j].second, link_of(r.scored.back(), options.rule)});
  }

  if (options.exhaustive_check) {
    if (n > kMaxExhaustive) {
      throw Error("--exhaustive-check scores all pairs: at most " + std::to_string(kMaxExhaustive) + " addresses, not " +
                  std::to_string(n));
    }
    step(progress, "exhaustive", n * (n - 1) / 2);
    done = 0;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> all;
    auto count_links = [&] {
      const std::vector<MatchResult> results = score(all, true);
      for (std::size_t j = 0; j < all.size(); ++j) {
        if (link_of(PairEvidence::of(all[j].first, all[j].second, results[j]), options.rule) < options.threshold) continue;
        ++r.exhaustive_links;
        r.exhaustive_links_blocked += std::binary_search(r.candidates.begin(), r.candidates.end(), all[j]);
      }
      all.clear();
    };
    for (std::uint32_t a = 0; a < n; ++a) {
      for (std::uint32_t b = a + 1; b < n; ++b) {
        all.emplace_back(a, b);
        if (all.size() == (1u << 20)) count_links();
      }
    }
    count_links();
  }

  step(progress, "cluster", 0);
  AverageLinkage clustering(n, options.threshold, [&](std::span<const std::pair<std::uint32_t, std::uint32_t>> pairs) {
    std::vector<MatchResult> results = score(pairs, false);
    std::vector<float> out;
    for (std::size_t j = 0; j < pairs.size(); ++j) {
      r.scored.push_back(PairEvidence::of(pairs[j].first, pairs[j].second, results[j]));
      out.push_back(link_of(r.scored.back(), options.rule));
    }
    return out;
  });
  r.cluster = clustering.run(links);

  r.best_match.assign(n, -1);
  r.best_link.assign(n, 0.0f);
  for (const auto& e : r.scored) {
    const float l = link_of(e, options.rule);
    for (const auto& [x, y] : {std::pair{e.a, e.b}, std::pair{e.b, e.a}}) {
      if (r.best_match[x] < 0 || l > r.best_link[x]) {
        r.best_match[x] = y;
        r.best_link[x] = l;
      }
    }
  }
  return r;
}

}  // namespace geoalign::dedup
