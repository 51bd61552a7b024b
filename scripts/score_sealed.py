#!/usr/bin/env python3
"""Score the sealed question sets (tests/data/sealed/*) ONCE and append the figures to docs/benchmarks.md.

Sealed sets were written by helpers that saw only the documents and QUESTION_FORMAT.md. This script
prints aggregate figures only (never a question, an answer or a per-question row), so that nobody reads
a sealed set's misses: after scoring, a set counts as read-once and a new set must be written for the
next measurement.

usage: scripts/score_sealed.py --sets s1,s2,s3,s4 [--parser on,off] [--record]
Each set's store holds the whole scope its README names (the documents plus their neighbours).
"""
import argparse
import datetime
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline import KnowledgeBase  # noqa: E402
from pipeline.evaluate.score import score, summary  # noqa: E402

TRAIN = ROOT.parent / "shared" / "eval" / "train"
SCOPES = {  # the store each set is scored against: its scope folders (distractors included)
    "s1": ["other"], "s2": ["other"],
    "s3": ["docs/刑法", "docs/诉讼与非诉讼程序法", "docs/宪法相关法"],
    "s4": ["docs/地方性法规"],
    "s5": ["other"], "s6": ["docs/地方性法规"],
    "s7": ["docs/刑法", "docs/诉讼与非诉讼程序法", "docs/宪法相关法"],
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="s1,s2,s3,s4")
    ap.add_argument("--parser", default="on", help="on, off or on,off")
    ap.add_argument("--dbdir", default="/tmp/loopagent-sealed")
    ap.add_argument("--record", action="store_true", help="append the figures to docs/benchmarks.md")
    args = ap.parse_args()
    if not TRAIN.is_dir():
        print(f"documents not found: {TRAIN} (needs ../shared)", file=sys.stderr)
        return 2
    from pipeline.orchestrator import AskSettings
    Path(args.dbdir).mkdir(parents=True, exist_ok=True)
    lines = []
    for name in args.sets.split(","):
        qs = [json.loads(x) for x in open(ROOT / "tests" / "data" / "sealed" / name / "questions.jsonl",
                                          encoding="utf-8") if x.strip()]
        for q in qs:  # the set names documents relative to train/; the scorer compares evidence only
            q.setdefault("doc", "")
        db = Path(args.dbdir) / f"{'_'.join(s.replace('/', '-') for s in SCOPES[name])}.sqlite"
        t = time.perf_counter()
        KnowledgeBase(db).ingest([TRAIN / s for s in SCOPES[name]])
        ingest_s = time.perf_counter() - t
        for mode in args.parser.split(","):
            kb = KnowledgeBase(db, settings=AskSettings(use_parser=(mode == "on")))
            answers = [kb.ask(q["question"], id=q["id"]).to_dict() for q in qs]
            s = summary(score(qs, answers))
            line = (f"| {datetime.date.today()} | {name} | parser {mode} | {len(qs)} | {s['accuracy']:.3f} | "
                    f"{s['paraphrase_accuracy']:.3f} | {s['wrong_answer_rate']:.3f} | "
                    f"{s['not_found_on_unanswerable']:.2f} | {s['reported_ms_p50']} | {ingest_s:.0f} s |")
            print(line, flush=True)
            lines.append(line)
    if args.record:  # rows go at the end of the sealed-set table
        page = ROOT / "docs" / "benchmarks.md"
        text = page.read_text(encoding="utf-8").split("\n")
        i = next(k for k, x in enumerate(text) if x.startswith("| date | set | mode |")) + 2
        while i < len(text) and text[i].startswith("|"):
            i += 1
        page.write_text("\n".join(text[:i] + lines + text[i:]), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
