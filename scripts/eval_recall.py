#!/usr/bin/env python3
"""Stage-1 recall on a question set: is a block holding the gold evidence among the top 10 / 30?

Compares LoopAgent's pre-filter (weighted lexicon over FTS5 recall) with plain FTS5 BM25 over
the same store and with jieba + bm25s over the same blocks, in one run, and times stage 1.

usage: scripts/eval_recall.py --db STORE.sqlite --questions QUESTIONS.jsonl [--out FILE.json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline import KnowledgeBase  # noqa: E402
from pipeline.evaluate.baselines import query_tokens  # noqa: E402
from pipeline.evaluate.score import norm  # noqa: E402


def golds(q: dict) -> list[str]:
    ev = q.get("evidence") or []
    return [norm(e) for e in ([ev] if isinstance(ev, str) else ev) if e]


def _piece_found(g: str, texts: list[str]) -> bool:
    """The scorer's evidence rule for one gold piece (containment, or a long shared run)."""
    k = min(12, max(6, len(g) // 2))
    for t in texts:
        if g in t or (len(t) >= 8 and t in g):
            return True
        if any(g[i:i + k] in t for i in range(0, max(1, len(g) - k + 1), max(1, k // 2))):
            return True
    return False


def hit(gold: list[str], texts: list[str]) -> tuple[bool, bool]:
    """(any gold piece in some block, every gold piece in some block), as score.py matches evidence."""
    normed = [norm(t) for t in texts]
    found = [_piece_found(g, normed) for g in gold]
    return any(found), all(found)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--questions", required=True)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    kb = KnowledgeBase(args.db, create=False)
    orch = kb.orchestrator
    questions = [json.loads(l) for l in open(args.questions, encoding="utf-8") if l.strip()]
    questions = [q for q in questions if q.get("answerable", True) and golds(q)]

    import bm25s
    rows = []
    for d in kb.documents():
        rows += [(b.block_id, b.text) for b in kb.store.doc_blocks(d["doc_id"])]
    retriever = bm25s.BM25()
    retriever.index([query_tokens(t) or ["∅"] for _, t in rows], show_progress=False)
    vocab = retriever.vocab_dict

    systems = {"loopagent": [], "fts5_bm25": [], "jieba_bm25s": []}
    times = []
    for q in questions:
        t0 = time.perf_counter()
        query = orch.analyzer.run(q["question"])
        cands = orch.prefilter.run(query)
        times.append((time.perf_counter() - t0) * 1000)
        systems["loopagent"].append([c.block.text for c in cands[:30]])
        toks = list(dict.fromkeys(query_tokens(q["question"])))
        expr = " OR ".join('"' + t.replace('"', " ") + '"' for t in toks)
        hits = kb.store.search(expr, limit=30) if toks else []
        blocks = kb.store.blocks_by_rid([r for r, _ in hits])
        systems["fts5_bm25"].append([blocks[r].text for r, _ in hits if r in blocks])
        known = [t for t in toks if t in vocab]
        if known:
            scores = retriever.get_scores(known)
            top = scores.argsort()[::-1][:30]
            systems["jieba_bm25s"].append([rows[i][1] for i in top if scores[i] > 0])
        else:
            systems["jieba_bm25s"].append([])

    report = {"questions": len(questions)}
    for name, lists in systems.items():
        r = {}
        for k in (10, 30):
            any_hits = [hit(golds(q), texts[:k]) for q, texts in zip(questions, lists)]
            r[f"recall@{k}"] = round(sum(a for a, _ in any_hits) / len(questions), 3)
            r[f"recall_all@{k}"] = round(sum(b for _, b in any_hits) / len(questions), 3)
        report[name] = r
    times.sort()
    report["stage1_ms"] = {"p50": round(statistics.median(times), 1), "p95": round(times[int(0.95 * len(times))], 1)}
    missed = [q["id"] for q, texts in zip(questions, systems["loopagent"]) if not hit(golds(q), texts[:30])[0]]
    report["loopagent_missed_at_30"] = missed
    print(json.dumps(report, ensure_ascii=False, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
