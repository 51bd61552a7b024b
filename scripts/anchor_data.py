#!/usr/bin/env python3
"""Collect stage 2's anchors with the anchor ranker's features and gold labels, on TRAINING questions.

For each answerable question whose gold evidence is one passage, this asks it once (stage 2's own order: the
ranker off) and records, for the first pass's anchors, pipeline.anchor_rank.anchor_features and whether the
sentence is the gold evidence's (the normalised sentence holds the evidence's first 15 characters, or lies
inside the evidence). scripts/train_anchor_ranker.py trains on the rows.

usage: scripts/anchor_data.py --db STORE --sets NAME,NAME --out ROWS.jsonl [--max-anchors N] [--text]
(--text also keeps the question and each sentence, so that a new feature can be tried on the rows without asking again)
Never give it a sealed set that has not been scored (scripts/eval_sets.py SCORED_SEALED).
"""
import argparse
import json
import re
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from eval_sets import set_path  # noqa: E402
from pipeline import KnowledgeBase  # noqa: E402
from pipeline.anchor_rank import anchor_features  # noqa: E402
from pipeline.orchestrator import AskSettings, Orchestrator  # noqa: E402


def norm(s: str) -> str:
    return re.sub(r"\s", "", unicodedata.normalize("NFKC", s or ""))


def is_gold(sentence: str, gold: str) -> bool:
    t = norm(sentence)
    return bool(t) and (gold[:15] in t or (len(t) >= 6 and t in gold) or t[:15] in gold)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--sets", required=True, help="set names (scripts/eval_sets.py), comma-separated")
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-anchors", type=int, default=AskSettings().max_anchors,
                    help="stage 2's anchors per question (AskSettings.max_anchors)")
    ap.add_argument("--text", action="store_true", help="keep the question and each anchor's sentence in the rows")
    args = ap.parse_args()
    seen: dict = {}
    orig = Orchestrator._anchors

    def hook(self, query, cands):
        anchors = orig(self, query, cands)
        if "rows" not in seen:  # the first pass only (not the loop's retries or a comparison's parts)
            seen["rows"] = [(a.sentence.text, f) for a, f in zip(anchors, anchor_features(query, cands, anchors))]
            seen["qtype"] = query.qtype
        return anchors

    Orchestrator._anchors = hook
    kb = KnowledgeBase(args.db, create=False, audit_log=None, settings=AskSettings(anchor_ranker="", max_anchors=args.max_anchors))
    with open(args.out, "w", encoding="utf-8") as out:
        for name in args.sets.split(","):
            for line in open(set_path(name), encoding="utf-8"):
                q = json.loads(line)
                if not q.get("answerable", True) or not isinstance(q.get("evidence"), str) or not q["evidence"]:
                    continue
                seen.clear()
                kb.ask(q["question"], id=q["id"])
                gold = norm(q["evidence"])
                anchors = [dict(f, gold=is_gold(text, gold), **({"text": text} if args.text else {}))
                           for text, f in seen.get("rows", [])]
                row = {"set": name, "id": q["id"], "qtype": seen.get("qtype"), "anchors": anchors}
                if args.text:
                    row["question"] = q["question"]
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
            print(name, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
