"""A user's own names for places (aliases=) in every Python front end.

The truth is the user's statement itself: with 西湖银泰 declared the short name of
西湖银泰城购物中心, a pair that differs only in that name is one place, certain, in either
order; without it, the shipped model does not say so.
"""

from __future__ import annotations

import pickle

import pytest

import geoalign

FULL = "杭州市上城区西湖银泰城购物中心"
SHORT = "杭州市上城区西湖银泰"


@pytest.fixture(scope="module")
def aliases(tmp_path_factory):
    path = tmp_path_factory.mktemp("aliases") / "mine.tsv"
    path.write_text("# short<TAB>full\n西湖银泰\t西湖银泰城购物中心\n", encoding="utf-8")
    return path


def test_matcher_reads_the_users_names(aliases):
    plain = geoalign.Matcher().score([(FULL, SHORT)])[0]
    assert plain.label != "exact_match" or plain.p_exact_match < 0.99
    matcher = geoalign.Matcher(aliases=aliases)
    for r in matcher.score([(FULL, SHORT), (SHORT, FULL)]):
        assert r.label == "exact_match" and r.p_exact_match == 1.0
    # A Matcher pickles with its aliases.
    again = pickle.loads(pickle.dumps(matcher))
    assert again.score([(SHORT, FULL)])[0].p_exact_match == 1.0


def test_the_shipped_names_need_no_file():
    for a, b in [("中国工商银行深圳分行", "工行深圳分行"), ("北京市海淀区中国人民大学", "北京市海淀区人大")]:
        for r in geoalign.Matcher().score([(a, b), (b, a)]):
            assert r.label == "exact_match", (a, b)


def test_a_bad_alias_file_names_its_line(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("西湖银泰\t西湖银泰城购物中心\n西湖银泰城购物中心\t西湖银泰\n", encoding="utf-8")
    with pytest.raises(geoalign.GeoalignError, match=f"{bad}:2: the short name must be shorter"):
        geoalign.Matcher(aliases=bad)
    with pytest.raises(geoalign.GeoalignError, match="does not exist"):
        geoalign.Matcher(aliases=tmp_path / "missing.tsv")


def test_search_and_dedup_read_the_users_names(aliases, tmp_path):
    records = [FULL, "杭州市上城区解放路银泰百货", "杭州市西湖区文三路478号华星科技大厦"]
    index = geoalign.Index.build(records, path=tmp_path / "ix", aliases=aliases)
    hit = index.search([SHORT], k=1)[0][0]
    assert hit["text"] == FULL and hit["label"] == "exact_match" and hit["score"] == 1.0
    reopened = pickle.loads(pickle.dumps(index))
    assert reopened.search([SHORT], k=1)[0][0]["score"] == 1.0

    table = geoalign.dedup([FULL, SHORT, records[2]], aliases=aliases)
    assert table["cluster_id"][0] == table["cluster_id"][1] != table["cluster_id"][2]
