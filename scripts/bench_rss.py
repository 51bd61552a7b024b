#!/usr/bin/env python3
"""Peak resident memory over a long batch of questions in one process (issue: peak RSS while answering).

usage: scripts/bench_rss.py --db STORE [--n 1000] [--sets dev,set1,set2,set3,set4]

Asks the questions of the given sets (cycled, each with a few characters of suffix so the answer cache
cannot serve repeats) N times against an existing store, and prints VmRSS after loading, after the first
question, every 250 questions, and the peak (VmHWM), with the p50 / p95 of the answer's total time.
Without an LLM. Prints one JSON line at the end.
"""
import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--sets", default="dev,set1,set2,set3,set4")
    args = ap.parse_args()
    from eval_sets import set_path
    qs = [json.loads(x)["question"] for name in args.sets.split(",")
          for x in open(set_path(name), encoding="utf-8") if x.strip()]
    from pipeline import KnowledgeBase
    from pipeline.evaluate.bench import _proc_status_mb as vm  # VmRSS / VmHWM in MB
    print(f"RSS after import: {vm('VmRSS')} MB", flush=True)
    kb = KnowledgeBase(args.db)
    times = []
    marks = {}
    for i in range(args.n):
        q = qs[i % len(qs)]
        if i >= len(qs):  # a repeat: vary it so no cache answers it
            q = q.rstrip("？?") + "？" * (1 + i // len(qs))
        t = time.perf_counter()
        kb.ask(q)
        times.append((time.perf_counter() - t) * 1000)
        if i == 0 or (i + 1) % 250 == 0:
            marks[i + 1] = vm("VmRSS")
            print(f"after {i + 1} questions: RSS {marks[i + 1]} MB, peak {vm('VmHWM')} MB", flush=True)
    s = sorted(times)
    out = {"n": args.n, "rss_mb": marks, "peak_rss_mb": vm("VmHWM"),
           "p50_ms": round(statistics.median(times), 1), "p95_ms": round(s[int(0.95 * (len(s) - 1))], 1)}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
