#!/usr/bin/python3
"""A synthetic address file of N lines for scale runs of index, search and dedup.

    tools/bench/grow_addresses.py N [--seed 0] [--places PLACES.tsv] > addresses.tsv

Lines are id<TAB>address. Places come from the gazetteer-driven generator of
tools/train/synth.py; about a third of them appear two or three times, written
differently (the duplicates dedup should find), so cost figures include real merges.
--places writes id<TAB>place number: the true clusters, for tools/bench/dedup_truth.py.
"""
import argparse, os, random, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "train"))
import synth  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", type=int)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--places", help="also write id<TAB>place number here")
    args = ap.parse_args()
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


if __name__ == "__main__":
    main()
