"""Deduplication: clustering addresses into the places they name."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from . import _geoalign
from ._inputs import Id, address_list, check_ids
from ._models import model_dir

if TYPE_CHECKING:
    import pandas as pd


def dedup(
    addresses: Iterable[str],
    ids: Iterable[Id] | None = None,
    model: str | Path | None = None,
    threshold: float | None = None,
    merge: str = "exact",
    neighbours: int = 20,
    head: str = "rerank",
    precision: str = "auto",
    aliases: str | Path | None = None,
) -> pd.DataFrame:
    """Clusters addresses into entities, one cluster per place, as ``geoalign dedup``.

    Returns one row per address, in input order, with the CLI's columns: ``id``,
    ``address``, ``cluster_id`` (the id of the cluster's first row), ``cluster_size``,
    ``best_match_id`` (the row it links to most strongly; a row repeating an earlier row's
    address has that row, with score 1) and ``best_match_score`` (float32). Rows with no
    match have None and NaN where the CLI writes empty fields.

    Args:
        addresses: any iterable of str.
        ids: one id per address (str, or int made str); None: each row is named by its
            position (0, 1, ...), where the CLI names id-less lines by line number.
        model: the model folder; None: the bundled model. It is loaded for this call.
        threshold: the mean link two clusters need to merge, in (0, 1]; None: the one
            the model's head was trained to for the merge rule, else 0.5.
        merge: what joins two addresses: ``"exact"`` (exact_match) or ``"partial"``
            (exact_match or partial_match).
        neighbours: candidates per address from each of the lexical and vector searches.
        head: the pair scorer: ``"rerank"`` (parses and trees, fast) or ``"match"``
            (the cross-encoder, as ``score``).
        precision: ``"fp32"``, ``"bf16"``, ``"int8"`` or ``"auto"``.
        aliases: a file of your own names for places (``short<TAB>full`` per line), read
            beside the model's, as in :class:`geoalign.Matcher`.

    Raises:
        ValueError: naming the first bad address or id, or a bad option.
        GeoalignError: a bad model folder, merge rule or precision.
    """
    import pandas as pd  # here, not at import: it costs a good part of a second

    if threshold is not None and not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], not {threshold}")
    if not 1 <= neighbours <= _geoalign.MAX_NEIGHBOURS:
        raise ValueError(f"neighbours must be in 1..{_geoalign.MAX_NEIGHBOURS}, not {neighbours}")
    texts = address_list(addresses)
    checked = check_ids(ids, len(texts))
    row_ids = np.asarray(checked if checked is not None else [str(i) for i in range(len(texts))], dtype=object)
    columns = _geoalign.dedup(texts, model_dir(model), precision, head, threshold, merge, neighbours,
                              "" if aliases is None else str(aliases))
    best_row = columns["best_match_row"]
    matched = best_row >= 0
    return pd.DataFrame(
        {
            "id": row_ids,
            "address": np.asarray(texts, dtype=object),
            "cluster_id": row_ids[columns["cluster_row"]],
            "cluster_size": columns["cluster_size"],
            "best_match_id": np.where(matched, row_ids[np.where(matched, best_row, 0)], None),
            "best_match_score": np.where(matched, columns["best_match_score"], np.float32(np.nan)),
        }
    )
