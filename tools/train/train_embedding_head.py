#!/usr/bin/python3
"""Trains the embedding head of a model folder and shows, on the dev split, what it buys.

    /usr/bin/python3 tools/train/train_embedding_head.py [--model models/default] [--steps 15000]

The head shares the folder's encoder: the address is encoded once (as for scoring), its
token states are pooled, and a trained linear map (then L2 normalization) turns the pooled
vector into the embedding. It is written in the sentence-transformers layout, which
geoalign reads (modules.json, 1_Pooling/, 2_Dense/, 3_Normalize/), so any
sentence-transformers BERT folder loads the same way.

Training (fixed seed, contrastive, InfoNCE with in-batch and hard negatives):
  - positives: CCKS train pairs labelled exact_match, Shenzhen train pairs labelled same
    place, and synthetic exact pairs (tools/train/synth.py);
  - hard negatives: the not_match candidates listed for the same CCKS query, and the
    synthetic near misses (same road with another number, another road in the same town).
The encoder stays frozen, so the pooled vectors are computed once and the head trains in
about a minute per pooling. The report compares, by retrieval on held-out splits (every query against every
address of its split, cosine similarity), the raw pooled vectors, a char-bigram TF-IDF
baseline and the trained head, for [CLS], mean and both pooled together; the folder gets
the best pooling on dev. Needs ../shared/data; nothing from it is written out.
"""
import argparse
import collections
import json
import math
import os
import random
import sys
import time

import numpy as np
import scipy.sparse
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "reference"))
import data  # noqa: E402
import safetensors_io  # noqa: E402
from bert_model import Bert  # noqa: E402
from bert_tokenizer import BertTokenizer  # noqa: E402
from synth import synthetic_pairs  # noqa: E402
from train import MAX_LENGTH, normalize, pad_batch  # noqa: E402

POOLINGS = {"cls": ("cls",), "mean": ("mean",), "cls+mean": ("cls", "mean")}


def load_encoder(folder):
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        c = json.load(f)
    with open(os.path.join(folder, "vocab.txt"), encoding="utf-8") as f:
        tokens = f.read().split("\n")[:-1]
    model = Bert(len(tokens), h=c["hidden_size"], layers=c["num_hidden_layers"], heads=c["num_attention_heads"],
                 inner=c["intermediate_size"], max_pos=c["max_position_embeddings"])
    model.load_hf(safetensors_io.load(os.path.join(folder, "model.safetensors")))
    model.eval()
    return model, BertTokenizer({t: i for i, t in enumerate(tokens)}), c.get("geoalign", {}).get("max_length", MAX_LENGTH)


def pooled_vectors(model, tok, max_length, addresses, batch=256):
    """[CLS] and mean (over all tokens, [CLS] and [SEP] included) of the final token states."""
    cls, mean = [], []
    order = sorted(range(len(addresses)), key=lambda i: len(addresses[i]))
    with torch.inference_mode():
        for i in range(0, len(order), batch):
            chunk = [tok.encode_single(normalize(addresses[j]), max_length) for j in order[i:i + batch]]
            ids, types, mask = pad_batch(chunk)
            h = model.encode(ids, types, mask)
            cls.append(h[:, 0])
            mean.append((h * mask[:, :, None]).sum(1) / mask.sum(1, keepdim=True))
    inverse = torch.empty(len(order), dtype=torch.long)
    inverse[torch.tensor(order)] = torch.arange(len(order))
    return {"cls": torch.cat(cls)[inverse], "mean": torch.cat(mean)[inverse]}


def features(vectors, pooling, index):
    return torch.cat([vectors[p][index] for p in POOLINGS[pooling]], dim=1)


def retrieval_task(rows, positive_labels):
    """Queries (first column) with at least one positive candidate, ranked against every
    distinct address of the rows except the query itself."""
    corpus = sorted({a for a, _, _ in rows} | {b for _, b, _ in rows})
    positives = collections.defaultdict(set)
    for a, b, y in rows:
        if y in positive_labels and a != b:
            positives[a].add(b)
    queries = sorted(positives)
    return corpus, queries, [positives[q] for q in queries]


def retrieval_metrics(sims, corpus, queries, positives):
    """Recall@1, recall@10 (a positive ranks that high) and mean reciprocal rank, from the
    cosine similarities of every query to every corpus address."""
    position = {a: i for i, a in enumerate(corpus)}
    for i, query in enumerate(queries):
        sims[i, position[query]] = -math.inf
    r1 = r10 = rr = 0.0
    for i, pos in enumerate(positives):
        pos_idx = torch.tensor([position[p] for p in pos])
        best = sims[i, pos_idx].max()
        rank = int((sims[i] > best).sum()) + 1
        r1 += rank == 1
        r10 += rank <= 10
        rr += 1.0 / rank
    n = len(queries)
    return {"R@1": r1 / n, "R@10": r10 / n, "MRR": rr / n}


def cosine(a, b):
    return F.normalize(a, dim=1) @ F.normalize(b, dim=1).t()


def tfidf_vectors(texts, vocabulary=None):
    """Char unigrams and bigrams, sublinear tf, smooth idf, L2-normalized (sparse): the
    classic string baseline."""
    grams = [collections.Counter(list(t) + [t[i:i + 2] for i in range(len(t) - 1)]) for t in map(normalize, texts)]
    if vocabulary is None:
        df = collections.Counter(g for c in grams for g in c)
        vocabulary = {g: (i, math.log((1 + len(texts)) / (1 + n)) + 1) for i, (g, n) in enumerate(df.items())}
    rows, cols, vals = [], [], []
    for r, c in enumerate(grams):
        for g, n in c.items():
            if g in vocabulary:
                col, idf = vocabulary[g]
                rows.append(r)
                cols.append(col)
                vals.append((1 + math.log(n)) * idf)
    m = scipy.sparse.csr_matrix((vals, (rows, cols)), shape=(len(texts), len(vocabulary)))
    norms = np.sqrt(np.asarray(m.multiply(m).sum(1))).ravel()
    return scipy.sparse.diags(1 / np.maximum(norms, 1e-12)) @ m, vocabulary


def training_triples(rng, train_rows, sz_train, syn_rows):
    """(anchor, positive, hard negative or None) over the training sources."""
    negatives = collections.defaultdict(list)
    for a, b, y in train_rows:
        if y == 0:
            negatives[a].append(b)
    triples = []
    for a, b, y in train_rows:
        if y == 2 and a != b:
            triples.append((a, b, rng.choice(negatives[a]) if negatives[a] else None))
    triples += [(a, b, None) for a, b, y in sz_train if y == 1 and a != b]
    near = collections.defaultdict(list)
    for a, b, y in syn_rows:
        if y == 0:
            near[a].append(b)
    triples += [(a, b, near[a][0] if near[a] else None) for a, b, y in syn_rows if y == 2 and a != b]
    return triples


def train_head(rng, x, triples, index, steps, temperature, batch=256):
    """A linear map from the pooled vector, started at the identity, trained with InfoNCE:
    each anchor against every positive and hard negative in the batch."""
    dim = x.shape[1]
    head = torch.nn.Linear(dim, dim)
    with torch.no_grad():
        head.weight.copy_(torch.eye(dim))
        head.bias.zero_()
    opt = torch.optim.AdamW(head.parameters(), lr=1e-3, weight_decay=0.01)
    for _ in range(steps):
        chosen = [triples[rng.randrange(len(triples))] for _ in range(batch)]
        anchors = F.normalize(head(x[[index[a] for a, _, _ in chosen]]), dim=1)
        candidates = [p for _, p, _ in chosen] + [n for _, _, n in chosen if n is not None]
        cand = F.normalize(head(x[[index[c] for c in candidates]]), dim=1)
        logits = anchors @ cand.t() / temperature
        loss = F.cross_entropy(logits, torch.arange(batch))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return head


def finetune_encoder(model, tok, max_length, rng, triples, minutes, temperature, batch=128):
    """The alternative to a shared encoder: the whole encoder trained for embeddings (mean
    pooling and a linear head), which a folder would have to ship as a second encoder."""
    dim = model.config["hidden_size"]
    head = torch.nn.Linear(dim, dim)
    with torch.no_grad():
        head.weight.copy_(torch.eye(dim))
        head.bias.zero_()
    params = list(model.parameters()) + list(head.parameters())
    opt = torch.optim.AdamW(params, lr=5e-5, weight_decay=0.01)
    model.train()

    def embed(texts):
        ids, types, mask = pad_batch([tok.encode_single(normalize(t), max_length) for t in texts])
        h = model.encode(ids, types, mask)
        return F.normalize(head((h * mask[:, :, None]).sum(1) / mask.sum(1, keepdim=True)), dim=1)

    deadline = time.time() + minutes * 60
    step = 0
    while time.time() < deadline:
        chosen = [triples[rng.randrange(len(triples))] for _ in range(batch)]
        anchors = embed([a for a, _, _ in chosen])
        cand = embed([p for _, p, _ in chosen] + [n for _, _, n in chosen if n is not None])
        loss = F.cross_entropy(anchors @ cand.t() / temperature, torch.arange(batch))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        step += 1
    model.eval()
    return head, step


def write_sentence_transformers_modules(folder, pooling, head):
    """modules.json, 1_Pooling, 2_Dense and 3_Normalize, as sentence-transformers saves them."""
    dim = head.weight.shape[1]
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
               {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"},
               {"idx": 3, "name": "3", "path": "3_Normalize", "type": "sentence_transformers.models.Normalize"}]
    with open(os.path.join(folder, "modules.json"), "w", encoding="utf-8") as f:
        json.dump(modules, f, indent=2)
    os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
    hidden = dim // len(POOLINGS[pooling])
    with open(os.path.join(folder, "1_Pooling", "config.json"), "w", encoding="utf-8") as f:
        json.dump({"word_embedding_dimension": hidden, "pooling_mode_cls_token": "cls" in POOLINGS[pooling],
                   "pooling_mode_mean_tokens": "mean" in POOLINGS[pooling], "pooling_mode_max_tokens": False,
                   "pooling_mode_mean_sqrt_len_tokens": False}, f, indent=2)
    os.makedirs(os.path.join(folder, "2_Dense"), exist_ok=True)
    with open(os.path.join(folder, "2_Dense", "config.json"), "w", encoding="utf-8") as f:
        json.dump({"in_features": dim, "out_features": head.weight.shape[0], "bias": True,
                   "activation_function": "torch.nn.modules.linear.Identity"}, f, indent=2)
    safetensors_io.save({"linear.weight": head.weight.detach().float().contiguous().clone(),
                         "linear.bias": head.bias.detach().float().contiguous().clone()},
                        os.path.join(folder, "2_Dense", "model.safetensors"), {"format": "pt"})
    os.makedirs(os.path.join(folder, "3_Normalize"), exist_ok=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "default"))
    ap.add_argument("--steps", type=int, default=15000, help="training steps (batches of 256) per pooling")
    ap.add_argument("--temperature", type=float, default=0.1)
    ap.add_argument("--compare-finetuned", type=float, default=0, metavar="MINUTES",
                    help="also fine-tune a copy of the whole encoder for embeddings this long and report it "
                         "(for the shared-or-separate decision; not written)")
    ap.add_argument("--synthetic-pairs", type=int, default=30000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=20261130)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    start = time.time()

    train, dev, test = (data.load_pairs(data.CCKS, s) for s in ("train", "dev", "test"))
    sz_train, sz_test = data.load_pairs(data.SHENZHEN, "train"), data.load_pairs(data.SHENZHEN, "test")
    syn = synthetic_pairs(args.synthetic_pairs, seed=args.seed + 2)
    triples = training_triples(random.Random(args.seed), train, sz_train, syn)
    tasks = {"ccks dev exact": retrieval_task(dev, {2}), "ccks dev exact+partial": retrieval_task(dev, {1, 2}),
             "ccks test exact": retrieval_task(test, {2}), "shenzhen test": retrieval_task(sz_test, {1})}
    addresses = sorted({t for tr in triples for t in tr if t is not None} |
                       {a for corpus, _, _ in tasks.values() for a in corpus})
    index = {a: i for i, a in enumerate(addresses)}
    model, tok, max_length = load_encoder(args.model)
    vectors = pooled_vectors(model, tok, max_length, addresses)
    print(f"{len(triples)} training triples, {len(addresses)} addresses encoded ({time.time() - start:.0f} s)",
          flush=True)

    def evaluate(similarity):
        return {name: retrieval_metrics(similarity(queries, corpus), corpus, queries, positives)
                for name, (corpus, queries, positives) in tasks.items()}

    results = {}
    _, vocabulary = tfidf_vectors([a for tr in triples for a in tr if a is not None])
    results["char-bigram tf-idf"] = evaluate(lambda q, c: torch.from_numpy(
        (tfidf_vectors(q, vocabulary)[0] @ tfidf_vectors(c, vocabulary)[0].T).toarray()).float())
    heads = {}

    def rows_of(texts):
        return [index[t] for t in texts]

    for pooling in POOLINGS:
        x = features(vectors, pooling, slice(None))
        results[f"{pooling}, raw"] = evaluate(lambda q, c: cosine(x[rows_of(q)], x[rows_of(c)]))
        head = train_head(random.Random(args.seed), x, triples, index, args.steps, args.temperature)
        heads[pooling] = head
        with torch.no_grad():
            results[f"{pooling}, trained head"] = evaluate(
                lambda q, c: cosine(head(x[rows_of(q)]), head(x[rows_of(c)])))

    if args.compare_finetuned > 0:
        tuned = load_encoder(args.model)[0]
        head, steps = finetune_encoder(tuned, tok, max_length, random.Random(args.seed), triples,
                                       args.compare_finetuned, args.temperature)
        with torch.no_grad():
            v = head(pooled_vectors(tuned, tok, max_length, addresses)["mean"])
        results[f"mean, separate fine-tuned encoder + head ({steps} steps, {args.compare_finetuned} min)"] = evaluate(
            lambda q, c: cosine(v[rows_of(q)], v[rows_of(c)]))

    names = list(next(iter(results.values())).keys())
    lines = [f"embedding head: retrieval on held-out splits (R@1 / R@10 / MRR), {len(triples)} training triples"]
    lines.append("  " + " | ".join(["method"] + names))
    for method, by_task in results.items():
        cells = [f"{m['R@1']:.3f} / {m['R@10']:.3f} / {m['MRR']:.3f}" for m in by_task.values()]
        lines.append("  " + " | ".join([method] + cells))
    trained = {p: results[k]["ccks dev exact"]["MRR"] for k in results for p in POOLINGS
               if k.startswith(f"{p}, trained")}
    best = max(trained, key=trained.get)
    write_sentence_transformers_modules(args.model, best, heads[best])
    lines.append(f"  written: {best} pooling + trained linear head + L2 normalization (best dev MRR {trained[best]:.3f}); "
                 f"{args.steps} steps per pooling, temperature {args.temperature}, seed {args.seed}, "
                 f"{time.time() - start:.0f} s in all")
    report = "\n".join(lines) + "\n"
    print(report, end="")
    training_txt = os.path.join(args.model, "TRAINING.txt")
    kept = []
    if os.path.exists(training_txt):
        with open(training_txt, encoding="utf-8") as f:
            skipping = False
            for line in f:
                if line.startswith("embedding head:"):
                    skipping = True
                elif not line.startswith("  "):
                    skipping = False
                if not skipping:
                    kept.append(line)
    with open(training_txt, "w", encoding="utf-8") as f:
        f.write("".join(kept) + report)


if __name__ == "__main__":
    main()
