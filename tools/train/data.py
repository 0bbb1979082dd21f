"""Real labelled data from ../shared/data, split deterministically by the first address
(the CCKS file groups five candidates under one query address, so splitting by pair
would leak queries between splits). Nothing here is ever written into the repository."""
import hashlib
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(os.path.dirname(ROOT), "shared", "data")
CCKS = os.path.join(DATA, "ccks2021_address_relevance", "pairs.tsv")
SHENZHEN = os.path.join(DATA, "shenzhen_address_pairs", "pairs.tsv")
NER_TRAIN = os.path.join(DATA, "address_ner", "train.txt")
LABELS = ["not_match", "partial_match", "exact_match"]


def split_of(address):
    """70% train, 15% dev, 15% test, by a stable hash of the query address."""
    bucket = int(hashlib.md5(address.encode("utf-8")).hexdigest(), 16) % 100
    return "train" if bucket < 70 else "dev" if bucket < 85 else "test"


def load_pairs(path, split=None):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3 or not parts[0] or not parts[1]:
                continue
            if split is None or split_of(parts[0]) == split:
                out.append((parts[0], parts[1], int(parts[2])))
    return out


def ner_addresses(path=NER_TRAIN):
    """The NER file's addresses as plain strings (tokens joined)."""
    out, current = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                if current:
                    out.append("".join(current))
                current = []
                continue
            current.append(line.split(" ")[0])
    if current:
        out.append("".join(current))
    return out


def macro_f1(gold, pred, n=3):
    f1s = []
    for c in range(n):
        tp = sum(1 for g, p in zip(gold, pred) if g == c and p == c)
        fp = sum(1 for g, p in zip(gold, pred) if g != c and p == c)
        fn = sum(1 for g, p in zip(gold, pred) if g == c and p != c)
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        f1s.append(2 * prec * rec / (prec + rec) if prec + rec else 0.0)
    return sum(f1s) / n, f1s
