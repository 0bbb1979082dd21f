"""Pairs of one compound, another unit: an address against itself with the number of one
of its buildings, units, floors or rooms changed (杭州市西湖区文三路88号华星大厦5楼 against
...6楼), labelled partial_match, and beside each, the address against itself with that unit
written another way (5楼 and 5层, 3栋 and 3幢, 502室 and 502), labelled exact_match.

The CCKS annotation calls one compound's other building, floor or room a partial match
(the data's README: "same complex, another building"; of the CCKS pairs whose floors
differ, 95 are partial_match and 5 exact_match), but the labelled pairs rarely show two
addresses that differ in that number alone, so the head learned to trust the shared rest:
华星大厦5楼 against 华星大厦6楼 read exact_match. These pairs carry their three-class label
(unlike the region pairs, which say only same place or not).

The pairs are built from the NER training addresses (never a CCKS or Shenzhen address, so
no cross-validation fold sees its own addresses), where the parser finds a house, unit,
floor or room element with a number after a road or a place.
"""
import random
import re

from data import ner_addresses
from region_pairs import parsed

UNIT_TAGS = ("houseno", "cellno", "floorno", "roomno")
PLACE_TAGS = ("road", "roadno", "poi", "subpoi", "community", "devzone")
# One unit written another way: the building and floor words real files mix.
OTHER_WORDS = (("号楼", "栋"), ("栋", "幢"), ("幢", "栋"), ("层", "楼"), ("楼", "层"))
PARTIAL, EXACT = 1, 2


def written_otherwise(unit):
    """The unit with its unit word swapped (5楼 -> 5层) or its 室 dropped; None where neither applies."""
    for word, other in OTHER_WORDS:
        if unit.endswith(word) and unit[: -len(word)][-1:].isdigit():
            return unit[: -len(word)] + other
    if unit.endswith("室") and unit[:-1][-1:].isdigit():
        return unit[:-1]
    return None


def unit_pairs(geoalign, parser_dir, ner_path, n, seed=0):
    """Up to n (addr1, addr2, label) pairs of each kind the module docstring describes; label
    is PARTIAL (another unit) or EXACT (the unit written another way)."""
    rng = random.Random(seed)
    candidates = []
    for parse in parsed(geoalign, parser_dir, ner_addresses(ner_path)):
        elements = parse["elements"]
        first_place = next((i for i, e in enumerate(elements) if e["tag"] in PLACE_TAGS), None)
        if first_place is None:
            continue
        units = [e for e in elements[first_place + 1:] if e["tag"] in UNIT_TAGS and re.search(r"\d", e["text"])]
        if units:
            candidates.append((parse["text"], units))
    pairs = []
    for text, units in rng.sample(candidates, min(n, len(candidates))):
        unit = rng.choice(units)
        numbers = list(re.finditer(r"\d+", unit["text"]))
        number = rng.choice(numbers)
        value = int(number.group())
        changed = value + rng.choice([-2, -1, 1, 1, 2, 3])
        if changed <= 0:
            changed = value + 1
        other_unit = unit["text"][: number.start()] + str(changed) + unit["text"][number.end():]
        other = text[: unit["start"]] + other_unit + text[unit["end"]:]
        pairs.append((text, other, PARTIAL))
        same_unit = written_otherwise(unit["text"])
        # 1916室8幢 without its 室 would run two numbers together.
        if same_unit and not (same_unit[-1:].isdigit() and text[unit["end"]:unit["end"] + 1].isdigit()):
            pairs.append((text, text[: unit["start"]] + same_unit + text[unit["end"]:], EXACT))
    return [(a, b, label) if rng.random() < 0.5 else (b, a, label) for a, b, label in pairs]
