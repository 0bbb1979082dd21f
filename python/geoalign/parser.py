"""Address parsing: elements and administrative divisions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import _geoalign
from ._models import default_model


MAX_CHARS: int = _geoalign.PARSER_MAX_CHARS
"""The longest text :meth:`Parser.parse` reads, in characters (code points)."""


class Parser:
    """Splits Chinese addresses into elements and completes their administrative chain.

    Thread-safe; releases the GIL while parsing.

    Args:
        path: a parser folder (``tagger.bin``, ``divisions.tsv``, optionally
            ``historical.tsv`` and ``division_counts.tsv``); None: the bundled model's
            ``parser`` folder.
        guess: where the address fits several places equally well (``"ambiguous": true``),
            fill the levels with the most likely reading and say how it was chosen in
            ``"guess"``; False leaves them empty, as ``geoalign parse --no-guess`` does.

    A Parser pickles as its folder and options, and unpickles by loading them again.

    Raises:
        GeoalignError: the folder is missing or its files are not a parser's.
    """

    def __init__(self, path: str | Path | None = None, guess: bool = True) -> None:
        self._args = (None if path is None else str(path), bool(guess))
        self._parser = _geoalign.Parser(str(default_model() / "parser" if path is None else Path(path)), bool(guess))

    def __reduce__(self) -> tuple:
        return (Parser, self._args)

    def parse(self, text: str, normalize: bool = True) -> dict[str, Any]:
        """Parses one address into exactly the object ``geoalign parse`` prints for it.

        ``{"text", "elements": [{"tag", "text", "start", "end"}], "admin": {"prov", "city",
        "district", "town", "adcode", "inferred", "ambiguous"}}`` (``"candidates"`` too when
        ambiguous, and with guessing on ``"guess"``: ``{"by": "elements" | "prior" | "size",
        "reading", "filled": [levels]}`` plus ``"evidence"`` or ``"share"``; ``"historical"``
        when the address uses a former division's name:
        ``{"district": {"name": "江干区", "code", "until": 2021, "now": ["上城区", "钱塘区"],
        "now_codes"}}``, with ``"partly"`` and ``"partly_codes"`` where divisions took only a
        part of it; ``"conflicting"``: ``[{"tag", "text", "start", "end"}]``, the province,
        city and district elements the reading overrules, when the address contradicts
        itself). Offsets count code points of ``"text"``, the text parsed.

        Args:
            text: the address; blank text gives an empty parse.
            normalize: first turn full-width forms into ASCII and drop invisible characters
                and blanks beside Chinese characters, as ``geoalign parse`` does unless
                given ``--no-normalize``.

        Raises:
            ValueError: ``text`` is not a str, or holds lone surrogates.
            GeoalignError: ``text`` is longer than :data:`MAX_CHARS` (65,536) characters.
        """
        return self._parser.parse(text, normalize)
