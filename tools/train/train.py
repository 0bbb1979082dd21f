#!/usr/bin/python3
"""Trains geoalign's default model and exports it to models/default (HF layout).

    /usr/bin/python3 tools/train/train.py [--mlm-minutes 40] [--finetune-minutes 30] [--out models/default]

Steps (fixed seeds; time-bounded phases, so the figures depend on the machine):
  1. a char-level vocabulary (BertTokenizer-compatible, with ## digits and letters);
  2. masked-LM pretraining on unlabelled addresses: the gazetteer rendered into
     synthetic addresses, the NER corpus, and the train split of the real pairs;
  3. fine-tuning on the real CCKS train split plus synthetic pairs, class-weighted;
  4. per-class logit offsets tuned on the dev split for macro-F1, folded into the
     classifier bias so plain argmax (in geoalign and in Hugging Face) applies them;
  5. export, and a report of dev and test figures.
With --init DIR it continues from an earlier model (its vocabulary and weights), so
training time can accumulate over several runs.
Needs Debian's python3-torch with OpenBLAS behind it (tools/train/setup.sh; Debian's
default reference BLAS runs PyTorch at ~3 GFLOP/s) and ../shared/data; nothing from
../shared is written out except the trained weights.
"""
import argparse
import collections
import json
import os
import random
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "reference"))
import address_normalizer  # noqa: E402
import corpus as training_corpus  # noqa: E402
import data  # noqa: E402
import safetensors_io  # noqa: E402
from bert_model import Bert, pad_batch  # noqa: E402
from bert_tokenizer import BertTokenizer  # noqa: E402
from gazetteer import Gazetteer  # noqa: E402

NORMALIZE = {"fullwidth_to_halfwidth": True, "clean_whitespace": True, "traditional_to_simplified": False,
             "fold_variants": True, "drop_annotations": True, "decode_markup": True}
MAX_LENGTH = 96


def normalize(text):
    """NORMALIZE as the C++ normalizer applies it (src/text/normalize.h)."""
    return address_normalizer.normalize(text, NORMALIZE)


def read_vocab(path):
    """One token per line, as geoalign reads vocab.txt (a last line may lack its newline)."""
    with open(path, encoding="utf-8", newline="") as f:
        tokens = [t[:-1] if t.endswith("\r") else t for t in f.read().split("\n")]
    return tokens[:-1] if tokens and tokens[-1] == "" else tokens


def build_vocab(texts, min_count=2, max_size=8000):
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokens += [chr(c) for c in range(33, 127) if not chr(c).isupper()]
    tokens += ["##" + c for c in "0123456789abcdefghijklmnopqrstuvwxyz"]
    counts = collections.Counter()
    for t in texts:
        counts.update(c for c in normalize(t).lower() if not c.isspace())
    seen = set(tokens)
    for c, n in counts.most_common():
        if n < min_count or len(tokens) >= max_size:
            break
        if c not in seen:
            seen.add(c)
            tokens.append(c)
    return tokens


USE_BF16 = False


def autocast():
    """bf16 autocast pays only on CPUs with native bf16 (AMX, AVX512-BF16); elsewhere
    PyTorch falls back to scalar code that is slower than fp32."""
    return torch.autocast("cpu", dtype=torch.bfloat16, enabled=USE_BF16)


def corrupt_chosen(ids, chosen, vocab_size, rng_gen, special_max=4):
    """BERT's corruption of the chosen tokens: 80% [MASK], 10% a random token, 10% kept.
    Returns the corrupted ids and the labels (-100 where nothing is to be predicted)."""
    labels = ids.clone()
    labels[~chosen] = -100
    ids = ids.clone()
    replace = chosen & torch.bernoulli(torch.full(ids.shape, 0.8), generator=rng_gen).bool()
    ids[replace] = 4  # [MASK]
    rand = chosen & ~replace & torch.bernoulli(torch.full(ids.shape, 0.5), generator=rng_gen).bool()
    ids[rand] = torch.randint(special_max + 1, vocab_size, ids.shape, generator=rng_gen)[rand]
    return ids, labels


def mask_tokens(ids, mask, vocab_size, rng_gen, special_max=4):
    prob = torch.full(ids.shape, 0.15)
    chosen = (torch.bernoulli(prob, generator=rng_gen).bool()) & (mask > 0) & (ids > special_max)
    return corrupt_chosen(ids, chosen, vocab_size, rng_gen, special_max)


def optimizer_step(model, opt, loss):
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()


def predict(model, encoded, batch=256):
    model.eval()
    out = []
    with torch.inference_mode(), autocast():
        for i in range(0, len(encoded), batch):
            ids, types, mask = pad_batch(encoded[i:i + batch])
            out.append(model.classify(ids, types, mask).float())
    model.train()
    return torch.cat(out)


def tune_offsets(logits, gold):
    """Offsets for partial and exact logits that maximize macro-F1 on these rows."""
    best = (data.macro_f1(gold, logits.argmax(1).tolist())[0], 0.0, 0.0)
    grid = [x / 4 for x in range(-8, 17)]
    for o1 in grid:
        for o2 in grid:
            pred = (logits + torch.tensor([0.0, o1, o2])).argmax(1).tolist()
            f = data.macro_f1(gold, pred)[0]
            if f > best[0]:
                best = (f, o1, o2)
    return best


def write_model_folder(model, tokens, out):
    """The Hugging Face folder geoalign loads: vocabulary, config, tokenizer config and weights."""
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(tokens) + "\n")
    config = {"architectures": ["BertForSequenceClassification"], "model_type": "bert", "hidden_act": "gelu",
              "layer_norm_eps": 1e-12, **model.config,
              "id2label": {str(i): l for i, l in enumerate(data.LABELS)},
              "label2id": {l: i for i, l in enumerate(data.LABELS)},
              "geoalign": {"normalize": NORMALIZE, "max_length": MAX_LENGTH}}
    with open(os.path.join(out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, ensure_ascii=False, indent=2)
    with open(os.path.join(out, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump({"tokenizer_class": "BertTokenizer", "do_lower_case": True, "tokenize_chinese_chars": True,
                   "model_max_length": MAX_LENGTH}, f, indent=2)
    safetensors_io.save(model.hf_state_dict(), os.path.join(out, "model.safetensors"), {"format": "pt"})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "models", "default"))
    ap.add_argument("--mlm-minutes", type=float, default=40)
    ap.add_argument("--finetune-minutes", type=float, default=30)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--synthetic-addresses", type=int, default=150000)
    ap.add_argument("--synthetic-pairs", type=int, default=30000)
    ap.add_argument("--init", help="continue from this model folder (its vocabulary and weights)")
    ap.add_argument("--bf16", action="store_true", help="bf16 autocast (only on CPUs with AMX or AVX512-BF16)")
    args = ap.parse_args()
    global USE_BF16
    USE_BF16 = args.bf16
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    t0 = time.time()

    gaz = Gazetteer()
    corpus = training_corpus.load(gaz, args.seed, args.synthetic_addresses, args.synthetic_pairs)
    train, sz_train, ner = corpus.ccks_train, corpus.shenzhen_train, corpus.ner
    syn_addr, syn_pairs = corpus.synthetic_addresses, corpus.synthetic_pairs
    dev = data.load_pairs(data.CCKS, "dev")
    test = data.load_pairs(data.CCKS, "test")
    sz_test = data.load_pairs(data.SHENZHEN, "test")
    real_addresses = corpus.real_addresses()
    print(f"data: ccks train/dev/test {len(train)}/{len(dev)}/{len(test)}, shenzhen train/test "
          f"{len(sz_train)}/{len(sz_test)}, ner {len(ner)}, synthetic {len(syn_addr)} addresses "
          f"{len(syn_pairs)} pairs", flush=True)

    if args.init:
        tokens = read_vocab(os.path.join(args.init, "vocab.txt"))
    else:
        tokens = build_vocab(gaz.names() + ner + real_addresses + syn_addr)
    vocab = {t: i for i, t in enumerate(tokens)}
    tok = BertTokenizer(vocab)
    enc_pair = lambda a, b: tok.encode_pair(normalize(a), normalize(b), MAX_LENGTH)  # noqa: E731
    enc_one = lambda a: tok.encode_single(normalize(a), MAX_LENGTH)  # noqa: E731
    print(f"vocab {len(tokens)}", flush=True)

    if args.init:
        with open(os.path.join(args.init, "config.json"), encoding="utf-8") as f:
            c = json.load(f)
        args.hidden, args.layers = c["hidden_size"], c["num_hidden_layers"]
    model = Bert(len(tokens), h=args.hidden, layers=args.layers, heads=args.hidden // 64, inner=4 * args.hidden,
                 max_pos=128)
    if args.init:
        model.load_hf(safetensors_io.load(os.path.join(args.init, "model.safetensors")))
        print(f"continuing from {args.init}", flush=True)
    # Phase 1: masked LM on single addresses and on real/synthetic pairs.
    mlm_items = [enc_one(a) for a in corpus.mlm_singles()] + [enc_pair(a, b) for a, b in corpus.mlm_pairs()]
    print(f"mlm items {len(mlm_items)} ({time.time() - t0:.0f}s)", flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.01)
    deadline = time.time() + args.mlm_minutes * 60
    step = 0
    while time.time() < deadline:
        batch = [mlm_items[rng.randrange(len(mlm_items))] for _ in range(128)]
        ids, types, mask = pad_batch(batch)
        ids, labels = mask_tokens(ids, mask, len(tokens), gen)
        lr = 5e-4 * min(1.0, (step + 1) / 500)
        for g in opt.param_groups:
            g["lr"] = lr
        with autocast():
            hidden = model.encode(ids, types, mask)
            sel = labels != -100
            loss = F.cross_entropy(model.mlm_logits(hidden[sel]).float(), labels[sel])
        optimizer_step(model, opt, loss)
        step += 1
        if step % 200 == 0:
            print(f"mlm step {step} loss {loss.item():.3f} ({time.time() - t0:.0f}s)", flush=True)

    # Phase 2: fine-tune on real train pairs plus synthetic pairs.
    real = [(enc_pair(a, b), y) for a, b, y in train]
    synth = [(enc_pair(a, b), y) for a, b, y in syn_pairs]
    dev_enc, dev_gold = [enc_pair(a, b) for a, b, _ in dev], [y for _, _, y in dev]
    counts = collections.Counter(y for _, y in real)
    weights = torch.tensor([(len(real) / (3 * counts[c])) ** 0.5 for c in range(3)])
    print(f"class weights {weights.tolist()}", flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)
    deadline = time.time() + args.finetune_minutes * 60
    best = (-1.0, None)
    step = 0
    while time.time() < deadline:
        batch = [real[rng.randrange(len(real))] if rng.random() < 0.75 else synth[rng.randrange(len(synth))]
                 for _ in range(64)]
        ids, types, mask = pad_batch([e for e, _ in batch])
        gold = torch.tensor([y for _, y in batch])
        with autocast():
            loss = F.cross_entropy(model.classify(ids, types, mask).float(), gold, weight=weights)
        optimizer_step(model, opt, loss)
        step += 1
        if step % 150 == 0:
            logits = predict(model, dev_enc)
            f1, o1, o2 = tune_offsets(logits, dev_gold)
            print(f"finetune step {step} loss {loss.item():.3f} dev macro-F1 {f1:.4f} (offsets {o1}, {o2}) "
                  f"({time.time() - t0:.0f}s)", flush=True)
            if f1 > best[0]:
                best = (f1, {k: v.clone() for k, v in model.state_dict().items()})
    if best[1] is not None:
        model.load_state_dict(best[1])

    # Phase 3: fold the dev-tuned offsets into the classifier bias, export, report.
    f1, o1, o2 = tune_offsets(predict(model, dev_enc), dev_gold)
    with torch.no_grad():
        model.classifier.bias += torch.tensor([0.0, o1, o2])
    write_model_folder(model, tokens, args.out)

    def report(name, rows, binary=False):
        pred = predict(model, [enc_pair(a, b) for a, b, _ in rows]).argmax(1).tolist()
        gold = [y for _, _, y in rows]
        if binary:
            pred = [1 if p > 0 else 0 for p in pred]
            tp = sum(1 for g, p in zip(gold, pred) if g == 1 and p == 1)
            prec = tp / max(1, sum(pred))
            rec = tp / max(1, sum(gold))
            return f"{name}: binary F1 {2 * prec * rec / max(1e-9, prec + rec):.4f} ({len(rows)} pairs)"
        f, per = data.macro_f1(gold, pred)
        return f"{name}: macro-F1 {f:.4f} per class {[round(x, 4) for x in per]} ({len(rows)} pairs)"

    lines = [report("ccks dev", dev), report("ccks test", test), report("shenzhen test", sz_test, binary=True),
             f"offsets folded into the classifier bias: partial {o1}, exact {o2}",
             f"trained in {(time.time() - t0) / 60:.1f} min: mlm {args.mlm_minutes} min, fine-tune "
             f"{args.finetune_minutes} min, {args.threads} threads, seed {args.seed}"]
    print("\n".join(lines), flush=True)
    with open(os.path.join(args.out, "TRAINING.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
