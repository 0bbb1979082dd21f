"""tools/train/unit_pairs.py: the match head's pairs of one compound, another unit, built
from tagged addresses with the repository's parser."""

from __future__ import annotations

import sys

from conftest import MODEL, ROOT

sys.path.insert(0, str(ROOT / "tools" / "train"))
from unit_pairs import EXACT, PARTIAL, unit_pairs, written_otherwise  # noqa: E402


def test_a_unit_is_written_another_way_only_where_a_number_precedes_its_word():
    assert written_otherwise("5楼") == "5层"
    assert written_otherwise("3栋") == "3幢"
    assert written_otherwise("12号楼") == "12栋"
    assert written_otherwise("502室") == "502"
    assert written_otherwise("东楼") is None
    assert written_otherwise("1单元") is None


def conll(addresses: list[str]) -> str:
    # Tags do not matter here: the pairs read the parser's elements, not the file's.
    return "\n\n".join("\n".join(f"{c} O" for c in a) for a in addresses) + "\n\n"


def test_pairs_change_one_unit_number_or_write_it_another_way(cli, tmp_path):
    ner = tmp_path / "train.txt"
    ner.write_text(conll(["杭州市西湖区文三路88号华星大厦5楼", "南京市鼓楼区中山路100号3栋502室", "杭州市西湖区"]),
                   encoding="utf-8")
    pairs = unit_pairs(str(cli), str(MODEL / "parser"), str(ner), 10, seed=0)
    assert {label for _, _, label in pairs} <= {PARTIAL, EXACT}
    partial = [(a, b) for a, b, label in pairs if label == PARTIAL]
    assert len(partial) == 2  # the address without a unit gives none
    for a, b in partial:
        assert a != b and len([1 for x, y in zip(a, b) if x != y]) >= 1
        # Only digits changed, and the rest of the address is the same.
        assert [c for c in a if not c.isdigit()] == [c for c in b if not c.isdigit()]
    for a, b, label in pairs:
        if label == EXACT:
            assert {a, b} & {"杭州市西湖区文三路88号华星大厦5楼", "南京市鼓楼区中山路100号3栋502室"}
