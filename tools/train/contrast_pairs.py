"""Pairs of two places that differ in one element: an address
against itself with its road, its POI or its city swapped for another one
(五和南路72号家和花园 against 红荔路72号家和花园), with one direction or numeral character of
its road or POI name changed (中山北路30号 against 中山南路30号, 文一路 against 文二路), and a
city against a road, school or square named after it (成都市 against 成都路), or a city
alone against an address inside it. All are not_match but one shape: another POI at the
same road number is partial_match, as the CCKS annotators label it.

The labelled pairs come from one city's map search around one query, so they almost never
show two addresses that differ in a single element, and the head learned to trust the
shared rest: a road swapped for another with the same number and estate read exact_match
on four template pairs in five (tools/bench/behaviour.py), and nothing in the labels told
it that 成都市 and 成都路 are not one place. A person reads each of these as another
place; the CCKS annotation rules say not_match for another road or POI, and for a region
against a place inside it.

The pairs are built from the NER training addresses (never a CCKS or Shenzhen address, so
no cross-validation fold sees its own addresses, and the behaviour suite's templates over
the labelled pairs' addresses stay unseen).
"""
import random

from data import ner_addresses
from region_pairs import parsed

NOT_MATCH, PARTIAL = 0, 1
# Characters that, changed for another of their row, name a neighbouring place.
ROWS = ("东西南北中", "一二三四五六七八九十", "0123456789", "上下", "前后", "大小", "新老")
NAMED_AFTER = ("路", "大道", "街", "大街", "大学", "中学", "广场", "公园", "医院", "酒店", "大厦", "商场")
SWAPPED_TAGS = ("road", "poi", "city")


def one_character_edit(name, rng):
    """name with one character of a row changed for another of that row, never its last
    (the road or building word); None where it has none."""
    spots = [(i, row) for i, c in enumerate(name[:-1]) for row in ROWS if c in row]
    if not spots:
        return None
    i, row = rng.choice(spots)
    other = rng.choice([c for c in row if c != name[i]])
    return name[:i] + other + name[i + 1:]


def label_of_edit(elements, k):
    """The CCKS convention: another POI at one road number is partly the same place
    (partial_match, 221 of the 317 CCKS pairs of that shape); anything else edited names
    another place. k: the edited element's place in elements."""
    at_number = k > 0 and elements[k - 1]["tag"] == "roadno"
    return PARTIAL if elements[k]["tag"] == "poi" and at_number else NOT_MATCH


def replaced(text, element, new):
    return text[: element["start"]] + new + text[element["end"]:]


def stem_of(city):
    """成都市 -> 成都; None where the name would be a single character."""
    stem = city[:-1] if city[-1:] in "市省区县" else city
    return stem if len(stem) >= 2 else None


def contrast_pairs(geoalign, parser_dir, ner_path, n, seed=0):
    """Up to n (addr1, addr2, label) pairs of each kind the module docstring describes."""
    rng = random.Random(seed)
    parses = parsed(geoalign, parser_dir, ner_addresses(ner_path))
    pool = {tag: sorted({e["text"] for p in parses for e in p["elements"] if e["tag"] == tag}) for tag in SWAPPED_TAGS}
    # Each candidate: (text, elements, k), the element at k to edit.
    kinds = {"swapped": [], "one character": [], "named after": [], "region against inside": []}
    for parse in parses:
        text, elements = parse["text"], parse["elements"]
        for k, e in enumerate(elements):
            # Swapped where something on both sides pins the place, or, for a road or POI,
            # where anything else does: the edit changes one part of a fuller address.
            inner = 0 < k < len(elements) - 1
            if e["tag"] in SWAPPED_TAGS and (inner or (e["tag"] in ("road", "poi") and len(elements) >= 2)):
                kinds["swapped"].append((text, elements, k))
            if e["tag"] in ("road", "poi") and len(e["text"]) >= 3:
                kinds["one character"].append((text, elements, k))
            if e["tag"] == "city" and stem_of(e["text"]):
                kinds["named after"].append((text, elements, k))
                if e is not elements[-1] and len(text) - e["end"] >= 4:
                    kinds["region against inside"].append((text, elements, k))
    pairs = []
    for text, elements, k in rng.sample(kinds["swapped"], min(n, len(kinds["swapped"]))):
        e = elements[k]
        other = rng.choice(pool[e["tag"]])
        if other != e["text"] and other not in e["text"] and e["text"] not in other:
            pairs.append((text, replaced(text, e, other), label_of_edit(elements, k)))
    edits = [(text, elements, k, one_character_edit(elements[k]["text"], rng))
             for text, elements, k in kinds["one character"]]
    edits = [edit for edit in edits if edit[3]]
    for text, elements, k, edited in rng.sample(edits, min(n, len(edits))):
        pairs.append((text, replaced(text, elements[k], edited), label_of_edit(elements, k)))
    # Each city once, against two of the names made from it (the NER addresses are mostly one province's).
    cities = sorted({elements[k]["text"] for _, elements, k in kinds["named after"]})
    for city in rng.sample(cities, min(n // 2, len(cities))):
        for suffix in rng.sample(NAMED_AFTER, 2):
            pairs.append((city, stem_of(city) + suffix, NOT_MATCH))
    for text, elements, k in rng.sample(kinds["region against inside"], min(n // 2, len(kinds["region against inside"]))):
        pairs.append((text[: elements[k]["end"]], text, NOT_MATCH))
    return [(a, b, label) if rng.random() < 0.5 else (b, a, label) for a, b, label in pairs]
