#!/usr/bin/python3
"""Matcher.score on 1,000 pairs with OpenMP's default wait policy, active and passive: alone,
with a busy Python thread beside it (the usual case in a notebook or a web app), and one
pair a call.

    tools/bench/python_wait_policy.py [PAIRS.tsv] [--rounds 5]

Each policy runs in a fresh interpreter (libgomp reads OMP_WAIT_POLICY once, when it is
loaded). Prints the median seconds of each case. What it measured chose the package's
default: geoalign/__init__.py sets OMP_WAIT_POLICY=passive unless the environment sets it
or GOMP_SPINCOUNT (here, GOMP_SPINCOUNT=300000 stands for libgomp's own default).
"""
import argparse, json, os, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHILD = r"""
import json, statistics, sys, threading, time
import geoalign
pairs = [tuple(l.rstrip("\n").split("\t")[:2]) for l in open(sys.argv[1], encoding="utf-8") if not l.startswith("addr1\t")][:1000]
rounds = int(sys.argv[2])
m = geoalign.Matcher()
m.score(pairs[:64])
def timed():
    start = time.perf_counter(); m.score(pairs); return time.perf_counter() - start
alone = statistics.median(timed() for _ in range(rounds))
stop = False
def busy():
    x = 0
    while not stop:
        x += 1
t = threading.Thread(target=busy); t.start()
beside = statistics.median(timed() for _ in range(rounds))
stop = True; t.join()
def one_at_a_time():
    start = time.perf_counter()
    for p in pairs[:200]:
        m.score([p])
    return (time.perf_counter() - start) / 200
single = statistics.median(one_at_a_time() for _ in range(rounds))
print(json.dumps({"alone": alone, "beside": beside, "single": single}))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pairs", nargs="?", default=os.path.join(ROOT, "examples", "bench_pairs.tsv"))
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    print(subprocess.run(["lscpu"], capture_output=True, text=True).stdout.split("Model name:")[1].split("\n")[0].strip())
    for policy in ("(unset: libgomp spins, then sleeps)", "active", "passive"):
        env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
        if not policy.startswith("("):
            env["OMP_WAIT_POLICY"] = policy
        else:
            env["GOMP_SPINCOUNT"] = "300000"  # libgomp's default, set so that the package leaves it
        out = subprocess.run([sys.executable, "-c", CHILD, args.pairs, str(args.rounds)], env=env, capture_output=True,
                             text=True, check=True, cwd="/")
        r = json.loads(out.stdout)
        print(f"OMP_WAIT_POLICY={policy}: 1,000 pairs {r['alone']:.3f} s, beside a busy Python thread "
              f"{r['beside']:.3f} s; one pair a call {1000 * r['single']:.2f} ms")


if __name__ == "__main__":
    main()
