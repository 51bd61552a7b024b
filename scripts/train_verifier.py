#!/usr/bin/env python3
"""Train the verifier (pipeline/verify.py) on dev and the fresh sets; write its weights and manifest.

usage: scripts/train_verifier.py [--db /tmp/loopagent-dev.sqlite] [--sets dev,set1,set2,set3,set4]
                                 [--rows ROWS.jsonl] [--from-rows ROWS.jsonl] [--out models/verifier]
                                 [--max-wrong 0.02] [--l2 1.0]

1. Ingests ../shared/eval/dev/docs (unchanged files are skipped, so an existing store is reused) and
   asks every question with the gate in record mode: each single-answer extraction that passed the hard
   checks is let through the coverage decision, and its verifier features are kept with its label: whether
   the kit's scorer (pipeline.evaluate.score) scores the answer correct. Unanswerable questions'
   extractions are negatives.
2. Fits a logistic regression (numpy; standardised features, L2) with each set held out in turn
   (leave-one-set-out) and picks the threshold on the held-out probabilities: the highest accuracy over
   all sets whose wrong-answer rate is at most --max-wrong.
3. Prints, per held-out set, precision and coverage of the verifier and of today's coverage bars on the
   same extractions, and the whole-set accuracy and wrong-answer rate each would give.
4. Fits on all sets and writes weights.json and manifest.json under --out.
Never reads tests/data/sealed.
"""
import argparse
import datetime
import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline import KnowledgeBase  # noqa: E402
from pipeline.evaluate.score import score  # noqa: E402
from pipeline.orchestrator import AskSettings  # noqa: E402
from pipeline.verify import FEATURES  # noqa: E402

SHARED = ROOT.parent / "shared" / "eval"
NAMES = list(FEATURES)


# which sets are training data and where they are: one table, in eval_sets (beside this script)
from eval_sets import DEV_CORPUS, SCORED_SEALED, set_path  # noqa: E402


def collect(db: str, sets: list[str], embed: str = "off", train_db: str = "") -> list[dict]:
    """One row per question: its set, whether it was scored correct/wrong, and (when the coverage
    decision saw an extraction) that extraction's features and what today's bars decided. The dev-corpus
    sets are asked against ``db`` (the dev documents ingested into it), the others against ``train_db``
    (the training corpus, all of ../shared/eval/train, ingested beforehand)."""
    rows = []
    for corpus in ("dev", "train"):
        names = [n for n in sets if (n in DEV_CORPUS) == (corpus == "dev")]
        if not names:
            continue
        if corpus == "train" and not train_db:
            raise SystemExit(f"--train-db is needed for {names}")
        kb = KnowledgeBase(db if corpus == "dev" else train_db, settings=AskSettings(record=True),
                           embed=None if embed == "off" else embed, create=corpus == "dev")
        if corpus == "dev":
            rep = kb.ingest([SHARED / "dev" / "docs"])
            print(f"store {db}: {rep.summary()}", flush=True)
        rows += _collect_sets(kb, names)
    return rows


def _collect_sets(kb, sets: list[str]) -> list[dict]:
    orch = kb.orchestrator
    rows = []
    for name in sets:
        t0 = time.perf_counter()
        qs = [json.loads(line) for line in open(set_path(name), encoding="utf-8") if line.strip()]
        for q in qs:
            orch.records.clear()
            a = kb.ask(q["question"], id=q["id"]).to_dict()
            r = score([q], [a])[0]
            rec = orch.records[-1] if orch.records else None
            rows.append({"set": name, "id": q["id"], "answerable": r["answerable"], "correct": r["correct"],
                         "accurate": bool(r["correct"] and r["evidence_ok"]) and r["answerable"],
                         "wrong": r["wrong"], "features": rec and rec["features"], "bar": rec and rec["bar"],
                         "method": rec and rec["method"]})
        print(f"{name}: {len(qs)} questions, {sum(1 for r in rows if r['set'] == name and r['features'])} "
              f"extractions recorded, {time.perf_counter() - t0:.0f} s", flush=True)
    return rows


def fit(x: np.ndarray, y: np.ndarray, l2: float) -> dict:
    """Standardised L2 logistic regression by Newton's method (the intercept is not penalised)."""
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    std[std < 1e-9] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / std])
    w = np.zeros(z.shape[1])
    pen = np.full(z.shape[1], l2)
    pen[0] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-z @ w))
        grad = z.T @ (p - y) + pen * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(pen) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return {"features": NAMES, "mean": mean.tolist(), "std": std.tolist(), "coef": w[1:].tolist(),
            "intercept": float(w[0])}


def predict(model: dict, x: np.ndarray) -> np.ndarray:
    z = (x - np.array(model["mean"])) / np.array(model["std"])
    return 1 / (1 + np.exp(-(model["intercept"] + z @ np.array(model["coef"]))))


def outcome(rows: list[dict], accept) -> dict:
    """Whole-set figures when the recorded extractions are accepted by ``accept(row)``."""
    n = len(rows)
    ans = sum(r["answerable"] for r in rows)
    acc = wrong = 0
    dec = {"n": 0, "accepted": 0, "correct": 0, "wrong": 0, "positives": 0}
    for r in rows:
        taken = bool(accept(r)) if r["features"] else None
        if r["features"]:
            dec["n"] += 1
            dec["positives"] += bool(r["correct"])
            if taken:
                dec["accepted"] += 1
                dec["correct"] += bool(r["correct"])
                dec["wrong"] += bool(r["wrong"])
        if taken is False:  # refused: not_found, right only for an unanswerable question (not in accuracy)
            continue
        acc += r["accurate"]
        wrong += r["wrong"]
    dec["precision"] = round(dec["correct"] / dec["accepted"], 3) if dec["accepted"] else None
    dec["coverage"] = round(dec["accepted"] / dec["n"], 3) if dec["n"] else None
    return {"accuracy": round(acc / max(1, ans), 3), "wrong_rate": round(wrong / max(1, n), 3), "decided": dec}


def choose_threshold(rows: list[dict], probs: dict, max_wrong: float) -> float:
    """The threshold with the best held-out accuracy over all rows whose wrong-answer rate ≤ max_wrong
    (ties: the higher threshold)."""
    best = (-1.0, 1.01)
    for t in sorted({round(p, 4) for p in probs.values()} | {1.01}):
        o = outcome(rows, lambda r: probs[(r["set"], r["id"])] >= t)
        if o["wrong_rate"] <= max_wrong + 1e-9:
            acc = o["accuracy"]
            if acc > best[0] + 1e-9 or (abs(acc - best[0]) <= 1e-9 and t > best[1]):
                best = (acc, t)
    return best[1]


def git_commit() -> str:
    try:
        # the last commit of the code and rules the features come from (a weights-only commit does not move it)
        head = subprocess.run(["git", "log", "-1", "--format=%H", "--", "pipeline", "rules", "scripts"], cwd=ROOT,
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "pipeline", "rules", "scripts"], cwd=ROOT,
                               capture_output=True, text=True).stdout.strip()
        return head + ("+dirty" if dirty else "")
    except OSError:
        return "unknown"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--db", default="/tmp/loopagent-dev.sqlite")
    p.add_argument("--sets", default="dev,set1,set2,set3,set4")
    p.add_argument("--rows", help="also write the collected rows here (JSONL)")
    p.add_argument("--from-rows", help="fit from rows written by --rows instead of asking the questions")
    p.add_argument("--out", default=str(ROOT / "models" / "verifier"))
    p.add_argument("--max-wrong", type=float, default=0.02)
    p.add_argument("--l2", type=float, default=1.0)
    p.add_argument("--embed", default="off", help="off, static or e5: embeddings give the similarity feature")
    p.add_argument("--train-db", default="", help="a store of all of ../shared/eval/train, for the sets outside dev")
    args = p.parse_args()
    sets = args.sets.split(",")
    unread = [s for s in sets if "sealed" in s or (s.startswith("s") and s[1:].isdigit() and s not in SCORED_SEALED)]
    if unread:
        print(f"sealed sets that have not been scored are never training data: {unread}", file=sys.stderr)
        return 2
    if args.from_rows:
        rows = [json.loads(line) for line in open(args.from_rows, encoding="utf-8") if line.strip()]
        rows = [r for r in rows if r["set"] in sets]
    else:
        if not (SHARED / "dev" / "docs").is_dir():
            print(f"documents not found: {SHARED / 'dev' / 'docs'} (needs ../shared)", file=sys.stderr)
            return 2
        rows = collect(args.db, sets, args.embed, args.train_db)
        if args.rows:
            with open(args.rows, "w", encoding="utf-8") as f:
                f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)

    data = [r for r in rows if r["features"]]
    x = np.array([[r["features"][n] for n in NAMES] for r in data], dtype=float)
    y = np.array([1.0 if r["correct"] else 0.0 for r in data])
    probs: dict = {}
    for s in sets:  # leave one set out
        train = np.array([r["set"] != s for r in data])
        m = fit(x[train], y[train], args.l2)
        for r, pr in zip([r for r in data if r["set"] == s], predict(m, x[~train])):
            probs[(r["set"], r["id"])] = float(pr)
    threshold = choose_threshold(rows, probs, args.max_wrong)

    held = {}
    print(f"\nthreshold {threshold:.4f} (leave-one-set-out, wrong-answer rate ≤ {args.max_wrong})")
    print(f"{'set':6} {'n':>4} {'pos':>4} | verifier: acc  prec  cov  wrong | bars: acc  prec  cov  wrong")
    for s in sets + ["all"]:
        rs = rows if s == "all" else [r for r in rows if r["set"] == s]
        v = outcome(rs, lambda r: probs[(r["set"], r["id"])] >= threshold)
        b = outcome(rs, lambda r: bool(r["bar"]))
        held[s] = {"verifier": v, "bars": b}
        d, e = v["decided"], b["decided"]
        print(f"{s:6} {d['n']:4d} {d['positives']:4d} | {v['accuracy']:.3f} {d['precision'] or 0:.3f} "
              f"{d['coverage'] or 0:.3f} {v['wrong_rate']:.3f} | {b['accuracy']:.3f} {e['precision'] or 0:.3f} "
              f"{e['coverage'] or 0:.3f} {b['wrong_rate']:.3f}")

    final = fit(x, y, args.l2)
    final["threshold"] = threshold
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "weights.json").write_text(json.dumps(final, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    manifest = {
        "trained": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "git_commit": git_commit(),
        "command": "python scripts/train_verifier.py " + " ".join(sys.argv[1:]),
        "data": {s: {"file": str(set_path(s).relative_to(ROOT.parent)) if s == "dev" else
                     str(set_path(s).relative_to(ROOT)),
                     "sha256": hashlib.sha256(set_path(s).read_bytes()).hexdigest() if set_path(s).exists() else None,
                     "questions": sum(r["set"] == s for r in rows),
                     "extractions": sum(r["set"] == s for r in data),
                     "positives": int(sum(bool(r["correct"]) for r in data if r["set"] == s))} for s in sets},
        "label": "pipeline.evaluate.score row 'correct' of the answer the extraction gives "
                 "(unanswerable questions: always negative)",
        "model": {"kind": "logistic regression, standardised features, L2", "l2": args.l2, "features": NAMES},
        "threshold": {"value": threshold, "chosen_by": "leave-one-set-out cross-validation",
                      "criterion": f"best accuracy over all sets with wrong-answer rate <= {args.max_wrong}"},
        "held_out": held,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"\nwrote {out / 'weights.json'} and {out / 'manifest.json'}")
    print("coef: " + ", ".join(f"{n} {c:+.2f}" for n, c in zip(NAMES, final["coef"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
