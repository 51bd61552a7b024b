#!/usr/bin/env python3
"""Where a training question is lost: the funnel from stage 1 to the answer, per question and in aggregate.

For each question of a TRAINING set (never a sealed one before it is scored) this asks with the trace on and
says which stage last held the gold evidence:
  cand   a stage-1 candidate block contains the gold evidence (its first or last 12 characters),
  anchor a stage-2 anchor sentence overlaps the gold evidence (rank of the first such anchor),
  then the outcome: right, wrong, not_found after a refusal (and why), not_found with no extraction.

usage: scripts/diagnose.py --db STORE --sets A.jsonl,B.jsonl [--rows OUT.jsonl] [--parser off]
"""
import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline import KnowledgeBase  # noqa: E402
from pipeline.evaluate.score import includes, norm as score_norm, score  # noqa: E402
from pipeline.fold import fold  # noqa: E402
from pipeline.orchestrator import AskSettings  # noqa: E402


def norm(s: str) -> str:
    return score_norm(s or "")


def holds(text: str, ev: str) -> bool:
    """Does ``text`` hold the evidence ``ev`` (whole, or its first or last 12 characters)?"""
    t = norm(text)
    if "|" in ev:  # a Markdown table row (|cell|cell|): the store renders it as header：cell；…
        cells = [c for c in ev.split("|") if c]
        return bool(cells) and all(c in t for c in cells)
    return bool(ev) and (ev in t or ev[:12] in t or ev[-12:] in t)


def overlaps(sentence: str, ev: str) -> bool:
    s = norm(sentence)
    if not s or not ev:
        return False
    if "|" in ev:  # a Markdown table row: its cells, as holds() reads them
        return holds(sentence, ev)
    if s in ev or ev in s:
        return True
    k = min(10, len(s), len(ev))
    return any(ev[i:i + k] in s for i in range(0, max(1, len(ev) - k + 1), 3))


def _would_be_right(q: dict, rejected: dict) -> bool:
    """Would the refused extraction have been scored right (the answer text holds every gold item)?"""
    text = norm(rejected.get("answer") or "")
    return bool(q.get("must_include")) and all(includes(text, item) for item in q["must_include"])


def funnel(kb, q):
    a = kb.ask(q["question"], id=q["id"], trace=True)
    d = a.to_dict()
    tr = getattr(a, "trace", None) or {}
    evs = q.get("evidence")
    evs = [norm(e) for e in (evs if isinstance(evs, list) else [evs]) if e]
    cands = (tr.get("prefilter") or {}).get("candidates") or []
    store = kb.store
    cand_rank = None
    for i, c in enumerate(cands):
        b = store.block(c["block_id"])
        raw = ((b.meta or {}).get("raw") or "") if b is not None else ""  # a folded Traditional block's own text
        if b is not None and any(holds(b.text, e) or holds(raw, e) for e in evs):
            cand_rank = i
            break
    anchors = (tr.get("syntax") or {}).get("anchors") or []
    evs_f = [fold(e) for e in evs]
    anchor_rank = next((i for i, x in enumerate(anchors) if any(overlaps(x["text"], e) for e in evs + evs_f)), None)
    ext = tr.get("extract") or {}
    rejected = ext.get("rejected") or []
    return d, {"n_cands": len(cands), "cand_rank": cand_rank, "n_anchors": len(anchors), "anchor_rank": anchor_rank,
               "accepted": (ext.get("accepted") or {}).get("method"),
               "rejected": [(r["method"], r["why"][:60]) for r in rejected[:3]],
               "rejected_right": [_would_be_right(q, r) for r in rejected[:3]],
               "qtype": (tr.get("analyze") or {}).get("qtype")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--sets", required=True)
    ap.add_argument("--rows")
    ap.add_argument("--parser", default="on")
    args = ap.parse_args()
    kb = KnowledgeBase(args.db, settings=AskSettings(use_parser=args.parser == "on"))
    out = open(args.rows, "w", encoding="utf-8") if args.rows else None
    total = Counter()
    for path in args.sets.split(","):
        qs = [json.loads(x) for x in open(path, encoding="utf-8") if x.strip()]
        answers, infos = [], []
        for q in qs:
            d, info = funnel(kb, q)
            answers.append(d)
            infos.append(info)
        rows = score(qs, answers)
        c = Counter()
        for q, d, info, r in zip(qs, answers, infos, rows):
            if not q.get("answerable", True):
                stage = "unans_ok" if d["status"] != "answered" else "unans_wrong"
            elif r.get("correct") and r.get("evidence_ok"):
                stage = "right"
            elif r.get("wrong"):
                stage = "wrong"
            elif r.get("correct"):
                stage = "miss:evidence"  # the right value, cited from a sentence that is not the gold one
            elif d["status"] in ("ambiguous", "navigation"):
                stage = "miss:" + d["status"]
            elif info["cand_rank"] is None:
                stage = "miss:no_cand"
            elif info["anchor_rank"] is None:
                stage = "miss:no_anchor"
            elif info["rejected"]:
                stage = "miss:refused"
            else:
                stage = "miss:no_extract"
            c[stage] += 1
            if out:
                out.write(json.dumps({"set": Path(path).parent.name or path, "id": q["id"], "stage": stage,
                                      "q": q["question"], "type": q["type"], "para": q.get("paraphrase"),
                                      "gold": q.get("must_include"), "ev": q.get("evidence"),
                                      "status": d["status"], "answer": d["answer"], "method": d.get("method"),
                                      "ev_ans": [e["text"][:120] for e in d.get("evidence", [])[:2]], **info},
                                     ensure_ascii=False) + "\n")
        total.update(c)
        print(path, dict(sorted(c.items())), flush=True)
    print("all", dict(sorted(total.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
