"""The vendored gazetteer (models/default/parser/divisions.tsv) as admin chains."""
import os
import random

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PATH = os.path.join(ROOT, "models", "default", "parser", "divisions.tsv")
SUFFIXES = ["特别行政区", "自治区", "自治州", "自治县", "新区", "街道", "省", "市", "区", "县", "镇", "乡", "盟", "旗"]


def short_name(name):
    """北京市 -> 北京, 朝阳区 -> 朝阳, 广西壮族自治区 -> 广西 (the way people abbreviate)."""
    for ethnic in ("壮族", "回族", "维吾尔"):
        if ethnic in name and name.endswith("自治区"):
            return name[: name.index(ethnic)]
    for s in SUFFIXES:
        if name.endswith(s) and len(name) - len(s) >= 2:
            return name[: -len(s)]
    return name


class Gazetteer:
    def __init__(self, path=PATH):
        self.rows = {}
        self.by_level = {"prov": [], "city": [], "district": [], "town": []}
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("#"):
                    continue
                code, level, name, parent = line.rstrip("\n").split("\t")
                self.rows[code] = (level, name, parent)
                self.by_level[level].append(code)

    def chain(self, code):
        """[(level, name)] from the province down to `code`; '市辖区' placeholders dropped."""
        out = []
        while code:
            level, name, parent = self.rows[code]
            if name not in ("市辖区", "县", "省直辖县级行政区划", "自治区直辖县级行政区划"):
                out.append((level, name))
            code = parent
        return out[::-1]

    def random_town(self, rng: random.Random):
        return self.chain(rng.choice(self.by_level["town"]))

    def names(self):
        return [name for level, name, parent in self.rows.values()]
