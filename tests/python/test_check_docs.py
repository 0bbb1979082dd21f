"""tools/check_docs.py fails when the docs name what the program lacks: an option removed
from a command, a command that does not exist, a runnable block that fails."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "build" / "release" / "geoalign"
CHECK = ROOT / "tools" / "check_docs.py"

pytestmark = pytest.mark.skipif(not CLI.is_file(), reason="build/release/geoalign is not built")


def check(page, binary=CLI, runs=False):
    args = [sys.executable, str(CHECK), "--binary", str(binary), str(page)] + ([] if runs else ["--skip-runs"])
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


def without_option(tmp_path, command, option):
    """A geoalign whose `COMMAND --help` no longer lists `option`: as if it were removed."""
    fake = tmp_path / "geoalign"
    fake.write_text(f"""#!/bin/sh
if [ "$1" = "{command}" ]; then "{CLI}" "$@" 2>&1 | grep -v -- "{option} "; else exec "{CLI}" "$@"; fi
""")
    fake.chmod(0o755)
    return fake


def test_the_shipped_docs_name_only_what_the_program_has():
    pages = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
    run = subprocess.run([sys.executable, str(CHECK), "--skip-runs", *map(str, pages)], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_documented_option_removed_from_the_program_fails(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```sh\nbuild/release/geoalign score --device cpu examples/sample_pairs.tsv\n```\n")
    assert check(page).returncode == 0
    removed = check(page, without_option(tmp_path, "score", "--device"))
    assert removed.returncode == 1
    assert "page.md:2: geoalign score has no option --device" in removed.stdout


def test_unknown_commands_and_options_fail(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Run `geoalign scour x.tsv`, or `build/release/geoalign score --precison fp32`; see `--frobnicate`.\n")
    run = check(page)
    assert run.returncode == 1
    assert "geoalign scour: no such command" in run.stdout
    assert "geoalign score has no option --precison" in run.stdout
    assert "--frobnicate is no option of geoalign or of its tools" in run.stdout


def test_a_runnable_block_that_fails_fails_and_others_are_only_read(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```sh runnable\nbuild/release/geoalign score /nonexistent.tsv\n```\n\n```sh\nfalse\n```\n")
    run = check(page, runs=True)
    assert run.returncode == 1
    assert "the block exited 1" in run.stdout and "No such file or directory" in run.stdout
    assert "1 runnable blocks run" in run.stderr
