#!/usr/bin/env python
"""Stage-2 anchor quality and speed on the dev set: hit@1/hit@3 against BM25 and lexical ranking.

For every answerable dev question with gold evidence, query analysis and stage 1
(the project's own) produce the candidate blocks; the candidate sentences are then
ranked three ways: stage 2 (SyntaxStage), the parser-free lexical selection
(pipeline.anchors.lexical_anchors) and BM25 over the same sentences (jieba tokens).
A hit is a ranked sentence that contains a gold evidence sentence (or is contained
in it), punctuation ignored. ``reachable`` counts questions whose evidence is among
the candidate sentences at all (the ceiling for stage 2).

usage: .venv/bin/python scripts/eval_syntax.py [--docs ../shared/eval/dev/docs]
       [--questions ../shared/eval/dev/questions.jsonl] [--db runs/eval_syntax.sqlite] [--out FILE.json]
"""
from __future__ import annotations

import argparse
import json
import math
import re
import resource
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_PUNCT = re.compile(r"[\s，。；：、！？,.;:!?“”\"'（）()《》【】\[\]]")


def norm(s: str) -> str:
    return _PUNCT.sub("", s)


def is_hit(sentence: str, golds: list[str]) -> bool:
    s = norm(sentence)
    for g in golds:
        g = norm(g)
        if g and (g in s or (len(s) >= 8 and s in g)):
            return True
    return False


def bm25_rank(query_tokens: list[str], sentences: list[str], cut) -> list[int]:
    docs = [cut(s) for s in sentences]
    n = len(docs) or 1
    avg = sum(map(len, docs)) / n or 1.0
    df = Counter(t for d in docs for t in set(d))
    scores = []
    for d in docs:
        tf = Counter(d)
        sc = 0.0
        for t in set(query_tokens):
            if t in tf:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                sc += idf * tf[t] * 2.2 / (tf[t] + 1.2 * (0.25 + 0.75 * len(d) / avg))
        scores.append(sc)
    return sorted(range(len(sentences)), key=lambda i: -scores[i])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", default=str(ROOT.parent / "shared" / "eval" / "dev" / "docs"))
    ap.add_argument("--questions", default=str(ROOT.parent / "shared" / "eval" / "dev" / "questions.jsonl"))
    ap.add_argument("--db", default=str(ROOT / "runs" / "eval_syntax.sqlite"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="SyntaxSettings override (repeatable); several --grid runs share one parser")
    ap.add_argument("--grid", action="append", default=[], metavar="NAME=V,NAME=V",
                    help="extra settings to compare (hit@1/hit@3 only), e.g. --grid w_pattern=0.5,w_prior=0.2")
    args = ap.parse_args(argv)

    from pipeline.anchors import lexical_anchors
    from pipeline.kb import KnowledgeBase
    from pipeline.syntax import SyntaxSettings, SyntaxStage
    from pipeline.text import split_sentences
    from pipeline.tokenize import cut, is_word, stopwords

    kb = KnowledgeBase(args.db, audit_log=None)
    kb.ingest([args.docs])
    orch = kb.orchestrator
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    def settings(pairs: list[str]) -> SyntaxSettings:
        kw = {}
        for pair in pairs:
            k, v = pair.split("=", 1)
            kw[k] = type(getattr(SyntaxSettings(), k))(v)
        return SyntaxSettings(**kw)

    stage = SyntaxStage(settings(args.set))
    grid = [(g, SyntaxStage(settings(args.set + g.split(",")), parser=stage.parser)) for g in args.grid]
    grid_rows: dict[str, list[list[bool]]] = {g: [] for g, _ in grid}
    t0 = time.perf_counter()
    stage.warm_up()
    load_s = time.perf_counter() - t0
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    qs = [json.loads(l) for l in Path(args.questions).read_text(encoding="utf-8").splitlines() if l.strip()]
    stop = stopwords()
    rows, cold, warm = [], [], []
    for q in qs:
        ev = q.get("evidence")
        golds = [ev] if isinstance(ev, str) else list(ev or [])
        golds = [g for g in golds if g]
        if not q.get("answerable", True) or not golds:
            continue
        query = orch.analyzer.run(q["question"])
        cands = orch.prefilter.run(query)
        sents = [(c, s) for c in cands for s in split_sentences(c.block.text)]
        reachable = any(is_hit(s.text, golds) for _, s in sents)
        t = time.perf_counter()
        anchors = stage.run(query, cands, max_anchors=3)
        cold.append(1000 * (time.perf_counter() - t))
        t = time.perf_counter()
        stage.run(query, cands, max_anchors=3)
        warm.append(1000 * (time.perf_counter() - t))
        for g, st in grid:
            grid_rows[g].append([is_hit(a.sentence.text, golds) for a in st.run(query, cands, max_anchors=3)])
        lex = lexical_anchors(query, cands, limit=3)
        qtok = [w for w in cut(q["question"]) if is_word(w) and w not in stop]
        order = bm25_rank(qtok, [s.text for _, s in sents], cut)
        bm = [sents[i][1].text for i in order[:3]]
        rows.append({
            "id": q["id"], "type": q.get("type"), "qtype": query.qtype, "reachable": reachable,
            "n_candidates": len(cands), "n_sentences": len(sents),
            "syntax": [is_hit(a.sentence.text, golds) for a in anchors],
            "syntax_patterns": [a.pattern for a in anchors],
            "lexical": [is_hit(a.sentence.text, golds) for a in lex],
            "bm25": [is_hit(s, golds) for s in bm],
        })

    def rate(key: str, k: int, subset=None) -> float:
        rs = subset if subset is not None else rows
        return round(sum(any(r[key][:k]) for r in rs) / max(1, len(rs)), 3)

    reach = [r for r in rows if r["reachable"]]
    out = {
        "questions": len(rows), "reachable": len(reach),
        "hit@1": {m: rate(m, 1) for m in ("syntax", "lexical", "bm25")},
        "hit@3": {m: rate(m, 3) for m in ("syntax", "lexical", "bm25")},
        "hit@1_reachable": {m: rate(m, 1, reach) for m in ("syntax", "lexical", "bm25")},
        "hit@3_reachable": {m: rate(m, 3, reach) for m in ("syntax", "lexical", "bm25")},
        "pattern_fired_top1": round(sum(bool(r["syntax_patterns"] and r["syntax_patterns"][0]) for r in rows)
                                    / max(1, len(rows)), 3),
        "latency_ms": {
            "cold_p50": round(statistics.median(cold), 2), "cold_p95": round(sorted(cold)[int(0.95 * len(cold))], 2),
            "warm_p50": round(statistics.median(warm), 2), "warm_p95": round(sorted(warm)[int(0.95 * len(warm))], 2),
        },
        "model_load_s": round(load_s, 2),
        "rss_mb": {"before_load": round(rss0 / 1024), "after_load": round(rss1 / 1024),
                   "end": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)},
        "per_type_hit@1": {},
        "grid": {g: {"hit@1": round(sum(any(h[:1]) for h in hs) / max(1, len(hs)), 3),
                     "hit@3": round(sum(any(h[:3]) for h in hs) / max(1, len(hs)), 3)} for g, hs in grid_rows.items()},
    }
    for t in sorted({r["type"] for r in rows}):
        sub = [r for r in rows if r["type"] == t]
        out["per_type_hit@1"][t] = {"n": len(sub), **{m: rate(m, 1, sub) for m in ("syntax", "lexical", "bm25")}}
    print(json.dumps(out, ensure_ascii=False, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps({"summary": out, "rows": rows}, ensure_ascii=False, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
