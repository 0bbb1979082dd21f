"""Linking: each address of one table matched to the places of another."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ._inputs import Id, address_list, check_ids
from .index import Index

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ["left_id", "left_address", "right_id", "right_address", "label", "score", "p_not_match",
           "p_partial_match", "p_exact_match"]


def link(
    left: Iterable[str],
    right: Iterable[str] | Index,
    left_ids: Iterable[Id] | None = None,
    right_ids: Iterable[Id] | None = None,
    k: int = 1,
    one_to_one: bool = False,
    rerank: int = 50,
    candidates: int = 100,
    region: str | None = None,
    ordered: bool = False,
    model: str | Path | None = None,
    head: str = "rerank",
    precision: str = "auto",
    aliases: str | Path | None = None,
) -> pd.DataFrame:
    """Matches each left address to the places of the right table, as ``geoalign link``.

    Returns the CLI's table: one row per match, left rows in input order, with the columns
    ``left_id``, ``left_address``, ``right_id``, ``right_address``, ``label``, ``score``
    (P(exact) + 0.5 x P(partial)), ``p_not_match``, ``p_partial_match``, ``p_exact_match``
    (and ``rank``, from 1, when ``k`` is above 1). A left row without a match keeps one row
    with None and NaN in the match columns.

    Args:
        left: any iterable of str.
        right: the reference addresses (any iterable of str), or an :class:`Index` of them
            (then ``right_ids``, ``model``, ``head``, ``precision`` and ``aliases`` are the
            index's own).
        left_ids, right_ids: one id per address (str, or int made str); None: each row is
            named by its position (0, 1, ...).
        k: matches per left row at most, best first.
        one_to_one: each right row matches one left row at most (greedily, highest
            P(exact_match) first).
        rerank, candidates, region, ordered: as :meth:`Index.link`.
        model, head, precision, aliases: as :meth:`Index.build`, for a right table of addresses.

    Raises:
        ValueError: naming the first bad address or id, or a bad option.
        GeoalignError: a bad model folder, region or option.
    """
    import numpy as np
    import pandas as pd  # here, not at import: it costs a good part of a second

    texts = address_list(left)
    checked = check_ids(left_ids, len(texts))
    ids = checked if checked is not None else [str(i) for i in range(len(texts))]
    if isinstance(right, Index):
        if right_ids is not None:
            raise ValueError("right_ids is for a right table of addresses; an Index has its own ids")
        index = right
    else:
        index = Index.build(right, ids=right_ids, model=model, precision=precision, head=head, aliases=aliases)
    found = index.link(texts, k=k, one_to_one=one_to_one, rerank=rerank, candidates=candidates, region=region,
                       ordered=ordered)
    rows = []
    for left_id, text, matches in zip(ids, texts, found):
        if not matches:
            rows.append((left_id, text, None, None, None, np.nan, np.nan, np.nan, np.nan, None))
        for rank, m in enumerate(matches, 1):
            rows.append((left_id, text, m["id"], m["text"], m["label"], m["score"], m["p_not_match"],
                         m["p_partial_match"], m["p_exact_match"], rank))
    frame = pd.DataFrame(rows, columns=COLUMNS + ["rank"])
    for c in COLUMNS[5:]:
        frame[c] = frame[c].astype("float32")
    if k > 1:
        frame["rank"] = frame["rank"].astype("Int64")
        return frame
    return frame.drop(columns="rank")
