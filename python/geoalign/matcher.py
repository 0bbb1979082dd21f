"""Pair scoring and embeddings with the BERT cross-encoder."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from . import _geoalign
from ._inputs import first_bad_cell, positive
from ._models import model_dir

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_BATCH_SIZE: int = _geoalign.DEFAULT_BATCH_SIZE
"""Pairs (or addresses) per model batch by default, as ``geoalign score --batch-size``."""


class MatchResult(NamedTuple):
    """How well two addresses match, as one row of ``geoalign score``."""

    label: str
    """The model's label with the highest probability: ``not_match``, ``partial_match`` or ``exact_match``."""
    score: float
    """P(exact_match) + 0.5 * P(partial_match), in [0, 1]."""
    p_not_match: float
    p_partial_match: float
    p_exact_match: float
    probabilities: dict[str, float]
    """Every label of the model with its probability."""


def _column(frame: pd.DataFrame, name: str) -> pd.Series:
    """The frame's column ``name``; a clear error where there is none or more than one (a
    repeated name would make ``frame[name]`` a frame, whose column labels would be scored)."""
    if name not in frame.columns:
        raise ValueError(f"no column {name!r} in the frame (columns: {list(frame.columns)})")
    values = frame[name]
    if values.ndim == 2:
        raise ValueError(f"column {name!r} appears {values.shape[1]} times in the frame")
    return values


class Matcher:
    """Scores Chinese address pairs and embeds addresses with a model folder.

    Loading takes a second or so; a Matcher is then best kept and reused. It is
    thread-safe, and releases the GIL while the model runs, so other Python threads go on
    meanwhile (calls on one Matcher from several threads take turns on the model).

    Args:
        model: a model folder in Hugging Face layout; None: the bundled model.
        precision: ``"fp32"``, ``"bf16"``, ``"int8"`` or ``"auto"`` (the fastest that keeps
            fp32's accuracy on this CPU).
        threads: CPU threads, 0 to 1024; it holds for the whole process, as
            :func:`geoalign.set_threads`. 0 leaves the process's count as it is (one per
            core, ``OMP_NUM_THREADS``, or what ``set_threads`` last said).
        device: where the encoder runs: ``"cpu"``, or ``"cuda"`` (``"cuda:0"``) for the GPU in
            a build with the CUDA backend (the Python package is built without it so far). A
            GPU that cannot be used is an error, never a fall-back to the CPU.
        aliases: a file of your own names for places, ``short<TAB>full`` per line
            (``西湖银泰<TAB>西湖银泰城购物中心``), read beside the model's ``aliases.tsv``: in a
            pair, a name one address gives in full and the other in short is one name.
        ordered: read each pair as given (query, then reference), for data of that shape,
            as ``geoalign score --ordered``; by default a pair gets one answer whichever
            address comes first (a folder without a head of its own, such as an MGeo
            checkpoint, reads pairs as given either way).
        head: what decides a pair: ``"match"`` (the encoder, then the folder's match head) or
            ``"rerank"`` (the folder's rerank head alone: parses and trees, no encoder, the
            head search and dedup use; ``geoalign score --head rerank``).

    A Matcher pickles as its folder and options, and unpickles by loading them again (in
    the process it reaches: a multiprocessing or Dask worker).

    Raises:
        GeoalignError: the folder is missing, incomplete or not a model; an unknown precision
            or device; or a GPU that cannot be used.
    """

    def __init__(self, model: str | Path | None = None, precision: str = "auto", threads: int = 0,
                 device: str = "cpu", aliases: str | Path | None = None, ordered: bool = False,
                 head: str = "match") -> None:
        _check_threads(threads)
        # As given: a Matcher unpickled on another host finds its own bundled model for None.
        aliases = None if aliases is None else str(aliases)
        self._args = (None if model is None else str(model), precision, threads, device, aliases, bool(ordered), head)
        self._matcher = _geoalign.Matcher(model_dir(model), precision, threads, device, aliases or "", bool(ordered),
                                          head)

    def __reduce__(self) -> tuple:
        return (Matcher, self._args)

    @property
    def labels(self) -> list[str]:
        """The model's labels, in id order."""
        return list(self._matcher.labels)

    @property
    def precision(self) -> str:
        """The precision the model runs at (``"auto"`` resolved): ``"fp32"``, ``"bf16"`` or ``"int8"``."""
        return self._matcher.precision

    @property
    def max_length(self) -> int:
        """Tokens per input at most; longer inputs are truncated."""
        return self._matcher.max_length

    def score(self, pairs: Iterable[Sequence[str]], batch_size: int = DEFAULT_BATCH_SIZE) -> list[MatchResult]:
        """Scores address pairs, in input order, exactly as ``geoalign score`` does.

        Args:
            pairs: any iterable of (addr1, addr2): tuples, lists, rows of a 2-column numpy array.
            batch_size: pairs per model batch; pairs of similar length are batched together.

        Raises:
            ValueError: naming the first bad pair, as ``pairs[3][1] is not a str (got NoneType)``:
                an item that is not a pair, an address that is not a str, is empty, or holds
                lone surrogates.
        """
        columns = self._matcher.score(pairs, positive("batch_size", batch_size))
        labels = self._matcher.labels
        return [
            MatchResult(labels[label_id], score, p_not, p_partial, p_exact, dict(zip(labels, probabilities)))
            for label_id, score, p_not, p_partial, p_exact, probabilities in zip(
                columns["label_id"].tolist(),
                columns["score"].tolist(),
                columns["p_not_match"].tolist(),
                columns["p_partial_match"].tolist(),
                columns["p_exact_match"].tolist(),
                columns["probabilities"].tolist(),
            )
        ]

    def score_frame(
        self, frame: pd.DataFrame, addr1: str = "addr1", addr2: str = "addr2", batch_size: int = DEFAULT_BATCH_SIZE
    ) -> pd.DataFrame:
        """Scores the pairs in two columns of a DataFrame.

        Returns a copy of ``frame`` with ``geoalign score``'s columns added: ``label``,
        ``score``, ``p_not_match``, ``p_partial_match`` and ``p_exact_match`` (float32).

        Raises:
            ValueError: naming the first bad cell by its row's index label and its column,
                as ``row 'r7', column addr2: empty address``.
        """
        a, b = _column(frame, addr1), _column(frame, addr2)
        try:
            columns = self._matcher.score(zip(a, b), positive("batch_size", batch_size))
        except ValueError as error:
            where = first_bad_cell(frame, [addr1, addr2])
            if where is None:
                raise
            raise ValueError(where) from error
        labels = np.asarray(self._matcher.labels, dtype=object)
        return frame.assign(
            label=labels[columns["label_id"]],
            score=columns["score"],
            p_not_match=columns["p_not_match"],
            p_partial_match=columns["p_partial_match"],
            p_exact_match=columns["p_exact_match"],
        )

    def embed(
        self, addresses: Iterable[str], pooling: str = "model", batch_size: int = DEFAULT_BATCH_SIZE
    ) -> np.ndarray:
        """Embeds addresses: a float32 array of shape [len(addresses), dim].

        Args:
            addresses: any iterable of str (a list, a numpy array, a pandas Series).
            pooling: ``"model"``: the folder's embedding head (unit vectors for the bundled
                model); ``"cls"`` or ``"mean"``: the encoder's raw [CLS] or mean token state.
            batch_size: addresses per model batch.

        Raises:
            ValueError: naming the first bad address (``addresses[2] is empty``), or an unknown pooling.
        """
        return self._matcher.embed(addresses, pooling, positive("batch_size", batch_size))


def _check_threads(threads: int) -> None:
    if isinstance(threads, bool) or not isinstance(threads, int) or not 0 <= threads <= _geoalign.MAX_THREADS:
        raise ValueError(f"threads must be 0 (as the process has them) to {_geoalign.MAX_THREADS}, not {threads!r}")
