"""One decision per pair: every front end gives the probabilities the engine gives.

The same pairs go through `geoalign score`, the server's /v1/match, Matcher.score and
geoalign.dask.score (the cross-encoder and match head), in the symmetric reading and read
as given, and through `geoalign score --head H`, Index.search's rerank and `geoalign
dedup`'s scored pairs with each head H (rerank, their default, and match).
In the symmetric reading which of two addresses comes first cannot change the answer:
that is checked against the two ordered readings, whose mean it is.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import dask
import dask.dataframe as dd
import pandas as pd
import pytest

import geoalign
import geoalign.dask
from conftest import MODEL, ROOT, read_addresses, read_pairs, run_cli
from serve_process import Server

PROBABILITIES = ["p_not_match", "p_partial_match", "p_exact_match"]
PRINTED = 5e-7  # the CLI prints six decimals


def cli_probabilities(cli, pairs, *options) -> list[tuple[str, list[float]]]:
    """`geoalign score` on pairs: (label, [p_not, p_partial, p_exact]) per pair."""
    tsv = "".join(f"{a}\t{b}\n" for a, b in pairs)
    lines = run_cli(cli, "score", "--model", str(MODEL), *options, "-", stdin=tsv).splitlines()
    header = lines[0].split("\t")
    columns = [header.index(c) for c in PROBABILITIES]
    label = header.index("label")
    return [(f[label], [float(f[c]) for c in columns]) for f in (line.split("\t") for line in lines[1:])]


def assert_same(front_end: str, got: list[tuple[str, list[float]]], want: list[tuple[str, list[float]]]) -> None:
    assert len(got) == len(want), front_end
    for i, ((got_label, got_p), (want_label, want_p)) in enumerate(zip(got, want)):
        assert got_label == want_label, f"{front_end}, pair {i}"
        assert got_p == pytest.approx(want_p, abs=PRINTED), f"{front_end}, pair {i}"


@pytest.mark.parametrize("ordered", [False, True], ids=["symmetric", "ordered"])
def test_the_match_heads_front_ends_give_one_decision(cli, ordered):
    pairs = read_pairs()
    pairs = pairs + [(b, a) for a, b in pairs]
    reading = ["--ordered"] if ordered else []
    want = cli_probabilities(cli, pairs, *reading)

    matcher = geoalign.Matcher(ordered=ordered)
    assert_same("Matcher.score", [(r.label, [getattr(r, p) for p in PROBABILITIES]) for r in matcher.score(pairs)],
                want)

    # With the cache on, asked twice: a pair and its swap must not answer for each other when
    # read as given.
    with Server(cli, "--model", str(MODEL), "--cache-size", "1000", *reading) as server:
        for _ in range(2):
            status, answer = server.post("/v1/match", {"pairs": [list(p) for p in pairs]})
            assert status == 200, answer
            served = [(r["label"], [r["probabilities"][p.removeprefix("p_")] for p in PROBABILITIES])
                      for r in answer["results"]]
            assert_same("/v1/match", served, want)

    frame = dd.from_pandas(pd.DataFrame(pairs, columns=["addr1", "addr2"]), npartitions=3)
    with dask.config.set(scheduler="synchronous"):
        scored = geoalign.dask.score(frame, model=str(MODEL), ordered=ordered).compute()
    assert_same("geoalign.dask.score", [(r.label, [getattr(r, p) for p in PROBABILITIES]) for r in scored.itertuples()],
                want)


def one_head_folder(tmp_path) -> Path:
    """The shipped folder (links to its files) without its ordered match head, so that the
    ordered reading is the default match head's own, with its order input as given."""
    folder = tmp_path / "one_match_head"
    folder.mkdir()
    for entry in MODEL.iterdir():
        if entry.name != "match_head_ordered.json":
            (folder / entry.name).symlink_to(entry)
    return folder


def probabilities(r) -> list[float]:
    return [getattr(r, p) for p in PROBABILITIES]


def assert_one_answer_in_both_orders(pairs, symmetric, ordered, swapped) -> int:
    """symmetric: MatchResults of pairs in the default reading, in order then swapped; ordered
    and swapped: of the pairs and of their swaps read as given by the same head. Returns how
    many pairs the order changes when read as given."""
    n = len(pairs)
    differ = 0
    for i, (a, b) in enumerate(pairs):
        ab, ba = symmetric[i], symmetric[n + i]
        assert (ab.label, probabilities(ab)) == (ba.label, probabilities(ba)), (a, b)
        # The symmetric reading is the mean of the two readings as given.
        mean = [(x + y) / 2 for x, y in zip(probabilities(ordered[i]), probabilities(swapped[i]))]
        assert probabilities(ab) == pytest.approx(mean, abs=1e-6), (a, b)
        differ += ordered[i].label != swapped[i].label
    return differ


def test_the_match_head_gives_a_pair_one_answer_whichever_address_comes_first(matcher, tmp_path):
    pairs = read_pairs()
    swaps = [(b, a) for a, b in pairs]
    as_given = geoalign.Matcher(one_head_folder(tmp_path), ordered=True)
    assert_one_answer_in_both_orders(pairs, matcher.score(pairs + swaps), as_given.score(pairs), as_given.score(swaps))


def test_every_real_pair_gets_one_answer_whichever_address_comes_first(matcher, tmp_path):
    pairs = []
    for name in ("ccks2021_address_relevance", "shenzhen_address_pairs"):
        path = ROOT.parent / "shared" / "data" / name / "pairs.tsv"
        if path.is_file():
            rows = [line.split("\t")[:2] for line in path.read_text(encoding="utf-8").splitlines()]
            pairs += [tuple(r) for r in rows[::max(1, len(rows) // 1500)]]
    if not pairs:
        pytest.skip("no ../shared/data")
    swaps = [(b, a) for a, b in pairs]
    as_given = geoalign.Matcher(one_head_folder(tmp_path), ordered=True)
    differ = assert_one_answer_in_both_orders(pairs, matcher.score(pairs + swaps), as_given.score(pairs),
                                              as_given.score(swaps))
    assert differ > 0  # read as given, the order does change some answers: the property is not vacuous


@pytest.mark.parametrize("head", ["rerank", "match"])
def test_each_head_gives_one_decision_in_every_front_end(cli, tmp_path, head):
    """Matcher.score, geoalign.dask.score, search's rerank and dedup's scored pairs against
    `geoalign score --head HEAD`: with the rerank head (search's and dedup's default) and
    with the match head (the cross-encoder, score's default)."""
    if head == "rerank" and not (MODEL / "rerank_head.json").is_file():
        pytest.skip("the folder has no rerank head")
    _, addresses = read_addresses()
    addresses = list(dict.fromkeys(addresses))[:8]  # distinct texts: search gives its own text 1.0 by rule
    pairs = list(itertools.permutations(addresses, 2))
    given = dict(zip(pairs, cli_probabilities(cli, pairs, "--head", head)))
    ordered = dict(zip(pairs, cli_probabilities(cli, pairs, "--head", head, "--ordered")))
    for a, b in pairs:
        assert given[(a, b)] == given[(b, a)], (a, b)  # the same numbers, not merely close
        if head == "rerank":  # the match head's ordered reading has a head file of its own
            mean = [(x + y) / 2 for x, y in zip(ordered[(a, b)][1], ordered[(b, a)][1])]
            assert given[(a, b)][1] == pytest.approx(mean, abs=2 * PRINTED), (a, b)

    want = [given[p] for p in pairs]
    assert_same("Matcher.score", [(r.label, probabilities(r)) for r in geoalign.Matcher(head=head).score(pairs)], want)
    frame = dd.from_pandas(pd.DataFrame(pairs, columns=["addr1", "addr2"]), npartitions=2)
    with dask.config.set(scheduler="synchronous"):
        scored = geoalign.dask.score(frame, model=str(MODEL), head=head).compute()
    assert_same("geoalign.dask.score", [(r.label, probabilities(r)) for r in scored.itertuples()], want)

    index = geoalign.Index.build(addresses, path=tmp_path / "index", model=str(MODEL), head=head)
    for query, hits in zip(addresses, index.search(addresses, k=len(addresses), rerank=len(addresses))):
        others = [h for h in hits if h["text"] != query]
        assert len(others) == len(addresses) - 1, query
        for hit in others:
            label, p = given[(query, hit["text"])]
            assert hit["label"] == label, (query, hit["text"])
            assert hit["score"] == pytest.approx(p[2], abs=PRINTED), (query, hit["text"])
    if head == "rerank":
        # ordered=True reads (query, record) as given, as `score --head rerank --ordered`. (With
        # the match head, search reads the folder's symmetric head as given, where `score
        # --ordered` loads match_head_ordered.json: not compared.)
        for query, hits in zip(addresses,
                               index.search(addresses, k=len(addresses), rerank=len(addresses), ordered=True)):
            for hit in (h for h in hits if h["text"] != query):
                label, p = ordered[(query, hit["text"])]
                assert hit["label"] == label, (query, hit["text"])
                assert hit["score"] == pytest.approx(p[2], abs=PRINTED), (query, hit["text"])

    rows = tmp_path / "rows.txt"
    rows.write_text("".join(a + "\n" for a in addresses), encoding="utf-8")
    run_cli(cli, "dedup", "--model", str(MODEL), "--head", head, "--input", str(rows),
            "--out", str(tmp_path / "clusters.tsv"), "--scored-pairs", str(tmp_path / "scored.tsv"))
    lines = (tmp_path / "scored.tsv").read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    assert len(lines) > 1
    for fields in (line.split("\t") for line in lines[1:]):
        a, b = fields[header.index("address_a")], fields[header.index("address_b")]
        got = [float(fields[header.index(c)]) for c in PROBABILITIES]
        assert got == pytest.approx(given[(a, b)][1], abs=PRINTED), (a, b)


def variants(address: str) -> list[str]:
    """The address and ways of writing it that normalize to the same text: a zero-width
    space, full-width digits, blanks around it, markup for a space."""
    full_width = address.translate({ord(d): ord(d) - ord("0") + ord("０") for d in "0123456789"})
    return [address, "\u200b" + address, full_width, f"  {address}\u3000", f"&nbsp;{address}"]


def data_addresses(limit: int) -> list[str]:
    """Up to `limit` distinct addresses of ../shared/data's labelled pairs, when it is there."""
    found: dict[str, None] = {}
    for name in ("ccks2021_address_relevance", "shenzhen_address_pairs"):
        path = ROOT.parent / "shared" / "data" / name / "pairs.tsv"
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                for field in line.split("\t")[:2]:
                    if field.strip() and len(found) < limit:
                        found[field] = None
    return list(found)


def test_an_address_against_itself_is_an_exact_match_in_every_front_end(cli, matcher, tmp_path):
    _, addresses = read_addresses()
    addresses = list(dict.fromkeys(addresses))
    pairs = [(a, v) for a in addresses for v in variants(a)]

    for r in matcher.score(pairs):
        assert (r.label, r.p_exact_match) == ("exact_match", 1.0)
    for label, p in cli_probabilities(cli, pairs, "--head", "rerank"):
        assert (label, p) == ("exact_match", [0.0, 0.0, 1.0])
    with Server(cli, "--model", str(MODEL)) as server:
        status, answer = server.post("/v1/match", {"pairs": [list(p) for p in pairs]})
    assert status == 200, answer
    assert {(r["label"], r["probabilities"]["exact_match"]) for r in answer["results"]} == {("exact_match", 1.0)}

    index = geoalign.Index.build(addresses, path=tmp_path / "index", model=str(MODEL))
    for query, hits in zip(addresses, index.search([variants(a)[2] for a in addresses], k=3, rerank=10)):
        assert (hits[0]["text"], hits[0]["label"], hits[0]["score"]) == (query, "exact_match", 1.0)


def test_every_address_of_the_data_against_itself_is_an_exact_match(cli, matcher):
    addresses = data_addresses(limit=100_000)
    if not addresses:
        pytest.skip("no ../shared/data")
    pairs = [(a, a) for a in addresses]
    wrong = [(a, label, p) for a, (label, p) in zip(addresses, cli_probabilities(cli, pairs, "--head", "rerank"))
             if (label, p[2]) != ("exact_match", 1.0)]
    assert not wrong, f"{len(wrong)} of {len(pairs)} with the rerank head, first {wrong[:3]}"
    sample = addresses[::max(1, len(addresses) // 3000)]  # the cross-encoder: a few thousand
    wrong = [a for a, r in zip(sample, matcher.score([(a, a) for a in sample]))
             if (r.label, r.p_exact_match) != ("exact_match", 1.0)]
    assert not wrong, f"{len(wrong)} of {len(sample)} with the match head, first {wrong[:3]}"
