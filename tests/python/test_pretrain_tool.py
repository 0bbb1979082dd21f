"""tools/train/pretrain.py: a run stops, resumes where it stopped, and exports an encoder
geoalign loads. Needs Debian's PyTorch (tools/train/setup.sh); skipped without it."""

from __future__ import annotations

import csv
import subprocess
import sys

import pytest

import geoalign
from conftest import FIXTURES, MODEL, ROOT

torch = pytest.importorskip("torch")

PRETRAIN = ROOT / "tools" / "train" / "pretrain.py"


def pretrain(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PRETRAIN), *args], capture_output=True, text=True, timeout=300)


def log_steps(run) -> list[int]:
    with open(run / "log.tsv", encoding="utf-8") as f:
        return [int(row["step"]) for row in csv.DictReader(f, delimiter="\t")]


def test_a_run_resumes_where_it_stopped_and_exports_a_loadable_encoder(tmp_path):
    texts = tmp_path / "texts.tsv"
    rows = (FIXTURES / "pairs.tsv").read_text(encoding="utf-8").splitlines()[1:]
    texts.write_text("\n".join("\t".join(r.split("\t")[:2]) for r in rows) + "\n", encoding="utf-8")
    run = tmp_path / "run"
    first = pretrain("--run", str(run), "--init", str(MODEL), "--texts", str(texts), "--minutes", "0.05",
                     "--batch", "8", "--threads", "1")
    assert first.returncode == 0, first.stderr
    steps = log_steps(run)
    assert steps and steps[-1] > 0

    again = pretrain("--run", str(run), "--texts", str(texts), "--minutes", "0.05")
    assert again.returncode != 0 and "--resume" in again.stderr

    resumed = pretrain("--run", str(run), "--resume", "--minutes", "0.05", "--threads", "1")
    assert resumed.returncode == 0, resumed.stderr
    assert f"resumed at step {steps[-1]}" in resumed.stdout
    assert log_steps(run)[-1] > steps[-1]

    matcher = geoalign.Matcher(model=str(run / "encoder"))
    result = matcher.score([("北京市朝阳区建国路88号", "朝阳区建国路88号")])
    assert len(result) == 1

    # Other text under the same run would quietly train on something else.
    texts.write_text("上海市浦东新区陆家嘴环路1000号\t上海浦东陆家嘴环路1000号\n" * 4, encoding="utf-8")
    changed = pretrain("--run", str(run), "--resume", "--minutes", "0.05", "--threads", "1")
    assert changed.returncode != 0 and "--init" in changed.stderr and "encoder" in changed.stderr


def test_resume_without_a_checkpoint_is_an_error(tmp_path):
    done = pretrain("--run", str(tmp_path / "none"), "--resume")
    assert done.returncode != 0 and "no checkpoint" in done.stderr
