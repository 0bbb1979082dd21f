"""Pairs the labelled data lacks: one place name at two addresses in different cities, on
different roads (安徽省阜阳市颍上县友谊东路79号招商华庭 against 乐平市中山中路333号招商华庭),
and, beside each, one address with and without its admin prefix; one address against
itself with its district swapped for another of the same city (南京市高淳区新桥村 against
南京市六合区新桥村), and beside each, the same address from its district on.

Every CCKS pair was drawn from one city's map search, so the labelled pairs almost never
show two cities, and the head learned that a shared place name at the end of both
addresses is strong evidence. A file that spans the country (dedup of national order
addresses) is full of such names (阳光幼儿园, 龙湖超市, 招商华庭): without the first kind
the head calls two kindergartens a thousand kilometres apart the same place. The second
kind keeps it from learning the wrong lesson (that a shared name at the end is evidence
against) instead of the right one (two cities, two roads).

The pairs are built from the NER training addresses (never a CCKS or Shenzhen address, so
no cross-validation fold sees its own addresses). A different place: an address cut after
its first POI, against another address whose completed admin chain is in another city and
whose road differs, cut before its own first POI and given the first one's POI name. The
same place: an address cut after its first POI, or its admin prefix and POI alone,
against the same text from its first element below the district
(江西省景德镇市昌江区民主道703号未来花园 or 江西省景德镇市昌江区未来花园, against
民主道703号未来花园).
Cities come from the parser's completion without guesses, and from a province, city or
district the address names, so an ambiguous chain never makes a pair.
"""
import json
import os
import random
import subprocess

from data import ner_addresses
from gazetteer import Gazetteer, short_name

ADMIN_TAGS = ("prov", "city", "district")


def parsed(geoalign, parser_dir, texts):
    out = subprocess.run([geoalign, "parse", "--no-guess", "--model", parser_dir], input="\n".join(texts) + "\n",
                         capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


class Place:
    """What the pairs need of one parsed address; usable is False where it lacks any of it
    for the two-cities kind, district None where it lacks any of it for the district kind."""

    def __init__(self, parse):
        elements, admin = parse["elements"], parse["admin"]
        stated = any(e["tag"] in ADMIN_TAGS for e in elements)
        # A town alone (九堡镇) is read through today's divisions, which may no longer hold the one meant.
        self.city = admin["adcode"][:4] if admin["adcode"] and admin["city"] and stated else None
        self.text = parse["text"]
        district = next((e for e in elements if e["tag"] == "district"), None)
        self.districts = sum(e["tag"] == "district" for e in elements)
        # A district the address resolves to with no town below it (so the adcode is the
        # district's own), not a former name (swapping it would say nothing of today's
        # district), with something after it to keep.
        own = (self.city and district and admin["district"] and len(admin["adcode"]) == 6
               and not admin.get("historical") and elements[-1] is not district)
        self.district = district if own else None
        if self.district:
            self.district_code = admin["adcode"]
            self.district_name = admin["district"]
        poi = next((e for e in elements if e["tag"] == "poi"), None)
        road = next((e for e in elements if e["tag"] == "road"), None)
        self.usable = bool(self.city and poi and road and len(poi["text"]) >= 2)
        if not self.usable:
            return
        text = parse["text"]
        self.poi, self.road = poi["text"], road["text"]
        self.before_poi, self.through_poi = text[:poi["start"]], text[:poi["end"]]
        body = next(e for e in elements if e["tag"] not in ADMIN_TAGS)
        self.body = text[body["start"]:poi["end"]]
        self.admin_and_poi = text[:body["start"]] + poi["text"]


def region_pairs(geoalign, parser_dir, ner_path, n, seed=0):
    """Up to n (addr1, addr2, match) pairs of each kind the module docstring describes; match
    is 1 for the same place, 0 for two."""
    places_all = [Place(parse) for parse in parsed(geoalign, parser_dir, ner_addresses(ner_path))]
    places = [p for p in places_all if p.usable]
    rng = random.Random(seed)
    different, same = [], []
    for _ in range(20 * n if len(places) >= 2 else 0):
        if len(different) == n:
            break
        a, b = rng.sample(places, 2)
        if a.city == b.city or a.road == b.road or a.poi in b.before_poi or not b.before_poi:
            continue
        different.append((a.through_poi, b.before_poi + a.poi, 0))
    for a in rng.sample(places, min(n, len(places))):
        if a.body == a.through_poi:
            continue
        # Each side naming what the other leaves out, as real pairs do, or one inside the other.
        if rng.random() < 0.5 and a.body != a.poi:
            same.append((a.admin_and_poi, a.body, 1))
        else:
            same.append((a.through_poi, a.body, 1))
    pairs = different + same
    for i, (x, y, label) in enumerate(pairs):
        if rng.random() < 0.5:
            pairs[i] = (y, x, label)
    # Its own generator, so that the kinds above stay the pairs they were.
    return pairs + other_district_pairs(geoalign, parser_dir, places_all, n, random.Random(seed + 1))


def other_district_pairs(geoalign, parser_dir, places, n, rng):
    """Up to n pairs of one address against itself with its district swapped for another of
    the same city, written full or short: 南京市高淳区新桥村 against 南京市六合区新桥村, or
    against 六合新桥村; and beside each, the same place from its district on, its district
    written full or short (南京市高淳区新桥村 against 高淳新桥村). The same road, number or
    village in two districts is two places, as the CCKS annotators label it (not_match on
    294 of the 378 pairs whose resolved districts differ, most of the 13 exact ones a former
    name), but CCKS rarely shows it with the rest of the address equal, and the head learned
    to trust the shared rest."""
    gazetteer = Gazetteer(os.path.join(parser_dir, "divisions.tsv"))
    siblings = {}
    for code in gazetteer.by_level["district"]:
        _, name, parent = gazetteer.rows[code]
        siblings.setdefault(parent, []).append((code, name))
    # One district element: an address that names its admin chain twice
    # (浙江省金华市义乌市浙江省金华市婺城区...) would keep a district of its own after the swap.
    candidates = [p for p in places if p.district and p.districts == 1 and len(siblings.get(p.city, ())) >= 2]
    drafted = []
    for a in rng.sample(candidates, min(n, len(candidates))):
        d = a.district
        code, name = rng.choice([s for s in siblings[a.city] if s[0] != a.district_code])
        # The second address's district written full or short (六合区, 六合) at random:
        # names that differ only in form are one district, and only the resolved district
        # may decide.
        other_name = name if rng.random() < 0.5 else short_name(name)
        if short_name(name) in a.text:
            continue
        other = a.text[:d["start"]] + other_name + a.text[d["end"]:]
        # Half against the whole other address, half against it from its district on, so
        # that a prefix on one side only is not what tells the two kinds apart.
        other = other if rng.random() < 0.5 else other[d["start"]:]
        drafted.append((a.text, other, code, 0))
        # Beside it, the address against itself from its district on: otherwise a prefix
        # on one side only, or a district written another way, would read as evidence of
        # two places.
        own_name = a.district_name if rng.random() < 0.5 else short_name(a.district_name)
        same = own_name + a.text[d["end"]:]
        if same != a.text:
            drafted.append((a.text, same, a.district_code, 1))
    # Only pairs whose second address the parser reads in the district meant: a short name
    # another district shares, or a chain the rest contradicts, would teach the head that
    # an equal rest means two places with nothing to tell them apart. Development zones
    # (codes xxxx7x), which overlap districts, do not pass it either: none of the 2,547
    # different-place pairs made for the shipped heads names one.
    read = parsed(geoalign, parser_dir, [other for _, other, _, _ in drafted]) if drafted else []
    pairs = []
    for (text, other, code, match), parse in zip(drafted, read):
        if parse["admin"]["adcode"] == code and not parse["admin"]["ambiguous"]:
            pairs.append((text, other, match) if rng.random() < 0.5 else (other, text, match))
    return pairs
