#!/usr/bin/python3
"""Pairwise precision, recall and F1 of `geoalign dedup` clusters against known places.

    tools/bench/grow_addresses.py 20000 --places places.tsv > addresses.tsv
    geoalign dedup --input addresses.tsv --out clusters.tsv
    /usr/bin/python3 tools/bench/dedup_truth.py clusters.tsv places.tsv

A true positive is two rows of one place in one cluster, a false negative two rows of one
place in two clusters, a false positive two rows of two places in one cluster. Every row
of PLACES must be in CLUSTERS and the other way round, or the script stops naming the id.
"""
import argparse
import collections
import csv
import sys


def read_column(path, key, value, header):
    out = {}
    with open(path, encoding="utf-8", newline="") as f:
        rows = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        if header:
            names = next(rows)
            key, value = names.index(key), names.index(value)
        for row in rows:
            out[row[key]] = row[value]
    return out


def pairs_within(groups):
    return sum(n * (n - 1) // 2 for n in groups.values())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("clusters", help="geoalign dedup --out (id, cluster_id columns)")
    ap.add_argument("places", help="id<TAB>place, no header")
    args = ap.parse_args()
    cluster = read_column(args.clusters, "id", "cluster_id", header=True)
    place = read_column(args.places, 0, 1, header=False)
    for a, b, name in ((place, cluster, args.clusters), (cluster, place, args.places)):
        missing = next((i for i in a if i not in b), None)
        if missing is not None:
            sys.exit(f"{name}: no row for id {missing}")
    both = collections.Counter((cluster[i], place[i]) for i in place)
    tp = pairs_within(both)
    same_place = pairs_within(collections.Counter(place.values()))
    same_cluster = pairs_within(collections.Counter(cluster.values()))
    precision = tp / same_cluster if same_cluster else 1.0
    recall = tp / same_place if same_place else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    print(f"{len(place)} rows, {len(set(place.values()))} places, {len(set(cluster.values()))} clusters")
    print(f"pairs: {same_place} within places, {same_cluster} within clusters, {tp} within both")
    print(f"precision {precision:.4f} recall {recall:.4f} F1 {f1:.4f}")


if __name__ == "__main__":
    main()
