#!/usr/bin/env python3
"""The loop on and off over one store: accuracy, wrong-answer rate, and how many steps the loop took.

usage: scripts/eval_loop.py [--db /tmp/loopagent-dev.sqlite] [--docs DIR] [--set dev|PATH] [--steps 3] [--no-ingest]
The loop must never lower accuracy or raise the wrong-answer rate (pipeline/loop.py).
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


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--db", default="/tmp/loopagent-dev.sqlite")
    p.add_argument("--docs", default=str(SHARED / "dev" / "docs"))
    p.add_argument("--set", default="dev")
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--no-ingest", action="store_true", help="the store is already built")
    args = p.parse_args()
    path = SHARED / "dev" / "questions.jsonl" if args.set == "dev" else Path(args.set)
    if not path.exists():
        print(f"question set not found: {path} (needs ../shared)", file=sys.stderr)
        return 2
    qs = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    if not args.no_ingest:
        KnowledgeBase(args.db).ingest([args.docs])
    for steps in (1, args.steps):
        kb = KnowledgeBase(args.db, settings=AskSettings(loop_steps=steps))
        answers = [kb.ask(q["question"], id=q["id"]).to_dict() for q in qs]
        s = summary(score(qs, answers))
        looped = [sum(1 for r in a["reasoning"] if r.startswith("循环：")) for a in answers]
        ran = [n for n in looped if n]
        rescued = sum(1 for a in answers if any(r.startswith("循环：") and "命中" in r for r in a["reasoning"]))
        print(f"loop_steps={steps}: n {len(qs)} accuracy {s['accuracy']:.3f}, wrong {s['wrong_answer_rate']:.3f}, "
              f"not_found on unanswerable {s['not_found_on_unanswerable']:.2f}; loop ran on {len(ran)} questions, "
              f"average extra steps {sum(ran) / max(1, len(ran)):.2f} (all questions: {sum(looped) / len(qs):.2f}), "
              f"answered by a retry {rescued}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
