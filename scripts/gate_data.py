#!/usr/bin/env python3
"""Collect the gate's decisions on TRAINING questions, with their features and labels, for the rescue model.

For every extraction the gate (Orchestrator._gate) looks at, this records what the gate decided and why
(accepted by the coverage bar, accepted by a rule under the bar, refused under the bar, refused for a named
word / place / grounding), the verifier's features (pipeline/verify.extract_features), full e5's cosine of
question and evidence and of the best other stage-2 sentence, and the label: whether the extraction, had it
been the answer, would be scored right (pipeline.evaluate.score, value and evidence). The rules decide under
the bar (AskSettings(gate_weights="")): the rows are what scripts/train_gate.py replays.

usage: scripts/gate_data.py --db STORE --sets A.jsonl,B.jsonl --out ROWS.jsonl [--ranker-folds DIR] [--text]

--ranker-folds DIR: stage 2's anchors of each question are ordered by DIR/fold_K.json, the anchor ranker trained
without the documents of the question's fold K (scripts/train_anchor_ranker.py --fold-models DIR): cross-fitted, so
that the anchors are ordered as a new question's are, not by a ranker that has seen the question (an honest
held-out estimate of the gate).
--text keeps each extraction's question, answer and evidence in the rows.
Never give it a sealed set that has not been scored (scripts/eval_sets.py SCORED_SEALED).
"""
import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline import KnowledgeBase  # noqa: E402
from pipeline.anchor_rank import AnchorRanker  # noqa: E402
from pipeline.evaluate.score import score  # noqa: E402
from pipeline.orchestrator import AskSettings, Orchestrator, _evidence  # noqa: E402
from pipeline.rescue import gate_features  # noqa: E402

CURRENT: list[dict] = []


def _wrap() -> None:
    orig = Orchestrator._gate

    def gate(self, query, found, strict, trace_obj, anchors=None):
        ok = orig(self, query, found, strict, trace_obj, anchors)
        why = query.reasons[-1] if not ok and query.reasons else ""
        if ok:
            how = "rule" if any(r.startswith(("情境式提问", "是非问题", "关键词覆盖")) for r in found.reasons) else "bar"
            decision = "accept_" + how
        elif found.refused:
            decision = "refuse_" + found.refused
        elif "覆盖" in why:
            decision = "refuse_cover"
        else:
            decision = "refuse_other"
        # full e5 wherever the trained gate decides: under the coverage bar and above it (as at run time)
        feats = gate_features(self, query, found, anchors or []) \
            if not strict else None
        ev = [{"text": e.text} for e in _evidence(found)]
        CURRENT.append({"decision": decision, "features": feats, "doc_ids": strict,
                        "answer": {"status": "answered", "answer": found.answer, "value": found.value,
                                   "evidence": ev}, "method": found.method, "qtype": query.qtype})
        return ok

    Orchestrator._gate = gate
    # a question that asks twice is answered whole here: one ask's extraction, labelled against both asks'
    # values, would read as wrong (the parts' own gate decisions are those of one-ask questions)
    Orchestrator._multipart = lambda self, *args, **kwargs: None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--sets", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ranker-folds", help="the anchor ranker's fold models (cross-fitted anchors)")
    ap.add_argument("--text", action="store_true", help="keep question, answer and evidence in the rows")
    args = ap.parse_args()
    _wrap()
    kb = KnowledgeBase(args.db, create=False, settings=AskSettings(gate_weights="", near_by_rules=True))  # the rules decide, near readings too
    rankers = {}
    if args.ranker_folds:
        sys.path.insert(0, str(ROOT / "scripts"))
        from train_gate import doc_fold, question_doc  # noqa: E402
        weight = kb.orchestrator.settings.anchor_weight
        rankers = {k: AnchorRanker.load(Path(args.ranker_folds) / f"fold_{k}.json", weight) for k in range(10)}
        if any(r is None for r in rankers.values()):
            ap.error(f"--ranker-folds: {args.ranker_folds} lacks fold_0.json … fold_9.json")
    out = open(args.out, "w", encoding="utf-8")
    for path in args.sets.split(","):
        name = Path(path).parent.name if Path(path).name == "questions.jsonl" else Path(path).stem
        qs = [json.loads(x) for x in open(path, encoding="utf-8") if x.strip()]
        for q in qs:
            CURRENT.clear()
            if rankers:
                kb.orchestrator.anchor_ranker = rankers[doc_fold(question_doc(q, name))]
            a = kb.ask(q["question"], id=q["id"]).to_dict()
            final = score([q], [a])[0]
            gates = []
            for g in CURRENT:
                r = score([q], [dict(g["answer"], id=q["id"])])[0]
                g["right"] = bool(r["correct"] and r["evidence_ok"])
                g["wrong"] = bool(r["wrong"])
                if args.text:
                    g["q"] = q["question"]
                else:
                    g.pop("answer")
                gates.append(g)
            out.write(json.dumps({"set": name, "id": q["id"], "type": q.get("type"),
                                  "paraphrase": bool(q.get("paraphrase")), "answerable": q.get("answerable", True),
                                  "final_right": bool(final["correct"] and final["evidence_ok"]),
                                  "final_wrong": bool(final["wrong"]), "status": a["status"], "gates": gates},
                                 ensure_ascii=False) + "\n")
            out.flush()
        print(name, len(qs), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
