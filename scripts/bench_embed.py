#!/usr/bin/env python3
"""What embeddings cost: warm ask latency (p50/p95), peak RSS and ingest time, per embedding mode,
each in a fresh process, interleaved with a reference checkout (e.g. main) in the same run.

usage: scripts/bench_embed.py --docs DIR --questions Q.jsonl [--modes off,static,e5] [--ref ../main]
                              [--rounds 2] [--out FILE.json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORKER = r"""
import json, sys, time, statistics
sys.path.insert(0, sys.argv[1])
from pipeline import KnowledgeBase
mode, db, qfile, docs = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
kw = {} if mode == "ref" else {"embed": mode}
out = {}
if docs != "-":
    t0 = time.perf_counter()
    kb = KnowledgeBase(db, audit_log=None, **kw)
    rep = kb.ingest([docs])
    out["ingest_s"] = round(time.perf_counter() - t0, 2)
    out["embedded"] = getattr(rep, "embedded", 0)
else:
    kb = KnowledgeBase(db, audit_log=None, create=False, **kw)
qs = [json.loads(l)["question"] for l in open(qfile, encoding="utf-8") if l.strip()]
for q in qs[:5]:
    kb.ask(q)
times = []
for q in qs:
    t0 = time.perf_counter()
    kb.ask(q)
    times.append((time.perf_counter() - t0) * 1000)
times.sort()
hwm = None
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        hwm = round(int(line.split()[1]) / 1024, 1)
out.update({"p50_ms": round(statistics.median(times), 1), "p95_ms": round(times[int(0.95 * len(times))], 1),
            "peak_rss_mb": hwm})
print(json.dumps(out))
"""


def run(repo: str, mode: str, db: str, questions: str, docs: str) -> dict:
    res = subprocess.run([sys.executable, "-c", WORKER, repo, mode, db, questions, docs], capture_output=True,
                         text=True, cwd=repo)
    if res.returncode != 0:
        return {"error": res.stderr[-2000:]}
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", required=True)
    ap.add_argument("--questions", required=True)
    ap.add_argument("--modes", default="off,static,e5")
    ap.add_argument("--ref", help="another checkout (e.g. ../main) timed in the same run, on its own store")
    ap.add_argument("--rounds", type=int, default=2, help="latency rounds, interleaved across systems")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    docs = str(Path(args.docs).resolve())
    questions = str(Path(args.questions).resolve())
    systems = [(str(ROOT), m) for m in args.modes.split(",")]
    if args.ref:
        systems.insert(0, (str(Path(args.ref).resolve()), "ref"))
    report: dict = {"date": time.strftime("%Y-%m-%d %H:%M"), "systems": {}}
    with tempfile.TemporaryDirectory() as tmp:
        dbs = {}
        for repo, mode in systems:  # ingest: a fresh store per system, timed
            name = "ref" if mode == "ref" else mode
            dbs[name] = str(Path(tmp) / f"{name}.sqlite")
            r = run(repo, mode, dbs[name], questions, docs)
            report["systems"][name] = {"ingest": r, "rounds": []}
            print(name, "ingest", r, file=sys.stderr)
        for _ in range(args.rounds):
            for repo, mode in systems:
                name = "ref" if mode == "ref" else mode
                r = run(repo, mode, dbs[name], questions, "-")
                report["systems"][name]["rounds"].append(r)
                print(name, r, file=sys.stderr)
    for name, s in report["systems"].items():
        ok = [r for r in s["rounds"] if "p50_ms" in r]
        if ok:
            s["p50_ms"] = statistics.median(r["p50_ms"] for r in ok)
            s["peak_rss_mb"] = max(r["peak_rss_mb"] for r in ok)
    if "ref" in report["systems"] and "p50_ms" in report["systems"]["ref"]:
        ref = report["systems"]["ref"]["p50_ms"]
        for name, s in report["systems"].items():
            if "p50_ms" in s:
                s["p50_ratio_to_ref"] = round(s["p50_ms"] / ref, 3)
    print(json.dumps(report, ensure_ascii=False, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
