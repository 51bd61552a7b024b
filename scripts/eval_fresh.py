#!/usr/bin/env python3
"""Score the fresh question sets (tests/data/fresh/set*.jsonl) over the dev documents.

usage: scripts/eval_fresh.py [--db /tmp/fresh.sqlite] [--docs ../shared/eval/dev/docs] [--sets set4]
Needs ../shared (the documents are not in the repository); prints one line per set.
"""
import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline import KnowledgeBase  # noqa: E402
from pipeline.evaluate.score import score, summary  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--db", default="/tmp/loopagent-fresh.sqlite")
    p.add_argument("--docs", default=str(ROOT.parent / "shared" / "eval" / "dev" / "docs"))
    p.add_argument("--sets", default="set1,set2,set3,set4")
    args = p.parse_args()
    if not Path(args.docs).is_dir():
        print(f"documents not found: {args.docs} (the fresh sets need ../shared)", file=sys.stderr)
        return 2
    kb = KnowledgeBase(args.db)
    kb.ingest([args.docs])
    for name in args.sets.split(","):
        qs = [json.loads(line) for line in open(ROOT / "tests" / "data" / "fresh" / f"{name}.jsonl", encoding="utf-8")]
        answers = [kb.ask(q["question"], id=q["id"]).to_dict() for q in qs]
        s = summary(score(qs, answers))
        print(f"{name}: accuracy {s['accuracy']:.3f}, paraphrase {s['paraphrase_accuracy']:.3f}, "
              f"wrong {s['wrong_answer_rate']:.3f}, not_found on unanswerable {s['not_found_on_unanswerable']:.2f}, "
              f"p50 {s['reported_ms_p50']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
