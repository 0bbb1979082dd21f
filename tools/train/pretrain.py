#!/usr/bin/python3
"""Masked-LM pretraining of the encoder as a resumable background job.

    OMP_WAIT_POLICY=passive nice /usr/bin/python3 tools/train/pretrain.py --run DIR \\
        --init models/default --minutes 120 --bf16
    ... later, on this or another machine with DIR copied over:
    /usr/bin/python3 tools/train/pretrain.py --run DIR --resume --minutes 120 --bf16

The run folder DIR holds everything needed to go on:
  checkpoint.pt   model with its masked-LM head, optimizer, step, RNG states (written
                  every --checkpoint-minutes, at the end, and on SIGTERM or Ctrl-C;
                  each write replaces the last one atomically, so a kill loses at most
                  --checkpoint-minutes);
  log.tsv         one line per checkpoint: step, hours trained, training loss, and the
                  masked-token loss and accuracy on a fixed held-out set (the same
                  masks every time, so lines compare; the held-out items are never
                  trained on as items, but an address of one can appear in a training
                  pair, so the figure is for comparing checkpoints, not a test score);
  encoder/        the encoder as a model folder, which train.py takes as --init to
                  fine-tune it (train.py --init DIR/encoder --mlm-minutes 0).

Training text is train.py's masked-LM corpus (training splits only), optionally with
more synthetic addresses. --mask spans masks runs of 1 to 5 characters (so a whole
district or road name is hidden more often than its single characters); --mask chars is
train.py's per-character masking. The learning rate is constant after a warm-up, so a
run can go on for as long as there is time for it.
"""
import argparse
import csv
import hashlib
import json
import os
import random
import shutil
import signal
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools", "reference"))
import corpus as training_corpus  # noqa: E402
import safetensors_io  # noqa: E402
from bert_model import Bert, pad_batch  # noqa: E402
from bert_tokenizer import BertTokenizer  # noqa: E402
from gazetteer import Gazetteer  # noqa: E402
from train import (MAX_LENGTH, build_vocab, corrupt_chosen, mask_tokens, normalize, optimizer_step, read_vocab,  # noqa: E402
                   write_model_folder)

SPECIAL_MAX = 4  # ids 0..4 are [PAD] [UNK] [CLS] [SEP] [MASK]
HELD_OUT = 2000
LOG_FIELDS = ["step", "hours", "items_seen", "train_loss", "held_out_loss", "held_out_accuracy"]


def mask_spans(ids, mask, vocab_size, gen, rate=0.15, max_span=5, p=0.4):
    """Chooses about `rate` of the real tokens in runs of 1..max_span (geometric lengths, mean
    about 2), then corrupts them as BERT does."""
    eligible = (mask > 0) & (ids > SPECIAL_MAX)
    # Geometric lengths by inverting the CDF, so that `gen` alone decides them.
    u = torch.rand(ids.shape, generator=gen).clamp_min(1e-12)
    lengths = torch.clamp(torch.floor(torch.log(u) / torch.log(torch.tensor(1.0 - p))).long() + 1, max=max_span)
    mean_length = sum(min(k, max_span) * p * (1 - p) ** (k - 1) for k in range(1, 64))
    starts = torch.bernoulli(torch.full(ids.shape, rate / mean_length), generator=gen).bool() & eligible
    chosen = torch.zeros_like(eligible)
    for k in range(max_span):
        reach = starts & (lengths > k)
        chosen[:, k:] |= reach[:, :ids.shape[1] - k]
    return corrupt_chosen(ids, chosen & eligible, vocab_size, gen, SPECIAL_MAX)


def masked(kind, ids, mask, vocab_size, gen):
    if kind == "spans":
        return mask_spans(ids, mask, vocab_size, gen)
    return mask_tokens(ids, mask, vocab_size, gen, SPECIAL_MAX)


def mlm_loss(model, ids, types, mask, labels, bf16):
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        hidden = model.encode(ids, types, mask)
        sel = labels != -100
        logits = model.mlm_logits(hidden[sel]).float()
    return F.cross_entropy(logits, labels[sel]), logits, labels[sel]


def held_out_score(model, items, args, vocab_size):
    """Masked-token loss and accuracy on the held-out items, with the same masks each time."""
    gen = torch.Generator().manual_seed(12345)
    model.eval()
    total_loss = total_right = total = 0
    with torch.inference_mode():
        for i in range(0, len(items), 256):
            ids, types, mask = pad_batch(items[i:i + 256])
            ids, labels = masked(args.mask, ids, mask, vocab_size, gen)
            loss, logits, gold = mlm_loss(model, ids, types, mask, labels, args.bf16)
            total_loss += loss.item() * len(gold)
            total_right += (logits.argmax(1) == gold).sum().item()
            total += len(gold)
    model.train()
    return total_loss / max(1, total), total_right / max(1, total)


def texts(args, gaz):
    """(single addresses, address pairs) to pretrain on."""
    if args.texts:
        with open(args.texts, encoding="utf-8") as f:
            lines = [line.rstrip("\n") for line in f if line.strip()]
        singles = [line.split("\t")[0] for line in lines]
        pairs = [tuple(line.split("\t")[:2]) for line in lines if line.count("\t") >= 1]
        return singles, pairs
    c = training_corpus.load(gaz, args.seed, args.synthetic_addresses, args.synthetic_pairs)
    return c.mlm_singles(), c.mlm_pairs()


def export_encoder(model, tokens, folder):
    """Replaces the exported encoder folder whole, so a reader never sees half of one."""
    partial = folder + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    write_model_folder(model, tokens, partial)
    if os.path.exists(folder):
        shutil.rmtree(folder + ".old", ignore_errors=True)
        os.rename(folder, folder + ".old")
    os.rename(partial, folder)
    shutil.rmtree(folder + ".old", ignore_errors=True)


def save_atomically(state, path):
    tmp = path + ".tmp"
    torch.save(state, tmp)
    os.replace(tmp, path)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", required=True, help="the run folder (checkpoint, log, exported encoder)")
    ap.add_argument("--resume", action="store_true", help="go on from the run folder's checkpoint")
    ap.add_argument("--init", help="start from this model folder's vocabulary and weights (a new run only)")
    ap.add_argument("--minutes", type=float, default=60, help="how long this invocation trains")
    ap.add_argument("--checkpoint-minutes", type=float, default=5)
    ap.add_argument("--bf16", action="store_true", help="bf16 autocast (CPUs with AMX or AVX512-BF16)")
    ap.add_argument("--mask", choices=["spans", "chars"], default="spans")
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--warmup", type=int, default=500, help="warm-up steps of a new run")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--layers", type=int, default=4, help="a new run without --init")
    ap.add_argument("--hidden", type=int, default=256, help="a new run without --init")
    ap.add_argument("--synthetic-addresses", type=int, default=150000)
    ap.add_argument("--synthetic-pairs", type=int, default=30000)
    ap.add_argument("--texts", help="pretrain on this file instead (an address, or address<TAB>address, per line)")
    args = ap.parse_args()
    if args.resume and args.init:
        ap.error("--resume goes on from the run folder's own weights; --init is for a new run")
    checkpoint = os.path.join(args.run, "checkpoint.pt")
    if args.resume and not os.path.isfile(checkpoint):
        ap.error(f"--resume: no checkpoint at {checkpoint}")
    if not args.resume and os.path.exists(checkpoint):
        ap.error(f"{checkpoint} exists: pass --resume to go on from it, or choose another --run")
    return args


def main():
    args = parse_args()
    torch.set_num_threads(args.threads)
    os.makedirs(args.run, exist_ok=True)
    checkpoint_path = os.path.join(args.run, "checkpoint.pt")
    t0 = time.time()
    gaz = Gazetteer()

    state = torch.load(checkpoint_path) if args.resume else None
    if state is not None:
        tokens, config = state["tokens"], state["config"]
        # The corpus and masking are the run's, not this invocation's: a resumed run goes
        # on with the text it started with.
        for key in ("mask", "seed", "synthetic_addresses", "synthetic_pairs", "texts"):
            setattr(args, key, state["args"][key])
    singles, pairs = texts(args, gaz)
    if state is None:
        if args.init:
            tokens = read_vocab(os.path.join(args.init, "vocab.txt"))
            with open(os.path.join(args.init, "config.json"), encoding="utf-8") as f:
                c = json.load(f)
            config = dict(vocab=len(tokens), h=c["hidden_size"], layers=c["num_hidden_layers"],
                          heads=c["num_attention_heads"], inner=c["intermediate_size"],
                          max_pos=c["max_position_embeddings"])
        else:
            tokens = build_vocab(singles + [t for p in pairs for t in p])
            config = dict(vocab=len(tokens), h=args.hidden, layers=args.layers, heads=args.hidden // 64,
                          inner=4 * args.hidden, max_pos=128)
    tok = BertTokenizer({t: i for i, t in enumerate(tokens)})
    items = [tok.encode_single(normalize(a), MAX_LENGTH) for a in singles]
    items += [tok.encode_pair(normalize(a), normalize(b), MAX_LENGTH) for a, b in pairs]
    # A resumed run must go on with the items it started with: a changed corpus, vocabulary
    # or normalization would quietly train on other text and break the log's comparisons.
    fingerprint = hashlib.sha1(json.dumps([ids for ids, _ in items]).encode()).hexdigest()
    if state is not None and state.get("corpus") != fingerprint:
        sys.exit(f"{checkpoint_path}: the training text is not the run's (its data, vocabulary or "
                 "normalization changed); start a new run from this one's encoder with "
                 f"--init {os.path.join(args.run, 'encoder')}")
    # A fixed held-out slice, never trained on: every item whose index falls on the stride.
    stride = max(2, len(items) // HELD_OUT)
    held_out = items[::stride]
    items = [x for i, x in enumerate(items) if i % stride]
    print(f"{len(items)} training items, {len(held_out)} held out, vocab {len(tokens)} "
          f"({time.time() - t0:.0f}s)", flush=True)

    torch.manual_seed(args.seed)
    model = Bert(config["vocab"], h=config["h"], layers=config["layers"], heads=config["heads"],
                 inner=config["inner"], max_pos=config["max_pos"])
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    rng = random.Random(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    step, seconds, seen, warmup_until = 0, 0.0, 0, args.warmup
    if state is not None:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        rng.setstate(state["rng"])
        gen.set_state(state["generator"])
        torch.set_rng_state(state["torch_rng"])
        step, seconds, seen = state["step"], state["seconds"], state["items_seen"]
        warmup_until = state["warmup_until"]
        print(f"resumed at step {step} ({seconds / 3600:.2f} h trained)", flush=True)
    elif args.init:
        model.load_hf(safetensors_io.load(os.path.join(args.init, "model.safetensors")))
        print(f"new run from {args.init}", flush=True)

    stop = {"now": 0}

    def request_stop(signum, _frame):
        stop["now"] = signum  # printing here could re-enter a print the signal interrupted
    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)

    log_path = os.path.join(args.run, "log.tsv")
    new_log = not os.path.exists(log_path)

    def checkpoint(train_loss):
        # The state first: a kill's grace period may not outlast the held-out scoring.
        save_atomically({"model": model.state_dict(), "optimizer": opt.state_dict(), "rng": rng.getstate(),
                         "generator": gen.get_state(), "torch_rng": torch.get_rng_state(), "step": step,
                         "seconds": seconds, "items_seen": seen, "warmup_until": warmup_until,
                         "tokens": tokens, "config": config, "corpus": fingerprint,
                         "args": {k: getattr(args, k) for k in ("mask", "seed", "synthetic_addresses",
                                                                "synthetic_pairs", "texts")}},
                        checkpoint_path)
        export_encoder(model, tokens, os.path.join(args.run, "encoder"))
        loss, accuracy = held_out_score(model, held_out, args, len(tokens))
        nonlocal new_log
        with open(log_path, "a", newline="") as f:
            w = csv.writer(f, delimiter="\t")
            if new_log:
                w.writerow(LOG_FIELDS)
                new_log = False
            w.writerow([step, f"{seconds / 3600:.3f}", seen, f"{train_loss:.4f}", f"{loss:.4f}", f"{accuracy:.4f}"])
        print(f"checkpoint: step {step}, {seconds / 3600:.2f} h, held-out masked loss {loss:.4f} "
              f"accuracy {accuracy:.4f}", flush=True)

    deadline = time.time() + args.minutes * 60
    next_checkpoint = time.time() + args.checkpoint_minutes * 60
    first_step = step
    recent = []
    while time.time() < deadline and not stop["now"]:
        started = time.time()
        batch = [items[rng.randrange(len(items))] for _ in range(args.batch)]
        ids, types, mask = pad_batch(batch)
        ids, labels = masked(args.mask, ids, mask, len(tokens), gen)
        for g in opt.param_groups:
            g["lr"] = args.lr * min(1.0, (step + 1) / warmup_until) if step < warmup_until else args.lr
        loss, _, _ = mlm_loss(model, ids, types, mask, labels, args.bf16)
        optimizer_step(model, opt, loss)
        step += 1
        seen += len(batch)
        seconds += time.time() - started
        recent = (recent + [loss.item()])[-200:]
        if step % 200 == 0:
            print(f"step {step} loss {sum(recent) / len(recent):.3f} "
                  f"({(step - first_step) / (time.time() - t0):.2f} steps/s)", flush=True)
        if time.time() >= next_checkpoint:
            checkpoint(sum(recent) / len(recent))
            next_checkpoint = time.time() + args.checkpoint_minutes * 60
    if stop["now"]:
        print(f"signal {stop['now']}: checkpointing and stopping", flush=True)
    if step > first_step or state is None:
        checkpoint(sum(recent) / len(recent) if recent else float("nan"))


if __name__ == "__main__":
    main()
