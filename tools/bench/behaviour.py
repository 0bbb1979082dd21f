#!/usr/bin/python3
"""A behaviour suite for the pair decision, CheckList style: what a person expects of any
address matcher, as pass rates per category.

Cases come from templates over real addresses (the labelled pairs' addresses, parsed to
find the element to edit) and from a committed fixture of hand-written cases
(tests/fixtures/behaviour.tsv). Every case is scored in both orders and passes only if
its expectation holds in both:

  invariance   the edit leaves the place as it was: exact_match
               (admin prefix dropped, 市/区 suffix dropped, Chinese numerals, full-width,
               blanks between elements; and "order swapped": the label of (a, b) equals
               the label of (b, a) on real labelled pairs)
  directional  the edit names another place: never exact_match
               (another number, road, building or city)
  mft          minimum functionality: the fixture's names inside names, abbreviations and
               one-character differences, each with its expected label

  tools/bench/behaviour.py [--model DIR] [--head match|rerank] [--data PAIRS.tsv ...] [--per-category N] [--json]

Without --data (and without ../shared/data) only the fixture runs.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Callable, Iterable, Optional

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "behaviour.tsv"
DEFAULT_DATA = [ROOT.parent / "shared" / "data" / name / "pairs.tsv"
                for name in ("ccks2021_address_relevance", "shenzhen_address_pairs")]

# A case: (kind, category, a, b, expectation); expectation is a label that both orders
# must give, "not_exact" (neither order exact_match) or "same_both_ways".
Case = tuple[str, str, str, str, str]

DIGITS = "零一二三四五六七八九"


def chinese_number(n: int) -> str:
    """1 to 9999 as written in Chinese (88 → 八十八, 105 → 一百零五)."""
    if not 0 < n < 10000:
        raise ValueError(n)
    out, zero = "", False
    for value, unit in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        d = n // value % 10
        if d:
            if zero:
                out += "零"
            out += ("" if (d == 1 and unit == "十" and not out) else DIGITS[d]) + unit
            zero = False
        elif out:
            zero = True
    return out


def read_fixture(path: Path = FIXTURE) -> list[Case]:
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 5:
            raise ValueError(f"{path}:{number}: 5 tab-separated fields wanted (kind, category, a, b, expectation)")
        cases.append(tuple(fields))  # type: ignore[arg-type]
    return cases


def read_pairs(paths: Iterable[Path]) -> list[tuple[str, str]]:
    pairs = []
    for path in paths:
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                fields = line.split("\t")
                if len(fields) >= 2 and fields[0].strip() and fields[1].strip():
                    pairs.append((fields[0], fields[1]))
    return pairs


def element(parse: dict, tag: str) -> Optional[dict]:
    return next((e for e in parse["elements"] if e["tag"] == tag), None)


def replaced(parse: dict, e: dict, text: str) -> str:
    t = parse["text"]
    return t[:e["start"]] + text + t[e["end"]:]


def template_cases(addresses: list[str], parser, per_category: int, seed: int = 0) -> list[Case]:
    """Edits of real addresses, at most per_category per category."""
    rng = random.Random(seed)
    parses = [parser.parse(a) for a in rng.sample(addresses, min(len(addresses), 20 * per_category))]
    pool: dict[str, list[str]] = defaultdict(list)  # element texts by tag, to swap in
    for p in parses:
        for e in p["elements"]:
            pool[e["tag"]].append(e["text"])
    made: dict[str, list[Case]] = defaultdict(list)

    def add(kind: str, category: str, a: str, b: Optional[str], want: str) -> None:
        if b and b != a and len(made[category]) < per_category:
            made[category].append((kind, category, a, b, want))

    def other(tag: str, than: str) -> Optional[str]:
        choices = [t for t in pool[tag] if t != than and than not in t and t not in than]
        return rng.choice(choices) if choices else None

    for p in parses:
        text = p["text"]
        tags = [e["tag"] for e in p["elements"]]
        admin = [e for e in p["elements"] if e["tag"] in ("prov", "city", "district")]
        rest = [e for e in p["elements"] if e["tag"] not in ("prov", "city", "district", "town")]
        # Only addresses that say where they are and what is there.
        if not admin or not rest or "road" not in tags:
            continue
        # The province and city the address begins with, if it begins with them.
        first = []
        for e in p["elements"]:
            if e["tag"] not in ("prov", "city") or e["start"] != (first[-1]["end"] if first else 0):
                break
            first.append(e)
        if first and element(p, "district"):
            add("invariance", "admin prefix dropped", text, text[first[-1]["end"]:], "exact_match")
        for e in admin:
            if len(e["text"]) > 2 and e["text"][-1] in "市区":
                add("invariance", "市/区 suffix dropped", text, replaced(p, e, e["text"][:-1]), "exact_match")
                break
        roadno = element(p, "roadno")
        if roadno and roadno["text"].endswith("号") and roadno["text"][:-1].isdigit() and 0 < int(roadno["text"][:-1]) < 10000:
            n = int(roadno["text"][:-1])
            add("invariance", "Chinese numerals", text, replaced(p, roadno, chinese_number(n) + "号"), "exact_match")
            add("directional", "another number", text, replaced(p, roadno, f"{n + rng.randint(1, 9)}号"), "not_exact")
        if any(c.isdigit() for c in text):
            add("invariance", "full-width", text, text.translate({ord(d): ord(d) - ord("0") + ord("０") for d in "0123456789"}),
                "exact_match")
        add("invariance", "blanks between elements", text, " ".join(e["text"] for e in p["elements"]), "exact_match")
        road = element(p, "road")
        swap = other("road", road["text"])
        if swap:
            add("directional", "another road", text, replaced(p, road, swap), "not_exact")
        poi = element(p, "poi")
        if poi:
            swap = other("poi", poi["text"])
            if swap:
                add("directional", "another building", text, replaced(p, poi, swap), "not_exact")
        city = element(p, "city")
        if city and element(p, "district") is None:
            swap = other("city", city["text"])
            if swap:
                add("directional", "another city", text, replaced(p, city, swap), "not_exact")
    return [c for cases in made.values() for c in cases]


def order_cases(pairs: list[tuple[str, str]], per_category: int, seed: int = 0) -> list[Case]:
    rng = random.Random(seed)
    chosen = rng.sample(pairs, min(len(pairs), per_category))
    return [("invariance", "order swapped", a, b, "same_both_ways") for a, b in chosen]


def passes(case: Case, forward: str, backward: str) -> bool:
    want = case[4]
    if want == "same_both_ways":
        return forward == backward
    if want == "not_exact":
        return forward != "exact_match" and backward != "exact_match"
    return forward == want and backward == want


def run(cases: list[Case], score: Callable[[list[tuple[str, str]]], list[str]]) -> dict:
    """Pass rates per category; `score` gives a label per pair."""
    labels = score([(c[2], c[3]) for c in cases] + [(c[3], c[2]) for c in cases])
    n = len(cases)
    by_category: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    failures: dict[str, list] = defaultdict(list)
    for i, case in enumerate(cases):
        ok = passes(case, labels[i], labels[n + i])
        tally = by_category[(case[0], case[1])]
        tally[0] += ok
        tally[1] += 1
        if not ok and len(failures[case[1]]) < 3:
            failures[case[1]].append([case[2], case[3], case[4], labels[i], labels[n + i]])
    return {f"{kind}/{category}": {"passed": p, "cases": t, "rate": round(p / t, 3),
                                   "failures": failures[category]}
            for (kind, category), (p, t) in sorted(by_category.items())}


def cli_labels(binary: Path, model: Optional[str], pairs: list) -> list:
    """Labels from `geoalign score --head rerank`, in input order."""
    import subprocess

    text = "".join(f"{a}\t{b}\n" for a, b in pairs)
    command = [str(binary), "score", "--head", "rerank"] + (["--model", str(model)] if model else []) + ["-"]
    out = subprocess.run(command, input=text, capture_output=True, text=True, check=True).stdout
    return [line.split("\t")[2] for line in out.splitlines()[1:]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=str(ROOT / "models" / "default"))
    parser.add_argument("--data", type=Path, nargs="*", default=None,
                        help="labelled pair files whose addresses the templates edit (default: ../shared/data's)")
    parser.add_argument("--per-category", type=int, default=300)
    parser.add_argument("--fixture-only", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--head", choices=("match", "rerank"), default="match",
                        help="match: the Python Matcher (score's default); rerank: the rerank head that "
                             "search and dedup use, through `geoalign score --head rerank`")
    parser.add_argument("--geoalign", type=Path, default=ROOT / "build" / "release" / "geoalign",
                        help="the CLI for --head rerank")
    args = parser.parse_args()

    import geoalign

    if args.head == "match":
        matcher = geoalign.Matcher(args.model)
        labels_of = lambda pairs: [r.label for r in matcher.score(pairs)]  # noqa: E731
    else:
        labels_of = lambda pairs: cli_labels(args.geoalign, args.model, pairs)  # noqa: E731
    cases = read_fixture()
    if not args.fixture_only:
        pairs = read_pairs(DEFAULT_DATA if args.data is None else args.data)
        if pairs:
            addresses = sorted({a for pair in pairs for a in pair})
            cases += template_cases(addresses, geoalign.Parser(), args.per_category)
            cases += order_cases(pairs, args.per_category)
    report = run(cases, labels_of)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=1))
    else:
        for name, r in report.items():
            print(f"{name:45s} {r['passed']:5d} / {r['cases']:5d}  {r['rate']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
