"""Index: built in Python and searched by the CLI and back, add, save, errors."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

import geoalign
from conftest import FIXTURES, MODEL, read_addresses, run_cli

QUERIES = (FIXTURES / "queries.txt").read_text(encoding="utf-8").splitlines()


def cli_search(cli, index_dir, *options):
    out = run_cli(cli, "search", "--index", str(index_dir), *options, str(FIXTURES / "queries.txt"))
    return [json.loads(line)["results"] for line in out.splitlines()]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    ids, addresses = read_addresses()
    path = tmp_path_factory.mktemp("index") / "ix"
    return geoalign.Index.build(addresses, ids=ids, path=path)


def test_python_index_searched_by_cli(cli, built):
    assert len(built) == len(read_addresses()[0])
    assert built.search(QUERIES) == cli_search(cli, built.path)
    options = dict(k=3, rerank=2, candidates=20, region="北京市")
    assert built.search(QUERIES, **options) == cli_search(
        cli, built.path, "--k", "3", "--rerank", "2", "--candidates", "20", "--region", "北京市"
    )


def test_cli_index_searched_by_python(cli, tmp_path):
    path = tmp_path / "ix"
    run_cli(cli, "index", "build", "--model", str(MODEL), "--input", str(FIXTURES / "addresses.tsv"), "--out", str(path))
    index = geoalign.Index.open(path)
    assert index.model_dir == MODEL.resolve()
    assert index.search(QUERIES, region_from_query=True) == cli_search(cli, path, "--region-from-query")


def test_add_and_save(cli, tmp_path):
    ids, addresses = read_addresses()
    path = tmp_path / "ix"
    geoalign.Index.build(addresses[:20], ids=ids[:20], path=path)
    index = geoalign.Index.open(path)
    index.add(addresses[20:], ids=ids[20:])
    index.save()
    assert len(geoalign.Index.open(path)) == len(addresses)
    assert index.search(QUERIES) == cli_search(cli, path)


def test_records_without_ids_are_numbered(tmp_path):
    index = geoalign.Index.build(["北京市朝阳区建国路88号", "上海市浦东新区张江路88号"])
    assert index.path is None
    index.add(["杭州市文三路478号"])
    assert index.search(["杭州文三路478号"], k=1)[0][0]["id"] == "2"
    with pytest.raises(ValueError, match="give save a path"):
        index.save()
    index.save(tmp_path / "saved")
    assert len(geoalign.Index.open(tmp_path / "saved")) == 3


def test_errors(built, tmp_path):
    with pytest.raises(geoalign.GeoalignError, match="already holds an index"):
        geoalign.Index.build(["北京市"], path=built.path)
    with pytest.raises(ValueError, match=r"ids\[1\] 'x' repeats ids\[0\]"):
        geoalign.Index.build(["北京市", "上海市"], ids=["x", "x"])
    with pytest.raises(ValueError, match="1 ids for 2 addresses"):
        geoalign.Index.build(["北京市", "上海市"], ids=["x"])
    with pytest.raises(ValueError, match=r"addresses\[1\] is empty"):
        built.add(["杭州市", ""])
    with pytest.raises(geoalign.GeoalignError, match="already in the index"):
        built.add(["杭州市"], ids=["a01"])
    with pytest.raises(ValueError, match=r"queries\[1\] is not a str"):
        built.search(["北京市", None])
    with pytest.raises(ValueError, match=r"queries\[0\] is empty"):
        built.search(["\u200b"])  # invisible characters only
    with pytest.raises(ValueError, match=r"queries\[1\] is empty"):
        built.search(["北京市", "&nbsp;"])  # markup for a blank
    with pytest.raises(TypeError, match="not a single str"):
        built.add("杭州市")
    with pytest.raises(ValueError, match="k must be at least 1"):
        built.search(QUERIES, k=0)
    with pytest.raises(geoalign.GeoalignError, match="not a known"):
        built.search(QUERIES, region="不存在的地方")
    with pytest.raises(geoalign.GeoalignError, match="110112 北京市/通州区; 320612 江苏省/南通市/通州区"):
        built.search(QUERIES, region="通州")  # a district of Beijing's or Nantong's, not 通州镇
    with pytest.raises(geoalign.GeoalignError, match="no such index folder"):
        geoalign.Index.open(tmp_path / "missing")
    assert len(built) == len(read_addresses()[0])  # nothing was added by the failed adds


def test_searches_in_threads_beside_an_add():
    """Searches from several threads, and an add among them, each see a whole index."""
    ids, addresses = read_addresses()
    index = geoalign.Index.build(addresses, ids=ids)
    expected = index.search(QUERIES, k=3)
    with ThreadPoolExecutor(4) as pool:
        searches = [pool.submit(index.search, QUERIES, k=3) for _ in range(6)]
        pool.submit(index.add, ["广东省广州市天河区天河路208号"], ["t01"]).result()
        # The added address is far from every query: before or after it, the hits are the same.
        assert all(s.result() == expected for s in searches)
    assert len(index) == len(ids) + 1
