"""dedup: the CLI's TSV as a DataFrame, ids, errors."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import geoalign
from conftest import FIXTURES, MODEL, read_addresses, run_cli

COLUMNS = ["id", "address", "cluster_id", "cluster_size", "best_match_id", "best_match_score"]


def as_cli_tsv(frame: pd.DataFrame) -> pd.DataFrame:
    """The DataFrame as the CLI writes it: empty fields for no match, scores to 6 decimals."""
    out = frame.copy()
    out["best_match_id"] = out["best_match_id"].fillna("")
    out["best_match_score"] = [f"{s:.6f}" if not np.isnan(s) else "" for s in frame["best_match_score"]]
    out["cluster_size"] = out["cluster_size"].astype(str)
    return out


# None: the threshold the model's head was trained to, on both sides.
@pytest.mark.parametrize("merge, threshold", [("exact", None), ("exact", 0.5), ("partial", 0.3)])
def test_dedup_equals_cli(cli, merge, threshold):
    ids, addresses = read_addresses()
    given = [] if threshold is None else ["--threshold", str(threshold)]
    tsv = run_cli(
        cli, "dedup", "--model", str(MODEL), "--input", str(FIXTURES / "addresses.tsv"), "--merge", merge, *given,
    )
    expected = pd.read_csv(io.StringIO(tsv), sep="\t", dtype=str, keep_default_na=False)
    frame = geoalign.dedup(addresses, ids=ids, merge=merge, threshold=threshold)
    assert list(frame.columns) == COLUMNS
    assert frame["cluster_size"].dtype == np.int64 and frame["best_match_score"].dtype == np.float32
    pd.testing.assert_frame_equal(as_cli_tsv(frame), expected)
    assert frame["cluster_id"].nunique() < len(frame)  # the fixture holds duplicates


def test_ids_default_to_positions():
    _, addresses = read_addresses()
    frame = geoalign.dedup(pd.Series(addresses[:6]))
    assert frame["id"].tolist() == [str(i) for i in range(6)]
    assert set(frame["cluster_id"]) <= set(frame["id"])
    with_ids = geoalign.dedup(addresses[:6], ids=np.arange(6))  # integer ids become str
    pd.testing.assert_frame_equal(frame, with_ids)


def test_errors():
    with pytest.raises(ValueError, match=r"addresses\[2\] is not a str \(got NoneType\)"):
        geoalign.dedup(["北京市", "上海市", None])
    with pytest.raises(ValueError, match=r"ids\[2\] 'a' repeats ids\[0\]"):
        geoalign.dedup(["北京市", "上海市", "杭州市"], ids=["a", "b", "a"])
    with pytest.raises(ValueError, match=r"ids\[1\] is not a str or int"):
        geoalign.dedup(["北京市", "上海市"], ids=["a", None])
    with pytest.raises(ValueError, match="threshold"):
        geoalign.dedup(["北京市"], threshold=0)
    with pytest.raises(geoalign.GeoalignError, match="unknown merge rule"):
        geoalign.dedup(["北京市"], merge="fuzzy")
    with pytest.raises(ValueError, match="no addresses"):
        geoalign.dedup([])
    with pytest.raises(TypeError, match="addresses must be an iterable of str, not a single str"):
        geoalign.dedup("北京市朝阳区建国路88号")  # not twelve one-character addresses
    with pytest.raises(ValueError, match=r"neighbours must be in 1\.\.1000"):
        geoalign.dedup(["北京市", "上海市"], neighbours=10**10)  # once a bad_alloc that ended the interpreter
    with pytest.raises(ValueError, match=r"addresses\[1\] is empty"):
        geoalign.dedup(["北京市", "&nbsp;"])
