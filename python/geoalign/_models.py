"""Where the model shipped with the package lives."""

from __future__ import annotations

from pathlib import Path


_BUNDLED_MODEL = Path(__file__).resolve().parent / "models" / "default"


def default_model() -> Path:
    """The folder of the model bundled with the package (``models/default`` of the repository).

    Every class and function that takes a ``model`` folder uses it when given ``None``.
    Its ``parser`` subfolder is :class:`geoalign.Parser`'s default.
    """
    path = _BUNDLED_MODEL
    if not path.is_dir():
        # Only a package imported from the source tree, not from an install, lacks it.
        raise FileNotFoundError(f"{path} is missing: install the package (pip install .) to bundle the model")
    return path


def model_dir(model: str | Path | None) -> str:
    """A ``model`` argument as the engine takes it: a folder path, the bundled model for None."""
    return str(default_model() if model is None else Path(model))


def bundled_parser() -> Path | None:
    """The bundled model's ``parser`` folder, which model folders without a parser of their
    own read addresses with; None in a source tree without the bundled model."""
    path = _BUNDLED_MODEL / "parser"
    return path if path.is_dir() else None
