"""Address pairs from a TSV (addr1<TAB>addr2[<TAB>...], an `addr1 addr2` header allowed), as
the benchmarks read them: rows without two non-blank addresses are left out."""
import sys


def read_pairs(path):
    pairs = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f):
            parts = line.rstrip("\n").split("\t")
            if n == 0 and parts[:2] == ["addr1", "addr2"]:
                continue
            if len(parts) >= 2 and parts[0].strip() and parts[1].strip():
                pairs.append((parts[0], parts[1]))
    if not pairs:
        sys.exit(f"{path}: no address pairs")
    return pairs
