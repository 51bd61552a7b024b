"""What the gate under the coverage bar costs: warm latency and peak RSS with no e5 (rules without the meaning
check), the rules with the meaning check (AskSettings.min_similarity) and the trained gate (models/gate).

Mode ``stored`` is the trained gate with its e5 vectors persisted in the store (AskSettings.similarity_persist),
after one untimed run has stored them: what a later process pays.

Each mode runs in its own fresh process over the same store and questions, asked twice (pass 1 embeds
every checked sentence for the first time; pass 2 is warm, its vectors cached), alternating modes ``--runs``
times; the report gives medians and the on / off ratios.

    python scripts/bench_similarity.py --db STORE --questions a.jsonl,b.jsonl [--runs 3]
        [--modes off,rules,trained,stored]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
from pipeline import KnowledgeBase
from pipeline.orchestrator import AskSettings
qs = []
for path in {paths!r}:
    qs += [json.loads(x)["question"] for x in open(path, encoding="utf-8") if x.strip()]
kb = KnowledgeBase({db!r}, settings=AskSettings(min_similarity={bar!r}, similarity_persist={persist!r},
                                                **({{}} if {trained!r} else {{"gate_weights": ""}})))
first = []
for q in qs:  # pass 1: every sentence is embedded for the first time (the model loads at the first check)
    t = time.perf_counter()
    kb.ask(q)
    first.append((time.perf_counter() - t) * 1000)
first = sorted(first[1:])
times, checked = [], 0
for q in qs:
    t = time.perf_counter()
    a = kb.ask(q)
    times.append((time.perf_counter() - t) * 1000)
    checked += any("语义相似度" in r or "门控模型" in r for r in a.reasoning)
times.sort()
print(json.dumps({{"first_p50": first[len(first) // 2], "first_p95": first[int(len(first) * 0.95)],
                  "p50": times[len(times) // 2], "p95": times[int(len(times) * 0.95)], "max": times[-1],
                  "n": len(times), "checked": checked,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def run(db: str, paths: list[str], bar: float, trained: bool, persist: bool = False) -> dict:
    code = CHILD.format(root=str(ROOT), paths=paths, db=db, bar=bar, trained=trained, persist=persist)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# mode -> (AskSettings.min_similarity, whether the trained gate decides: else the rules, gate_weights="",
# whether e5 vectors are read from and written to the store: "stored" runs on a store a first run has filled)
MODES = {"off": (0.0, False, False), "rules": (0.94, False, False), "trained": (0.94, True, False),
         "stored": (0.94, True, True)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--questions", required=True, help="comma-separated JSONL files with a question field")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--modes", default="off,rules,trained")
    args = ap.parse_args()
    paths = args.questions.split(",")
    modes = args.modes.split(",")
    res: dict[str, list[dict]] = {m: [] for m in modes}
    if "stored" in modes:  # one run, not timed, fills the store with the vectors the questions need
        run(args.db, paths, *MODES["stored"])
    for _ in range(args.runs):
        for m in modes:
            res[m].append(run(args.db, paths, *MODES[m]))
    med = {m: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for m, rs in res.items()}
    base = modes[0]
    print(f"{med[base]['n']:.0f} questions, {args.runs} alternating runs per mode; e5 ran on "
          + ", ".join(f"{med[m]['checked']:.0f} ({m})" for m in modes))
    print("| figure | " + " | ".join(modes) + " | ratios to " + base + " |\n|---|" + "---|" * (len(modes) + 1))
    for k, label in (("first_p50", "pass 1 p50 ms (new sentences)"), ("first_p95", "pass 1 p95 ms"),
                     ("p50", "warm p50 ms (pass 2, vectors cached)"), ("p95", "warm p95 ms"), ("max", "warm max ms"),
                     ("rss_mb", "peak RSS MB")):
        print(f"| {label} | " + " | ".join(f"{med[m][k]:.1f}" for m in modes) + " | "
              + " / ".join(f"{med[m][k] / med[base][k]:.2f}" for m in modes[1:]) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
