#!/usr/bin/python3
"""Trains the match head of a model folder (match_head.json; match_head_ordered.json with
--orders given), or with --without-encoder its rerank head (rerank_head.json).

    /usr/bin/python3 tools/train/train_match_head.py [--model models/default] [--geoalign build/release/geoalign]
                                                     [--orders canonical|given] [--encoder-inputs no|yes]
                                                     [--without-encoder] [--cv] [--fit-on all|train]

The head sees, for each pair, what `geoalign features --model` computes in C++ (string measures,
element-by-element comparisons of the two parses, which elements of each address the other
names, idf-weighted overlaps, where the longest shared run ends and what each address
leaves over, admin-chain agreement, granularity), with --encoder-inputs yes also the
encoder's three class probabilities, and gives the final probabilities with
gradient-boosted trees (scikit-learn's HistGradientBoostingClassifier, class-balanced).
The shipped match heads read the pair features alone (--encoder-inputs no, the default):
the encoder's probabilities bought nothing measurable (docs/notes/accuracy-history.md),
the encoder was fine-tuned on the CCKS train split, so with them a fold's held-out pairs
would reach the head through it, and without them scoring runs no encoder at all.
Steps (fixed seeds):
  0. MODEL/term_weights.tsv: the idf of every character and bigram over the training
     addresses (CCKS and Shenzhen train splits, the NER training file), from
     `geoalign term-weights`;
  1. features (and with --encoder-inputs yes, encoder probabilities) for every CCKS and
     Shenzhen pair, from the C++ binary itself, so training sees exactly what inference
     computes;
  2. trees fitted on every CCKS pair plus every Shenzhen pair at a low weight
     (0.1: it buys binary accuracy at a small cost on the three classes). Shenzhen labels
     only say same place or not: its non-matches join as not_match, and its matches take
     partial_match or exact_match from a first model fitted on CCKS alone (they are not
     all exact: many name one place at different granularity); region pairs join the
     same way at weight 0.3 (tools/train/region_pairs.py: one place name in two cities,
     which the CCKS pairs, each drawn from one city, almost never show, one address with
     and without its admin prefix, and one address with its district swapped for
     another of its city); unit pairs keep their class, at weight 0.1
     (tools/train/unit_pairs.py: one address with a building, floor or room number
     changed, partial_match, and with that unit written another way, exact_match);
  3. 5-fold cross-validation (folds by a hash of the query address; the Shenzhen pairs are
     folded the same way) gives every pair a prediction from a head that never saw it:
     the per-class logit offsets are tuned on those for macro-F1 and folded into the
     bias, and they are the only figures reported;
  4. export to MODEL/match_head.json, then a check that geoalign's own scores equal
     scikit-learn's probabilities, and the figures written to MODEL/TRAINING.txt
     (replacing an earlier head's).
The match head learns each pair in canonical order (`geoalign features --order canonical`:
the shorter address first) with one more input, order_swapped, that says whether the pair
was given the other way round. A pair and its swap then have one set of features (and,
with --encoder-inputs yes, one encoder pass); the default, symmetric, reading is the mean
of the head's probabilities over order_swapped 0 and 1 (exactly the same numbers in either order), and its offsets are
tuned on that reading. --orders given trains the head for `--ordered` instead, on pairs as
given, into MODEL/match_head_ordered.json ("ordered match head" in TRAINING.txt): read as
given, CCKS's query -> map record shape scores higher through it (0.707 against 0.698,
5-fold CV), so a folder with both heads serves each reading with its own.
--fit-on train fits on the train splits instead (CCKS and Shenzhen), tunes the offsets on
the dev split and reports the dev and test splits: for measuring anything on those splits,
which a head fitted on all pairs has seen. The term weights of step 0 stay over the train
splits either way, so a fold's held-out pairs are partly counted in them (the dev and test
addresses are not; the train-split ones are).
--without-encoder trains the rerank head on the pair features alone, on the train splits
unless --fit-on all is given (fitted on every pair, its offsets tuned out of fold moved
dedup's links: out-of-fold pairwise F1 0.597 against 0.613), for
search rerank and deduplication, which score far more pairs than the encoder can: it
keeps MODEL/term_weights.tsv as it is (the match head reads it too; train that first),
skips step 0, writes MODEL/rerank_head.json, checks it through `geoalign score --head
rerank`, and keeps its own section of TRAINING.txt. It learns every pair (CCKS, Shenzhen,
region) in both orders, (a, b) and (b, a): dedup scores each pair both ways and averages,
and a head trained only on (query, candidate) read the swapped CCKS pairs at 0.626 macro-F1
against 0.699 (5-fold CV). --cv reports the file's order, the swapped one and their mean,
and writes into the head dedup's default threshold for the merge rule exact: the link at
which pairwise F1 over the CCKS pairs is best out of fold, both orders averaged (with
--fit-on train and without --cv the head has none, and dedup merges at 0.5).
Needs python3-sklearn (tools/train/setup.sh) and ../shared/data.
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import NamedTuple, Optional

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import data  # noqa: E402
from contrast_pairs import contrast_pairs  # noqa: E402
from region_pairs import region_pairs  # noqa: E402
from unit_pairs import unit_pairs  # noqa: E402

# Per kind of head: its file and the title of its section in TRAINING.txt.
MATCH_HEAD = ("match_head.json", "match head")
ORDERED_MATCH_HEAD = ("match_head_ordered.json", "ordered match head")  # --orders given, for --ordered
RERANK_HEAD = ("rerank_head.json", "rerank head")
WEIGHTS_FILE = "term_weights.tsv"
ENCODER_FILES = ["config.json", "vocab.txt", "model.safetensors", "tokenizer_config.json"]


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def write_term_weights(geoalign, path):
    """Idf over training addresses only, so held-out pairs stay unseen."""
    docs = set()
    for pairs in (data.CCKS, data.SHENZHEN):
        for a, b, _ in data.load_pairs(pairs, "train"):
            docs.update((a, b))
    docs.update(data.ner_addresses())
    with open(path, "w", encoding="utf-8") as out:
        subprocess.run([geoalign, "term-weights"], input="".join(d + "\n" for d in sorted(docs)), stdout=out,
                       check=True, text=True, encoding="utf-8")
    return len(docs)


def documents_in(weights_path):
    """How many addresses an existing term weights file counted (its first line)."""
    with open(weights_path, encoding="utf-8") as f:
        return int(f.readline().split("\t")[1])


class SamePlacePairs(NamedTuple):
    """Pairs labelled only same place (1) or not (0), each with its weight, that every fit
    adds to the CCKS pairs it is given (step 2); and where `known` holds, pairs whose y is
    already a CCKS class (the unit pairs)."""
    X: np.ndarray
    y: np.ndarray
    weight: np.ndarray
    known: np.ndarray

    @staticmethod
    def join(parts):
        return SamePlacePairs(*(np.concatenate(column) for column in zip(*parts)))

    @staticmethod
    def in_both_orders(given, swapped):
        """given, then swapped: row i of the second half is row i of the first with its two
        addresses swapped (what fit_head relies on to give both copies one pseudo-label)."""
        return SamePlacePairs.join([SamePlacePairs.join(given), SamePlacePairs.join(swapped)])

    def same_place_class(self, probabilities, both_orders):
        """Partial (1) or exact (2) for each same-place pair, whichever the probabilities
        favour (with both orders, their mean over the pair's two copies); 0 for the others;
        the known labels as they are."""
        if both_orders:
            half = len(self.y) // 2
            if len(self.y) != 2 * half or not np.array_equal(self.y[:half], self.y[half:]):
                sys.exit("same-place pairs in both orders must be built with SamePlacePairs.in_both_orders")
            mean = (probabilities[:half] + probabilities[half:]) / 2
            probabilities = np.vstack([mean, mean])
        pseudo = np.where(self.y == 0, 0, np.where(probabilities[:, 2] > probabilities[:, 1], 2, 1))
        return np.where(self.known, self.y, pseudo)


def pair_table(geoalign, encoder_dir, parser_dir, weights_path, pairs_path, with_encoder, canonical=False):
    """Per pair (file order): pair features (and encoder probabilities; with canonical, of the
    pair in canonical order, then order_swapped), gold label, split, CV fold."""
    lines = run([geoalign, "features", "--parser", parser_dir, "--term-weights", weights_path, "--model", encoder_dir,
                 "--order", "canonical" if canonical else "given", *([] if with_encoder else ["--without-encoder"]),
                 pairs_path]).splitlines()
    names = lines[0].split("\t")[1:-1]
    rows = [line.rstrip("\n").split("\t") for line in open(pairs_path, encoding="utf-8")]
    X, y, split, fold = [], [], [], []
    for line in lines[1:]:
        f = line.split("\t")
        row = rows[int(f[0]) - 1]
        X.append([float(v) for v in f[1:1 + len(names)]])
        y.append(int(row[2]))
        split.append(data.split_of(row[0]))
        fold.append(int(hashlib.md5(row[0].encode("utf-8")).hexdigest(), 16) % 5)
    return np.array(X, dtype=np.float32), np.array(y), np.array(split), names, np.array(fold)


def export_trees(clf, offsets):
    trees = []
    for iteration in clf._predictors:
        for k, predictor in enumerate(iteration):
            nodes = []
            for n in predictor.nodes:
                if n["is_leaf"]:
                    nodes.append([-1, 0.0, 0, 0, float(n["value"])])
                else:
                    nodes.append([int(n["feature_idx"]), float(n["num_threshold"]), int(n["left"]), int(n["right"]), 0.0])
            trees.append({"class": k, "nodes": nodes})
    bias = [float(b) + o for b, o in zip(np.ravel(clf._baseline_prediction), offsets)]
    return bias, trees


def tune_offsets(gold, log_probs):
    """Partial and exact logit offsets that maximize macro-F1 (a grid of 0.1 steps)."""
    best = (data.macro_f1(gold, log_probs.argmax(1))[0], 0.0, 0.0)
    for a in np.arange(-1.5, 1.51, 0.1):
        for b in np.arange(-1.5, 1.51, 0.1):
            f = data.macro_f1(gold, (log_probs + [0, a, b]).argmax(1))[0]
            if f > best[0] + 1e-9:
                best = (f, round(float(a), 2), round(float(b), 2))
    return best


def balanced_weights(labels):
    counts = np.bincount(labels, minlength=3)
    return (len(labels) / (3 * counts))[labels]


def fit_head(new_model, X, y, extra, X_swapped=None):
    """CCKS pairs with class-balanced weights, plus same-place pairs (see step 2); with
    X_swapped (the same CCKS pairs, addresses swapped; extra then holds both orders too),
    each pair is learnt in both orders."""
    if X_swapped is not None:
        X, y = np.vstack([X, X_swapped]), np.concatenate([y, y])
    first = new_model().fit(X, y, sample_weight=balanced_weights(y))
    pseudo = extra.same_place_class(first.predict_proba(extra.X), X_swapped is not None)
    return new_model().fit(np.vstack([X, extra.X]), np.concatenate([y, pseudo]),
                           sample_weight=np.concatenate([balanced_weights(y), extra.weight]))


LINK_THRESHOLDS = np.round(np.arange(0.2, 0.701, 0.05), 2)


def exact_link(probabilities):
    """dedup's link for the merge rule exact (src/dedup/pair_evidence.cpp): exact_match
    against the stronger of the other two classes."""
    n, p, e = probabilities.T
    return e / np.maximum(e + np.maximum(n, p), 1e-30)


def pairwise_f1(y, linked):
    """dedup --eval's measure on CCKS: exact_match is a match, not_match a non-match, partial ignored."""
    known = y != 1
    return binary_f1((y[known] == 2).astype(int), linked[known].astype(int))


def link_thresholds(y, oof, oof_swapped, offsets):
    """The link threshold at which dedup's pairwise F1 is best out of fold, on the mean of both
    orders of probabilities as the exported head gives them (its offsets in): trees are surer
    of their training pairs than of new ones, and the offsets are tuned for macro-F1, not
    for this. Ties go to the threshold nearest 0.5, where the link meets score's label.
    For the merge rule exact only: CCKS calls a partial_match pair a different place, so it
    cannot tell what the partial rule (same place at any granularity) should join; that rule
    keeps 0.5."""
    def shipped(log_probs):
        p = np.exp(log_probs + offsets)
        return p / p.sum(1, keepdims=True)
    link = exact_link((shipped(oof) + shipped(oof_swapped)) / 2)
    f1s = {float(t): pairwise_f1(y, link >= t) for t in LINK_THRESHOLDS}
    chosen = max(f1s, key=lambda t: (round(f1s[t], 4), -abs(t - 0.5)))
    direct = pairwise_f1(y, (oof + offsets).argmax(1) == 2)
    report = ("  dedup's pairwise F1 out of fold, mean of both orders, merge rule exact, by link threshold: "
              + ", ".join(f"{t:.2f} {f:.4f}" for t, f in f1s.items()) + f"; chosen {chosen:.2f}\n"
              f"  the same measure for score's own label (exact_match), file order, out of fold: {direct:.4f}\n")
    return {"exact": chosen}, report


class OutOfFold(NamedTuple):
    """Log-probabilities of every CCKS pair from the fold that did not see it, in the file's
    order and swapped; of every Shenzhen pair where its pairs are folded too (else None),
    as given and, where asked, swapped."""
    given: np.ndarray
    swapped: np.ndarray
    shenzhen: Optional[np.ndarray]
    shenzhen_swapped: Optional[np.ndarray]
    offsets: list  # [0, partial, exact]: the macro-F1 offsets tuned on the reading asked for


def mean_of_orders(given, swapped):
    """The symmetric reading's log-probabilities: the mean of the two orders' probabilities."""
    return np.log((np.exp(given) + np.exp(swapped)) / 2)


def cross_validated(new_model, X, X_swapped, y, groups, extra_for, both_orders, shenzhen=None, symmetric=False):
    """Out-of-fold predictions over all CCKS pairs (X_swapped: the same pairs with the two addresses
    swapped), reported for the file's order, the swapped
    order, and the mean of both (what dedup scores). extra_for(k): the same-place pairs that
    fold k fits with; shenzhen: (X, X swapped or None, folds) of Shenzhen pairs to predict out
    of fold too, when extra_for leaves fold k's out. The offsets are tuned on the file's order,
    or with symmetric on the mean of both orders. Returns (OutOfFold, report)."""
    oof, oof_reversed = np.zeros((len(y), 3)), np.zeros((len(y), 3))
    oof_shenzhen = np.zeros((len(shenzhen[0]), 3)) if shenzhen is not None else None
    oof_shenzhen_swapped = np.zeros((len(shenzhen[0]), 3)) if shenzhen is not None and shenzhen[1] is not None else None
    for k in range(5):
        fit, held = groups != k, groups == k
        m = fit_head(new_model, X[fit], y[fit], extra_for(k), X_swapped[fit] if both_orders else None)
        oof[held] = np.log(m.predict_proba(X[held]) + 1e-9)
        oof_reversed[held] = np.log(m.predict_proba(X_swapped[held]) + 1e-9)
        if shenzhen is not None:
            held_s = shenzhen[2] == k
            oof_shenzhen[held_s] = np.log(m.predict_proba(shenzhen[0][held_s]) + 1e-9)
            if oof_shenzhen_swapped is not None:
                oof_shenzhen_swapped[held_s] = np.log(m.predict_proba(shenzhen[1][held_s]) + 1e-9)
    lines, offsets = [], None
    tuned_on = "mean of both orders" if symmetric else "file order"
    for name, scores in (("file order", oof), ("swapped", oof_reversed),
                         ("mean of both orders", mean_of_orders(oof, oof_reversed))):
        raw = data.macro_f1(y, scores.argmax(1))[0]
        tuned, a, b = tune_offsets(y, scores)
        if name == tuned_on:
            offsets = [0.0, a, b]
        folds = [data.macro_f1(y[groups == k], (scores[groups == k] + [0, a, b]).argmax(1))[0] for k in range(5)]
        others = "Shenzhen pairs of the other folds" if shenzhen is not None else "Shenzhen train"
        lines.append(f"  5-fold CV over all {len(y)} CCKS pairs, {name} (+ {others} and region pairs in every "
                     f"fold): macro-F1 {raw:.4f} at argmax, {tuned:.4f} with offsets ({a}, {b}); per fold "
                     f"{[round(f, 4) for f in folds]}\n")
    # One head has one set of offsets: each reading's figure with them.
    shipped = {name: data.macro_f1(y, (scores + offsets).argmax(1))[0]
               for name, scores in (("file order", oof), ("mean of both orders", mean_of_orders(oof, oof_reversed)))}
    lines.append(f"  with the head's offsets ({offsets[1]}, {offsets[2]}), tuned on the {tuned_on}: "
                 + ", ".join(f"{name} {f:.4f}" for name, f in shipped.items()) + "\n")
    return OutOfFold(oof, oof_reversed, oof_shenzhen, oof_shenzhen_swapped, offsets), "".join(lines)


def binary_f1(gold, match):
    tp = int(((match == 1) & (gold == 1)).sum())
    fp = int(((match == 1) & (gold == 0)).sum())
    fn = int(((match == 0) & (gold == 1)).sum())
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "default"))
    ap.add_argument("--parser", default="parser", help="parser folder, relative to --model")
    ap.add_argument("--geoalign", default=os.path.join(ROOT, "build", "release", "geoalign"))
    ap.add_argument("--iterations", type=int, default=600)
    ap.add_argument("--learning-rate", type=float, default=0.02)
    ap.add_argument("--leaves", type=int, default=31)
    ap.add_argument("--min-leaf", type=int, default=100, help="fewest pairs in a leaf")
    ap.add_argument("--l2", type=float, default=3.0, help="L2 regularization of leaf values")
    ap.add_argument("--shenzhen-weight", type=float, default=0.1,
                    help="weight of each Shenzhen pair against a class-balanced CCKS pair: more helps binary "
                         "same-place decisions, less the three CCKS classes")
    # The synthetic pairs the labelled data lacks: --NAME-pairs and --NAME-weight (each pair's
    # weight against a class-balanced CCKS pair).
    for name, count, weight, what in (
            ("region", 3000, 0.3, "pairs of one place name in two cities, as many of one address with and without "
                                  "its admin prefix, and as many of one address in two districts, each beside the "
                                  "address from its district on (tools/train/region_pairs.py)"),
            ("unit", 2000, 0.1, "pairs of one address with one building, unit, floor or room number changed "
                                "(partial_match), and beside each, of it with that unit written another way "
                                "(exact_match) (tools/train/unit_pairs.py)"),
            ("contrast", 1500, 0.3, "pairs of one address with its road, POI or city swapped, or one direction or "
                                    "numeral character of a name changed, and of a city against a place named after "
                                    "it or inside it: not_match, but another POI at one road number, partial_match "
                                    "(tools/train/contrast_pairs.py); up to this many of each kind")):
        ap.add_argument(f"--{name}-pairs", type=int, default=count, help=what)
        ap.add_argument(f"--{name}-weight", type=float, default=weight,
                        help=f"weight of each {name} pair against a class-balanced CCKS pair")
    ap.add_argument("--cv", action="store_true",
                    help="with --fit-on train, also report 5-fold cross-validated macro-F1 over all CCKS pairs (folds by query address)")
    ap.add_argument("--orders", choices=["given", "both", "canonical"],
                    help="learn each training pair as given (query, candidate); in both orders, for a head whose "
                         "two orders agree, as deduplication needs; or in canonical order (shorter address first) "
                         "with one more input, order_swapped, saying whether the pair was given the other way: "
                         "one encoder pass per pair, read symmetrically by default (the mean over that input) and "
                         "as given with --ordered (default: both for the rerank head, canonical for the match head)")
    ap.add_argument("--without-encoder", action="store_true",
                    help="train the rerank head (rerank_head.json) on the pair features alone")
    ap.add_argument("--encoder-inputs", choices=["yes", "no"], default="no",
                    help="whether a match head (match_head.json, or match_head_ordered.json with --orders given) "
                         "also reads the encoder's three class probabilities; no (the default): on the pair "
                         "features alone, so scoring runs no encoder and no fold's held-out pairs reach the head "
                         "through an encoder fine-tuned on them")
    ap.add_argument("--fit-on", choices=["all", "train"],
                    help="all: the head learns every labelled CCKS and Shenzhen pair, its offsets are tuned out of "
                         "fold, and only cross-validated figures are reported (implies --cv); train: the train "
                         "splits only, offsets tuned on the dev split, figures on the dev and test splits (default: "
                         "all for the match head, train for the rerank head, whose dedup links read better with "
                         "dev-tuned offsets and which search and dedup are measured on the splits with)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rerank = args.without_encoder
    fit_all = (args.fit_on or ("train" if rerank else "all")) == "all"
    args.cv = args.cv or fit_all  # its offsets and figures come from cross-validation
    start = time.time()
    # Whether the head reads the encoder's probabilities beside the pair features.
    with_encoder = not rerank and args.encoder_inputs == "yes"
    orders = args.orders or ("both" if rerank else "canonical")
    both_orders, canonical = orders == "both", orders == "canonical"
    if canonical and rerank:
        sys.exit("--orders canonical is for the match head; the rerank head reads both orders of a pair")
    head_file, title = (RERANK_HEAD if rerank else ORDERED_MATCH_HEAD if orders == "given" else MATCH_HEAD)
    parser_dir = os.path.abspath(os.path.join(args.model, args.parser))
    weights_path = os.path.abspath(os.path.join(args.model, WEIGHTS_FILE))
    # The match head's term weights: rewriting them under the rerank head would change the
    # match heads' inputs, so the rerank head keeps them.
    documents = documents_in(weights_path) if rerank else write_term_weights(args.geoalign, weights_path)

    with tempfile.TemporaryDirectory() as encoder_only:
        # The encoder's own probabilities: the folder without its head.
        for name in ENCODER_FILES:
            if os.path.exists(os.path.join(args.model, name)):
                shutil.copy(os.path.join(args.model, name), encoder_only)
        def table(path):
            return pair_table(args.geoalign, encoder_only, parser_dir, weights_path, path, with_encoder, canonical)

        def swapped_features(path, rows):
            """Features of every pair of path with its two addresses swapped, in file order;
            rows: how many the original table has."""
            with tempfile.NamedTemporaryFile("w", suffix=".tsv", encoding="utf-8") as f:
                for line in open(path, encoding="utf-8"):
                    a, b, label = line.rstrip("\n").split("\t")[:3]
                    f.write(f"{b}\t{a}\t{label}\n")
                f.flush()
                swapped = table(f.name)[0]
            # Rows pair up by position with the original table, whose splits, folds and labels they share.
            if len(swapped) != rows:
                sys.exit(f"{path}: features of the swapped pairs do not line up with its rows")
            return swapped

        def other_order(path, X_given):
            """The pairs of path swapped. In canonical order a pair and its swap have one set of
            features, so only order_swapped (the last column) changes."""
            if not canonical:
                return swapped_features(path, len(X_given))
            flipped = X_given.copy()
            flipped[:, -1] = 1 - flipped[:, -1]
            return flipped

        X, y, split, names, groups = table(data.CCKS)
        X_swapped = other_order(data.CCKS, X) if both_orders or canonical or args.cv else X[:0]
        Xs, ys, split_s, _, folds_s = table(data.SHENZHEN)
        Xs_swapped = other_order(data.SHENZHEN, Xs) if both_orders or canonical else Xs[:0]
        Xr, yr = np.zeros((0, X.shape[1]), dtype=X.dtype), np.zeros(0, dtype=y.dtype)
        Xr_swapped = Xr
        regional = region_pairs(args.geoalign, parser_dir, data.NER_TRAIN, args.region_pairs, args.seed) if args.region_pairs else []
        units = unit_pairs(args.geoalign, parser_dir, data.NER_TRAIN, args.unit_pairs, args.seed) if args.unit_pairs else []
        contrasts = (contrast_pairs(args.geoalign, parser_dir, data.NER_TRAIN, args.contrast_pairs, args.seed)
                     if args.contrast_pairs else [])
        # The region pairs say same place or not; the unit and contrast pairs, after them, carry a CCKS class.
        known_r = np.array([False] * len(regional) + [True] * (len(units) + len(contrasts)), dtype=bool)
        weight_r = np.array([args.region_weight] * len(regional) + [args.unit_weight] * len(units)
                            + [args.contrast_weight] * len(contrasts))
        n_units, n_contrasts = len(units), len(contrasts)
        regional = regional + units + contrasts
        if regional:
            with tempfile.NamedTemporaryFile("w", suffix=".tsv", encoding="utf-8") as f:
                f.writelines(f"{a}\t{b}\t{label}\n" for a, b, label in regional)
                f.flush()
                Xr, yr = table(f.name)[:2]
                if len(Xr) != len(known_r):
                    sys.exit("geoalign features left out some of the region and unit pairs")
                if both_orders:
                    Xr_swapped = swapped_features(f.name, len(Xr))
    train, dev, test = split == "train", split == "dev", split == "test"

    def new_model():
        return HistGradientBoostingClassifier(max_iter=args.iterations, learning_rate=args.learning_rate,
                                              max_leaf_nodes=args.leaves, min_samples_leaf=args.min_leaf,
                                              l2_regularization=args.l2, early_stopping=False, random_state=args.seed)

    sz_train = split_s == "train"

    def extra_with(sz):
        """The pairs a fit adds: the Shenzhen pairs where sz holds, and the region and unit pairs."""
        def parts(Xs_, Xr_):
            return [(Xs_[sz], ys[sz], np.full(int(sz.sum()), args.shenzhen_weight), np.zeros(int(sz.sum()), dtype=bool)),
                    (Xr_, yr, weight_r, known_r)]
        return (SamePlacePairs.in_both_orders(parts(Xs, Xr), parts(Xs_swapped, Xr_swapped)) if both_orders
                else SamePlacePairs.join(parts(Xs, Xr)))
    fitted, sz_fitted = (np.ones(len(y), dtype=bool), np.ones(len(ys), dtype=bool)) if fit_all else (train, sz_train)
    clf = fit_head(new_model, X[fitted], y[fitted], extra_with(sz_fitted), X_swapped[fitted] if both_orders else None)

    cv_report = ""
    if args.cv:
        # With --fit-on all the Shenzhen pairs are folded like the CCKS ones, so that they too
        # get figures from heads that never saw them.
        extra_for = (lambda k: extra_with(folds_s != k)) if fit_all else (lambda k: extra_with(sz_fitted))
        oof, cv_report = cross_validated(new_model, X, X_swapped, y, groups, extra_for, both_orders,
                                         (Xs, Xs_swapped if canonical else None, folds_s) if fit_all else None,
                                         symmetric=canonical)
    if fit_all:
        offsets = oof.offsets
        where_tuned = "out of fold over all CCKS pairs" + (", symmetric reading" if canonical else "")
    else:
        _, a, b = tune_offsets(y[dev], np.log(clf.predict_proba(X[dev]) + 1e-9))
        offsets, where_tuned = [0.0, a, b], "on dev"

    bias, trees = export_trees(clf, offsets)
    head = {"format": "geoalign-match-head-1", "parser": args.parser, "term_weights": WEIGHTS_FILE, "features": names,
            "classes": data.LABELS, "bias": bias, "trees": trees}
    if canonical:
        head["order"] = "canonical"
    if args.cv:
        # dedup's default threshold per merge rule; without --cv the head has none and dedup uses 0.5.
        head["link_thresholds"], report = link_thresholds(y, oof.given, oof.swapped, np.array(offsets))
        cv_report += report
        if fit_all:
            sz_scores = oof.shenzhen if oof.shenzhen_swapped is None else mean_of_orders(oof.shenzhen,
                                                                                         oof.shenzhen_swapped)
            sz_oof_f1 = binary_f1(ys, ((sz_scores + offsets).argmax(1) > 0).astype(int))
            sz_reading = ", mean of both orders" if oof.shenzhen_swapped is not None else ""
            cv_report += (f"  shenzhen out of fold{sz_reading}: binary F1 {sz_oof_f1:.4f} ({len(ys)} pairs, partial or "
                          f"exact = match)\n")
    with open(os.path.join(args.model, head_file), "w", encoding="utf-8") as f:
        json.dump(head, f, separators=(",", ":"))

    def predict(Xm):
        return (np.log(clf.predict_proba(Xm) + 1e-9) + offsets).argmax(1)


    # geoalign itself, with the exported head, against scikit-learn on the test split.
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", encoding="utf-8") as f:
        rows = [line for line, s in zip(open(data.CCKS, encoding="utf-8"), split) if s == "test"]
        f.writelines(rows)
        f.flush()
        # fp32, as the encoder features were computed; auto may pick bf16 or int8, whose
        # encoder probabilities differ in the last digits.
        # --ordered: the trees read each pair as given, as scikit-learn does here; a head in
        # canonical order is checked in its own, symmetric, reading (--ordered would pick the
        # folder's ordered head).
        which = "rerank" if rerank else "match"
        reading = [] if canonical else ["--ordered"]
        out = run([args.geoalign, "score", "--precision", "fp32", "--head", which, *reading, "--model", args.model,
                   f.name]).splitlines()[1:]
    ours = np.array([[float(v) for v in line.split("\t")[4:7]] for line in out])

    def shipped(Xm):
        p = clf.predict_proba(Xm) * np.exp(offsets)
        return p / p.sum(1, keepdims=True)
    theirs = (shipped(X[test]) + shipped(X_swapped[test])) / 2 if canonical else shipped(X[test])
    # A pair of one text is exact_match with P = 1 by the engine's rule, not the trees'.
    by_trees = np.array([line.split("\t")[0] != line.split("\t")[1] for line in rows])
    max_diff = float(np.abs(ours - theirs)[by_trees].max())

    which_pairs = "all" if fit_all else "train"
    report = (f"{title}: {len(trees)} trees on {len(names)} features, trained on {int(fitted.sum())} CCKS {which_pairs} "
              f"pairs {'in both orders ' if both_orders else 'in canonical order ' if canonical else ''}"
              f"+ {int(sz_fitted.sum())} Shenzhen {which_pairs} pairs (weight "
              f"{args.shenzhen_weight}) + {len(yr) - n_units - n_contrasts} region pairs (weight {args.region_weight}) + "
              f"{n_units} unit pairs (weight {args.unit_weight}) + {n_contrasts} contrast pairs (weight "
              f"{args.contrast_weight}) in "
              f"{time.time() - start:.0f} s, term weights over {documents} addresses, seed {args.seed}; offsets "
              f"{offsets[1:]} (partial, exact) tuned {where_tuned}\n")
    if not fit_all:
        dev_f1, dev_classes = data.macro_f1(y[dev], predict(X[dev]))
        test_f1, test_classes = data.macro_f1(y[test], predict(X[test]))
        sz_test = split_s == "test"
        sz_f1 = binary_f1(ys[sz_test], (predict(Xs[sz_test]) > 0).astype(int))
        report += (f"  ccks dev: macro-F1 {dev_f1:.4f} per class {[round(c, 4) for c in dev_classes]} ({int(dev.sum())} pairs)\n"
                   f"  ccks test: macro-F1 {test_f1:.4f} per class {[round(c, 4) for c in test_classes]} ({int(test.sum())} pairs)\n"
                   f"  shenzhen test: binary F1 {sz_f1:.4f} ({int(sz_test.sum())} pairs, partial or exact = match)\n")
    report += f"  geoalign vs scikit-learn probabilities on ccks test: max |diff| {max_diff:.2e}\n"
    report += cv_report
    print(report, end="")
    # Other sections (the encoder's, the other heads') stay; an earlier report of this
    # head, its first line and the indented lines under it, is replaced in place.
    training_txt = os.path.join(args.model, "TRAINING.txt")
    before, after, in_head = [], [], False
    if os.path.exists(training_txt):
        with open(training_txt, encoding="utf-8") as f:
            for line in f:
                if line.startswith(title + ":"):
                    in_head = True
                elif in_head and not line.startswith(" "):
                    in_head = False
                    after.append(line)
                elif not in_head:
                    (after if after else before).append(line)
    with open(training_txt, "w", encoding="utf-8") as f:
        f.write("".join(before) + report + "".join(after))
    if max_diff > 1e-4:
        sys.exit(f"geoalign's head disagrees with scikit-learn (max diff {max_diff})")


if __name__ == "__main__":
    main()
