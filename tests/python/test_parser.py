"""Parser: the same objects as `geoalign parse` prints, and its errors."""

from __future__ import annotations

import json

import pytest

import geoalign
from conftest import FIXTURES, MODEL, run_cli


@pytest.fixture(scope="module")
def parser() -> geoalign.Parser:
    return geoalign.Parser()


@pytest.mark.parametrize("normalize", [True, False])
def test_parse_equals_cli(cli, parser, normalize):
    lines = (FIXTURES / "parse.txt").read_text(encoding="utf-8").splitlines()
    options = [] if normalize else ["--no-normalize"]
    out = run_cli(cli, "parse", "--model", str(MODEL / "parser"), *options, str(FIXTURES / "parse.txt"))
    assert [parser.parse(line, normalize=normalize) for line in lines] == [json.loads(o) for o in out.splitlines()]


def test_parse_fields(parser):
    parsed = parser.parse("北京市朝阳区建国路88号")
    assert parsed["admin"]["district"] == "朝阳区" and parsed["admin"]["adcode"].startswith("11")
    assert {e["tag"] for e in parsed["elements"]} >= {"road", "roadno"}
    assert parser.parse("")["elements"] == []
    assert "conflicting" not in parsed["admin"]
    # 瑞金路街道 is a street of 秦淮区: the district the address states is overruled, and said so.
    contradicted = parser.parse("江苏省南京市鼓楼区瑞金路街道瑞金路2号")["admin"]
    assert contradicted["district"] == "秦淮区"
    assert contradicted["conflicting"] == [{"tag": "district", "text": "鼓楼区", "start": 6, "end": 9}]


def test_bad_text(parser, tmp_path):
    with pytest.raises(ValueError, match=r"text is not a str \(got NoneType\)"):
        parser.parse(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="text is not valid UTF-8"):
        parser.parse("北京\udc80市")
    with pytest.raises(geoalign.GeoalignError):
        geoalign.Parser(tmp_path)


def test_guess_fills_an_ambiguous_chain_and_can_be_turned_off(cli, parser):
    address = "朝阳区建国路88号"  # Beijing's or Changchun's 朝阳区
    guessed = parser.parse(address)["admin"]
    assert guessed["ambiguous"] and len(guessed["candidates"]) == 2
    assert guessed["guess"]["by"] in ("elements", "prior", "size")
    assert guessed["guess"]["reading"] in guessed["candidates"]
    assert guessed["adcode"] == guessed["guess"]["reading"].split(" ")[0]
    assert guessed["district"] == "朝阳区"

    plain_parser = geoalign.Parser(guess=False)
    plain = plain_parser.parse(address)["admin"]
    assert "guess" not in plain
    assert plain["district"] is None and plain["adcode"] is None
    assert plain["candidates"] == guessed["candidates"]
    out = run_cli(cli, "parse", "--no-guess", "--model", str(MODEL / "parser"), stdin=address + "\n")
    assert json.loads(out) == plain_parser.parse(address)
