#!/usr/bin/env python3
"""Score question sets over a store built once: dev, the fresh sets, or any JSONL set.

usage: scripts/eval_sets.py [--db /tmp/loopagent-dev.sqlite] [--docs DIR] [--sets dev,set1,...]
                            [--rows OUT.jsonl] [--verifier on|off]
Set names: ``dev`` (../shared/eval/dev/questions.jsonl), ``set1``..``set4`` (tests/data/fresh), or a path.
Dev and the fresh sets are training data; sealed sets are scored with scripts/score_sealed.py, once.
"""
import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline import KnowledgeBase  # noqa: E402
from pipeline.evaluate.score import score, summary  # noqa: E402
from pipeline.orchestrator import AskSettings  # noqa: E402

SHARED = ROOT.parent / "shared" / "eval"


# sealed sets scored once (docs/benchmarks.md) are training data from then on; a set not listed here has not
# been scored and is never read (scripts/score_sealed.py scores it, once)
SCORED_SEALED = tuple(f"s{i}" for i in (*range(1, 37), *range(39, 264)))  # s37, s38: practice p4, p5
# the sets over the dev corpus; every other named set is asked against the training corpus's store (--train-db)
DEV_CORPUS = ("dev", "set1", "set2", "set3", "set4")


def set_path(name: str) -> Path:
    if name == "dev":
        return SHARED / "dev" / "questions.jsonl"
    if name.startswith("set") or name == "other1":
        return ROOT / "tests" / "data" / "fresh" / f"{name}.jsonl"
    if name in SCORED_SEALED:
        return ROOT / "tests" / "data" / "sealed" / name / "questions.jsonl"
    if (ROOT / "tests" / "data" / "practice" / name).is_dir():
        return ROOT / "tests" / "data" / "practice" / name / "questions.jsonl"
    return Path(name)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--db", default="/tmp/loopagent-dev.sqlite")
    p.add_argument("--docs", default=str(SHARED / "dev" / "docs"))
    p.add_argument("--sets", default="dev,set1,set2,set3,set4")
    p.add_argument("--rows", help="write per-question rows (training sets only)")
    p.add_argument("--no-ingest", action="store_true", help="the store is already built")
    p.add_argument("--train-db", help="a store of all of ../shared/eval/train (built beforehand): the named sets "
                   "outside the dev corpus (other1, p2, p3, the scored sealed sets s1-s10) are asked against it")
    p.add_argument("--verifier", choices=["on", "off"], help="the trained verifier instead of the coverage bars "
                   "(default: AskSettings' default)")
    p.add_argument("--gate", choices=["trained", "rules"], default="trained",
                   help="under the coverage bar: the trained gate (models/gate, the default) or the rules")
    p.add_argument("--embed", choices=["off", "static", "e5"],
                   help="embeddings in stages 1-2 (default: the KnowledgeBase default, off)")
    p.add_argument("--rerank", choices=["on", "off"],
                   help="stage 1's candidates re-ranked by full e5 (default: AskSettings' default, on)")
    args = p.parse_args()
    if not Path(args.docs).is_dir():
        print(f"documents not found: {args.docs} (needs ../shared)", file=sys.stderr)
        return 2
    opts = {}
    if args.verifier:
        opts["verifier"] = args.verifier == "on"
    if args.gate == "rules":
        opts["gate_weights"] = ""
    if args.rerank:
        opts["rerank"] = args.rerank == "on"
    settings = AskSettings(**opts) if opts else None
    emb = {"embed": args.embed} if args.embed else {}
    kb = KnowledgeBase(args.db, settings=settings, **emb)
    if not args.no_ingest:
        kb.ingest([args.docs])
    rows_out = open(args.rows, "w", encoding="utf-8") if args.rows else None
    train_kb = KnowledgeBase(args.train_db, settings=settings, create=False, **emb) if args.train_db else None
    right = wrong = total = 0
    for name in args.sets.split(","):
        if name.startswith("s") and name[1:].isdigit() and name not in SCORED_SEALED:
            print(f"{name}: a sealed set not yet scored is scored once with scripts/score_sealed.py", file=sys.stderr)
            return 2
        qs = [json.loads(line) for line in open(set_path(name), encoding="utf-8") if line.strip()]
        on = train_kb if train_kb is not None and name not in DEV_CORPUS else kb
        answers = [on.ask(q["question"], id=q["id"]).to_dict() for q in qs]
        rows = score(qs, answers)
        s = summary(rows)
        print(f"{name}: n {len(qs)} accuracy {s['accuracy']:.3f}, paraphrase {s['paraphrase_accuracy']:.3f}, "
              f"wrong {s['wrong_answer_rate']:.3f}, not_found on unanswerable {s['not_found_on_unanswerable']:.2f}, "
              f"p50 {s['reported_ms_p50']} ms", flush=True)
        right += sum(r["correct"] and r["evidence_ok"] and r["answerable"] for r in rows)
        wrong += sum(r["wrong"] for r in rows)
        total += len(rows)
        if rows_out:
            for q, a, r in zip(qs, answers, rows):
                rows_out.write(json.dumps({"set": name, "q": q, "a": {k: a.get(k) for k in (
                    "status", "answer", "value", "method", "confidence")},
                    "sources": [e.get("source") for e in a.get("evidence") or []], "row": r},
                    ensure_ascii=False) + "\n")
    print(f"all {total}: right {right}, wrong {wrong}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
