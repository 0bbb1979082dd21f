"""geoalign.link and Index.link against `geoalign link` on the same tables."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import geoalign
from conftest import MODEL, ROOT, run_cli

EXAMPLES = ROOT / "examples"


def table(name: str) -> tuple[list[str], list[str]]:
    rows = [line.split("\t") for line in (EXAMPLES / name).read_text(encoding="utf-8").splitlines()[1:]]
    return [r[0] for r in rows], [r[1] for r in rows]


def cli_rows(cli, *options: str) -> list[list[str]]:
    out = run_cli(cli, "link", "--model", str(MODEL), "--left", str(EXAMPLES / "link_customers.tsv"),
                  "--right", str(EXAMPLES / "link_stores.tsv"), *options)
    return [line.split("\t") for line in out.splitlines()]


def as_cells(frame) -> list[list[str]]:
    """The frame as the CLI prints it: six decimals, empty cells for None and NaN."""
    def cell(v) -> str:
        if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
            return ""
        return f"{v:.6f}" if isinstance(v, float) else str(v)
    return [list(frame.columns)] + [[cell(v.item() if hasattr(v, "item") else v) for v in row]
                                    for row in frame.itertuples(index=False)]


@pytest.mark.parametrize("options", [{}, {"k": 3}, {"one_to_one": True}, {"ordered": True}],
                         ids=["best", "k3", "one-to-one", "ordered"])
def test_link_gives_the_clis_table(cli, options):
    left_ids, left = table("link_customers.tsv")
    right_ids, right = table("link_stores.tsv")
    frame = geoalign.link(left, right, left_ids=left_ids, right_ids=right_ids, **options)
    flags = []
    for name, value in options.items():
        flags += [f"--{name.replace('_', '-')}"] + ([] if value is True else [str(value)])
    assert as_cells(frame) == cli_rows(cli, *flags)


def test_a_left_row_without_a_match_keeps_its_row():
    frame = geoalign.link(["广州市天河区体育西路191号中石化大厦", "杭州文三路478号华星科技大厦"],
                          ["浙江省杭州市西湖区文三路478号华星科技大厦", "北京市朝阳区建国路88号SOHO现代城"])
    assert list(frame["left_id"]) == ["0", "1"]
    assert frame["right_id"][0] is None and math.isnan(frame["score"][0])
    assert (frame["right_id"][1], frame["label"][1]) == ("0", "exact_match")


def test_an_index_is_a_right_table(tmp_path):
    _, right = table("link_stores.tsv")
    index = geoalign.Index.build(right, ids=[f"s{i}" for i in range(len(right))], path=tmp_path / "ix")
    hits = index.link(["杭州文三路478号华星科技大厦", "广州市天河区体育西路191号中石化大厦"])
    assert [[h["id"] for h in row] for row in hits] == [["s0"], []]
    assert set(hits[0][0]) == {"id", "text", "label", "score", "p_not_match", "p_partial_match", "p_exact_match"}
    frame = geoalign.link(["杭州文三路478号华星科技大厦"], geoalign.Index.open(tmp_path / "ix"))
    assert frame["right_id"][0] == "s0"


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="rerank"):
        geoalign.link(["杭州"], ["杭州市"], k=5, rerank=3)
    with pytest.raises(ValueError, match="k must be at least 1"):
        geoalign.link(["杭州"], ["杭州市"], k=0)
    with pytest.raises(ValueError):
        geoalign.link(["杭州", None], ["杭州市"])
    with pytest.raises(ValueError, match="right_ids"):
        geoalign.link(["杭州"], geoalign.Index.build(["杭州市"]), right_ids=["x"])
