"""geoalign: Chinese address matching.

Pair scoring and embeddings with a BERT cross-encoder (:class:`Matcher`), address parsing
(:class:`Parser`), search over a reference base (:class:`Index`) and deduplication
(:func:`dedup`), over geoalign's C++ engine. The model in the repository's
``models/default`` ships inside the package (:func:`default_model`).

Bad input raises ValueError naming the item (``pairs[3][1] is not a str``); errors from
the engine (a bad model folder, an unknown option) raise :class:`GeoalignError`, itself
a ValueError.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from ._geoalign import GeoalignError, available_cores
from ._geoalign import set_threads as _set_threads
from ._models import default_model
from .dedup import dedup
from .index import Index
from .matcher import DEFAULT_BATCH_SIZE, Matcher, MatchResult
from .parser import Parser

GeoalignError.__module__ = __name__  # shown as geoalign.GeoalignError, where users catch it

try:
    __version__ = version("geoalign")
except PackageNotFoundError:  # imported from a build tree, not installed
    __version__ = "unknown"


def set_threads(threads: int) -> None:
    """Sets the CPU threads every model and index of the process use; 0: ``OMP_NUM_THREADS``, else
    :func:`available_cores` (the CPU affinity, capped by a container's CPU quota)."""
    if threads < 0:
        raise ValueError(f"threads must be 0 (one per core) or more, not {threads}")
    _set_threads(threads)


__all__ = [
    "DEFAULT_BATCH_SIZE",
    "GeoalignError",
    "Index",
    "MatchResult",
    "Matcher",
    "Parser",
    "available_cores",
    "dedup",
    "default_model",
    "set_threads",
]
