#!/usr/bin/env python3
"""SQLite vs PostgreSQL on the same corpus and questions: same answers? same candidates? how fast?

usage: nice -n 10 scripts/compare_stores.py [--docs DIR ...] [--questions Q.jsonl] [--pg URL] [--workdir DIR]
                                            [--extra-docs N] [--workers 1,2,4]

Ingests the documents into a fresh SQLite file and a fresh PostgreSQL schema (a throwaway cluster
from tests/pg.py unless --pg is given), asks every question through both (once to warm, once
measured) and prints JSON: identical status+value, differences, stage-1 candidate overlap,
ingest throughput, store size, and warm answer p50/p95 per backend. --extra-docs N adds the first N
documents of ../shared/eval/train (the scale runs). Defaults: ../shared/eval/dev.
"""
import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline import KnowledgeBase  # noqa: E402


def _pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]


def _cands(ans):
    return [c["block_id"] for c in ans["stages"]["prefilter"]["candidates"]]


def _worker(url, questions, start, out):
    kb = KnowledgeBase(url, audit_log=None, create=False)
    for q in questions[:5]:
        kb.ask(q["question"])  # load the parser and warm caches before the clock starts
    start.wait()
    t = time.perf_counter()
    for q in questions:
        kb.ask(q["question"])
    out.put((len(questions), time.perf_counter() - t))


def throughput(url, questions, workers):
    """Answers per second with N worker processes sharing the store (each asks every question)."""
    import multiprocessing
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Barrier(workers + 1), ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(url, questions, start, out)) for _ in range(workers)]
    for p in procs:
        p.start()
    start.wait()
    t = time.perf_counter()
    res = [out.get() for _ in procs]
    wall = time.perf_counter() - t
    for p in procs:
        p.join()
    return round(sum(n for n, _ in res) / wall, 2)


def run(docs, questions, url, work, extra, workers=()):
    out = {}
    paths = [str(d) for d in docs] + [str(p) for p in extra]
    kbs = {}
    for name, db in (("sqlite", str(work / "kb.sqlite")), ("postgres", url)):
        kb = KnowledgeBase(db, audit_log=None)
        t = time.perf_counter()
        rep = kb.ingest(paths)
        secs = time.perf_counter() - t
        st = kb.store.stats()
        out[name] = {"ingest_s": round(secs, 1), "docs": st["documents"], "blocks": st["blocks"],
                     "docs_per_s": round(st["documents"] / secs, 2), "store_mb": round(st["bytes"] / 1e6, 1),
                     "failed": rep.failed}
        kbs[name] = kb
    answers = {}
    for name, kb in kbs.items():
        for q in questions[:10]:
            kb.ask(q["question"])  # warm the parser and caches
        lat, res, pre, hit10 = [], {}, [], []
        for q in questions:
            t = time.perf_counter()
            a = kb.ask(q["question"], trace=True).to_dict()
            lat.append((time.perf_counter() - t) * 1e3)
            pre.append(a["timings_ms"].get("prefilter", 0.0))
            res[q["id"]] = a
            ev = q.get("evidence") or []
            gold = [g.strip("。；; ") for g in ([ev] if isinstance(ev, str) else ev) if g.strip("。；; ")]
            if gold and q.get("answerable", True):  # recall@10: the gold clause is in a top-10 candidate block
                texts = [b.text for b in (kb.store.block(bid) for bid in _cands(a)[:10]) if b is not None]
                hit10.append(any(g in t for g in gold for t in texts))
        answers[name] = res
        out[name]["stage1_recall_at_10"] = round(sum(hit10) / len(hit10), 4) if hit10 else None
        out[name].update({"p50_ms": round(statistics.median(lat), 1), "p95_ms": round(_pct(lat, 0.95), 1),
                          "stage1_p50_ms": round(statistics.median(pre), 1)})
    same, diffs, overlap10, overlap_all, same_cands = 0, [], [], [], 0
    for q in questions:
        a, b = answers["sqlite"][q["id"]], answers["postgres"][q["id"]]
        if (a["status"], a["value"]) == (b["status"], b["value"]):
            same += 1
        else:
            diffs.append({"id": q["id"], "sqlite": [a["status"], a["answer"][:60]],
                          "postgres": [b["status"], b["answer"][:60]]})
        ca, cb = _cands(a), _cands(b)
        same_cands += ca == cb
        if ca or cb:
            overlap10.append(len(set(ca[:10]) & set(cb[:10])) / max(1, len(set(ca[:10]) | set(cb[:10]))))
            overlap_all.append(len(set(ca) & set(cb)) / max(1, len(set(ca) | set(cb))))
    out["questions"] = len(questions)
    out["identical_status_and_value"] = same
    out["differences"] = diffs
    out["identical_candidate_lists"] = same_cands
    out["candidate_overlap_top10_jaccard_mean"] = round(statistics.mean(overlap10), 4) if overlap10 else None
    out["candidate_overlap_all_jaccard_mean"] = round(statistics.mean(overlap_all), 4) if overlap_all else None
    for k, db in (("postgres", url), ("sqlite", str(work / "kb.sqlite"))):
        for w in workers:
            out[k][f"answers_per_s_{w}_workers"] = throughput(db, questions, w)
    return out


def main() -> int:
    dev = ROOT.parent / "shared" / "eval" / "dev"
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", nargs="+", default=[str(dev / "docs")])
    ap.add_argument("--questions", default=str(dev / "questions.jsonl"))
    ap.add_argument("--pg", help="postgresql:// URL of an empty database (default: a throwaway cluster)")
    ap.add_argument("--workdir")
    ap.add_argument("--extra-docs", type=int, default=0, help="add the first N documents of ../shared/eval/train")
    ap.add_argument("--workers", default="", help="e.g. 1,2,4: answers per second with that many worker processes")
    args = ap.parse_args()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="compare_stores_"))
    work.mkdir(parents=True, exist_ok=True)
    (work / "kb.sqlite").unlink(missing_ok=True)
    questions = [json.loads(line) for line in open(args.questions, encoding="utf-8") if line.strip()]
    workers = [int(w) for w in args.workers.split(",") if w.strip()]
    extra = []
    if args.extra_docs:
        train = ROOT.parent / "shared" / "eval" / "train" / "docs"
        extra = sorted(p for p in train.rglob("*.md") if p.is_file())[: args.extra_docs]
    if args.pg:
        res = run(args.docs, questions, args.pg, work, extra, workers)
    else:
        from tests.pg import Cluster
        with Cluster() as c:
            res = run(args.docs, questions, c.fresh_schema_url(), work, extra, workers)
    print(json.dumps(res, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
