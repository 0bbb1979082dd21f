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

import os
from importlib.metadata import PackageNotFoundError, version

# OpenMP's threads wait for work by sleeping, not spinning, unless the environment says
# otherwise: beside a busy Python thread, spinning workers made score 3x slower (1,000 pairs:
# 0.34 s alone, 1.12 s spinning, 0.65 s sleeping), at the cost of one-pair calls (1.3 ms
# against 2.3 ms); tools/bench/python_wait_policy.py, on a 2-core AMD EPYC Zen 5. libgomp
# reads this once, when it is loaded: a library that loaded it before geoalign's first
# import (torch) decides it instead.
if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
    os.environ["OMP_WAIT_POLICY"] = "passive"

from ._geoalign import GeoalignError, available_cores  # noqa: E402
from ._geoalign import num_threads as _num_threads  # noqa: E402
from ._geoalign import set_threads as _set_threads  # noqa: E402
from ._geoalign import set_bundled_parser_dir as _set_bundled_parser_dir  # noqa: E402
from ._models import bundled_parser as _bundled_parser_folder  # noqa: E402
from ._models import default_model  # noqa: E402
from .dedup import dedup  # noqa: E402
from .index import Index  # noqa: E402
from .link import link  # noqa: E402
from .matcher import DEFAULT_BATCH_SIZE, Matcher, MatchResult  # noqa: E402
from .parser import Parser  # noqa: E402

GeoalignError.__module__ = __name__  # shown as geoalign.GeoalignError, where users catch it

# A model folder without a parser of its own (an MGeo or Hugging Face folder) reads
# addresses with the package's bundled parser, wherever the package is installed.
if (_bundled_parser := _bundled_parser_folder()) is not None:
    _set_bundled_parser_dir(str(_bundled_parser))

try:
    __version__ = version("geoalign")
except PackageNotFoundError:  # imported from a build tree, not installed
    __version__ = "unknown"


def set_threads(threads: int) -> None:
    """Sets the CPU threads every model and index of the process use, 1 to 1024; 0:
    ``OMP_NUM_THREADS``, else :func:`available_cores` (the CPU affinity, capped by a
    container's CPU quota). A later ``Matcher(threads=0)`` keeps it."""
    if isinstance(threads, bool) or not isinstance(threads, int) or not 0 <= threads <= _geoalign.MAX_THREADS:
        raise ValueError(f"threads must be 0 (one per core) to {_geoalign.MAX_THREADS}, not {threads!r}")
    _set_threads(threads)


def threads() -> int:
    """The CPU threads the models and indexes of this process use now."""
    return _num_threads()


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
    "link",
    "set_threads",
    "threads",
]
