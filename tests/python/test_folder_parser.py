"""A model folder without a match head (MGeo's layout) reads addresses with the parser
bundled in the package, wherever the package is installed: it indexes, searches and
deduplicates from Python as from the CLI."""

from pathlib import Path

import geoalign

MGEO_FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "tiny_mgeo"
ADDRESSES = ["北京市朝阳区建国路88号", "上海市浦东新区世纪大道100号", "杭州市西湖区文三路478号", "北京朝阳建国路88号"]


def test_an_mgeo_folder_indexes_and_searches_with_the_bundled_parser():
    index = geoalign.Index.build(ADDRESSES, model=MGEO_FOLDER, precision="fp32")
    results = index.search(["杭州市西湖区文三路478号"], k=4)[0]
    assert "杭州市西湖区文三路478号" in [r["text"] for r in results]


def test_an_mgeo_folder_deduplicates_with_the_bundled_parser():
    clusters = geoalign.dedup(ADDRESSES, model=MGEO_FOLDER, precision="fp32")
    assert list(clusters["address"]) == ADDRESSES
    assert clusters["cluster_id"].notna().all()
