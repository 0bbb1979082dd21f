#!/usr/bin/python3
"""A synthetic address file of N lines for scale runs of index, search and dedup.

    tools/bench/grow_addresses.py N [--seed 0] [--places PLACES.tsv] > addresses.tsv

Lines are id<TAB>address. Places come from the gazetteer-driven generator of
tools/train/synth.py; about a third of them appear two or three times, written
differently (the duplicates dedup should find), so cost figures include real merges.
--places writes id<TAB>place number: the true clusters, for tools/bench/dedup_truth.py.

--shape distinct: every place once, written in full (nothing to merge). --shape one-place:
N ways of writing one place (admin levels dropped or shortened, the road and POI in
either order, a look-alike typo) each with another recipient's name after it, as the
orders of one campus or mall arrive: one large true cluster
(tools/bench/one_place_vs_distinct.sh).
"""
import argparse, os, random, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "train"))
import synth  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", type=int)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--places", help="also write id<TAB>place number here")
    ap.add_argument("--shape", choices=["mixed", "distinct", "one-place"], default="mixed")
    args = ap.parse_args()
    if args.shape != "mixed":
        for i, text in enumerate(distinct_texts(args.n, args.shape, random.Random(args.seed), synth.Gazetteer())):
            sys.stdout.write(f"{args.shape[0]}{i}\t{text}\n")
        return
    places = open(args.places, "w", encoding="utf-8") if args.places else None
    rng = random.Random(args.seed)
    gaz = synth.Gazetteer()
    out = sys.stdout
    written = place_number = 0
    while written < args.n:
        place = synth.Place(rng, gaz)
        depth = rng.choice([2, 3, 4])
        for _ in range(rng.choice([1, 1, 2, 3])):
            if written == args.n:
                break
            out.write(f"g{written}\t{place.render(depth)}\n")
            if places:
                places.write(f"g{written}\t{place_number}\n")
            written += 1
        place_number += 1


SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗"
GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰萍红鹏飞宇浩然子轩梓涵一诺欣怡"


def distinct_texts(n, shape, rng, gaz):
    """n different texts: of n places (distinct), or of one place (one-place)."""
    seen = set()
    place = synth.Place(rng, gaz)
    while len(seen) < n:
        if shape == "distinct":
            text = synth.Place(rng, gaz).render(rng.choice([2, 3, 4]), vary=False)
        else:
            name = rng.choice(SURNAMES) + "".join(rng.choice(GIVEN) for _ in range(rng.choice([1, 2])))
            text = place.render(2) + rng.choice(["", "收件人", "转交"]) + name + rng.choice(["", "收", "先生", "女士"])
        if text not in seen:
            seen.add(text)
            yield text


if __name__ == "__main__":
    main()
