"""Shared fixtures: the fixture files, the geoalign CLI to compare against, loaded models.

These tests exercise the installed package (pip install .), whose model is the bundled
copy of models/default; the CLI runs on the repository's models/default, the same files.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import geoalign

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
MODEL = ROOT / "models" / "default"


@pytest.fixture(scope="session")
def cli() -> Path:
    """The geoalign CLI (GEOALIGN_CLI, else build/release/geoalign); skips the test without it."""
    path = Path(os.environ.get("GEOALIGN_CLI", ROOT / "build" / "release" / "geoalign"))
    if not path.is_file():
        pytest.skip(f"no geoalign CLI at {path} to compare with: build it with scripts/build.sh release")
    return path


def run_cli(cli: Path, *args: str, stdin: str | None = None) -> str:
    """Runs the CLI and returns its standard output; fails the test on a non-zero exit."""
    done = subprocess.run([str(cli), *args], input=stdin, capture_output=True, text=True)
    assert done.returncode == 0, f"geoalign {' '.join(args)} exited {done.returncode}: {done.stderr}"
    return done.stdout


def read_pairs() -> list[tuple[str, str]]:
    lines = (FIXTURES / "pairs.tsv").read_text(encoding="utf-8").splitlines()[1:]
    return [tuple(line.split("\t")) for line in lines]  # type: ignore[misc]


def read_addresses() -> tuple[list[str], list[str]]:
    """The ids and addresses of fixtures/addresses.tsv."""
    rows = [line.split("\t") for line in (FIXTURES / "addresses.tsv").read_text(encoding="utf-8").splitlines()[1:]]
    return [r[0] for r in rows], [r[1] for r in rows]


@pytest.fixture(scope="session")
def matcher() -> geoalign.Matcher:
    return geoalign.Matcher()


@pytest.fixture()
def encoder_reading_rerank_head(tmp_path) -> Path:
    """A copy of the shipped folder (links to its files) whose rerank head also reads the
    encoder's probabilities (added to its inputs, read by no tree): such a head threw inside
    dedup's parallel loops and ended the process; it is refused when loaded."""
    import json

    folder = tmp_path / "encoder_rerank_model"
    folder.mkdir()
    for entry in MODEL.iterdir():
        (folder / entry.name).symlink_to(entry)
    (folder / "rerank_head.json").unlink()
    head = json.loads((MODEL / "rerank_head.json").read_text(encoding="utf-8"))
    head["features"] += [f"encoder_p{k}" for k in range(3)]
    (folder / "rerank_head.json").write_text(json.dumps(head), encoding="utf-8")
    return folder
