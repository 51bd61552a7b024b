#!/usr/bin/env python3
"""Score the sealed question sets (tests/data/sealed/*) ONCE and append the figures to docs/benchmarks.md.

Sealed sets were written by helpers that saw only the documents and QUESTION_FORMAT.md. This script
prints aggregate figures only (never a question, an answer or a per-question row), so that nobody reads
a sealed set's misses: after scoring, a set counts as read-once and a new set must be written for the
next measurement.

usage: scripts/score_sealed.py --sets s1,s2,s3,s4 [--parser on,off] [--rules-gate] [--gate-curve] [--record]
Each set's store holds the whole scope its README names (the documents plus their neighbours). A set that brings its
own documents (tests/data/sealed/NAME/docs/) is scored against a copy of its scope's store with them added.
"""
import argparse
import datetime
import json
import sqlite3
import sys
import time
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline import KnowledgeBase  # noqa: E402
from pipeline.evaluate.score import score, summary  # noqa: E402

TRAIN = ROOT.parent / "shared" / "eval" / "train"
# the store each set is scored against: its scope folders (distractors included). Every set since s11 is drawn from
# the whole training corpus (WHOLE); the first ones, and s10, from part of it
WHOLE = ["other", "docs/刑法", "docs/诉讼与非诉讼程序法", "docs/宪法相关法", "docs/地方性法规"]
SCOPES = {
    "s1": ["other"], "s2": ["other"],
    "s3": ["docs/刑法", "docs/诉讼与非诉讼程序法", "docs/宪法相关法"],
    "s4": ["docs/地方性法规"],
    "s5": ["other"], "s6": ["docs/地方性法规"],
    "s7": ["docs/刑法", "docs/诉讼与非诉讼程序法", "docs/宪法相关法"],
    "s10": ["other"],
}


def scope(name: str) -> list[str]:
    """The scope folders of sealed set ``name``."""
    return SCOPES.get(name, WHOLE)


def own_docs(name: str) -> Optional[Path]:
    """The documents a set brings itself (``tests/data/sealed/NAME/docs/``: kinds the training corpus has no unused
    document of, written by the set's helper), or None. Such a set is scored against its scope's store with its own
    documents added, so the training corpus stands beside them as distractors."""
    d = ROOT / "tests" / "data" / "sealed" / name / "docs"
    return d if d.is_dir() else None


def store_for(name: str, dbdir: Path) -> Path:
    """The store set ``name`` is scored against, brought up to date: its scope folders, plus its own documents in
    a store of its own, copied from the scope's store when that one exists (its stored parses and e5 vectors
    come along)."""
    base = dbdir / f"{'_'.join(s.replace('/', '-') for s in scope(name))}.sqlite"
    own = own_docs(name)
    if own is None:
        KnowledgeBase(base).ingest([TRAIN / s for s in scope(name)])
        return base
    db = dbdir / f"{base.stem}+{name}.sqlite"
    if not db.exists() and base.exists():
        src, dst = sqlite3.connect(base), sqlite3.connect(db)
        with dst:
            src.backup(dst)  # a consistent copy, WAL included
        src.close()
        dst.close()
    KnowledgeBase(db).ingest([TRAIN / s for s in scope(name)] + [own])
    return db


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="s1,s2,s3,s4")
    ap.add_argument("--parser", default="on", help="on, off or on,off")
    ap.add_argument("--dbdir", default="/tmp/loopagent-sealed")
    ap.add_argument("--verifier", action="store_true", help="also score with the trained verifier instead of the bars")
    ap.add_argument("--gate-curve", action="store_true",
                    help="also print accuracy / wrong-answer rate as the trained gate's threshold moves (GATE_BARS)")
    ap.add_argument("--rules-gate", action="store_true",
                    help="also score with the rules under the coverage bar instead of the trained gate")
    ap.add_argument("--curve", action="store_true",
                    help="also print accuracy and wrong-answer rate as the coverage bar moves (one record-mode pass)")
    ap.add_argument("--record", action="store_true", help="append the figures to docs/benchmarks.md")
    args = ap.parse_args()
    if not TRAIN.is_dir():
        print(f"documents not found: {TRAIN} (needs ../shared)", file=sys.stderr)
        return 2
    from pipeline.orchestrator import AskSettings
    Path(args.dbdir).mkdir(parents=True, exist_ok=True)
    lines = []
    curves: list[str] = []
    gate_curves: list[str] = []
    for name in args.sets.split(","):
        qs = [json.loads(x) for x in open(ROOT / "tests" / "data" / "sealed" / name / "questions.jsonl",
                                          encoding="utf-8") if x.strip()]
        for q in qs:  # the set names documents relative to train/; the scorer compares evidence only
            q.setdefault("doc", "")
        t = time.perf_counter()
        db = store_for(name, Path(args.dbdir))
        ingest_s = time.perf_counter() - t
        modes = [f"parser {m}" for m in args.parser.split(",")] + (["verifier"] if args.verifier else []) + \
            (["rules gate"] if args.rules_gate else [])
        for mode in modes:
            kb = KnowledgeBase(db, settings=AskSettings(use_parser=(mode != "parser off"),
                                                        verifier=(mode == "verifier"),
                                                        **({"gate_weights": ""} if mode == "rules gate" else {})))
            answers = [kb.ask(q["question"], id=q["id"]).to_dict() for q in qs]
            s = summary(score(qs, answers))
            line = (f"| {datetime.date.today()} | {name} | {mode} | {len(qs)} | {s['accuracy']:.3f} | "
                    f"{s['paraphrase_accuracy']:.3f} | {s['wrong_answer_rate']:.3f} | "
                    f"{s['not_found_on_unanswerable']:.2f} | {s['reported_ms_p50']} | {ingest_s:.0f} s |")
            print(line, flush=True)
            lines.append(line)
        if args.curve:
            curves.append(_curve(name, db, qs))
            print(curves[-1], flush=True)
        if args.gate_curve:
            gate_curves.append(_gate_curve(name, db, qs))
            print(gate_curves[-1], flush=True)
    if args.record:  # rows go at the end of the sealed-set table
        page = ROOT / "docs" / "benchmarks.md"
        text = page.read_text(encoding="utf-8").split("\n")
        i = next(k for k, x in enumerate(text) if x.startswith("| date | set | mode |")) + 2
        while i < len(text) and text[i].startswith("|"):
            i += 1
        text = text[:i] + lines + text[i:]
        if gate_curves:  # the trained gate's curves: their own table
            j = next(k for k, x in enumerate(text) if x.startswith("| date | set | gate 0.5 |")) + 2
            while j < len(text) and text[j].startswith("|"):
                j += 1
            text = text[:j] + gate_curves + text[j:]
        if curves:  # the precision-coverage curves go in their own table after the sealed-set one
            j = next(k for k, x in enumerate(text) if x.startswith("| date | set | bar 0.5 |")) + 2
            while j < len(text) and text[j].startswith("|"):
                j += 1
            text = text[:j] + curves + text[j:]
        page.write_text("\n".join(text), encoding="utf-8")
    return 0


BARS = (0.5, 0.6, 0.7, 0.8, 0.9)
GATE_BARS = (0.5, 0.6, 0.65, 0.7, 0.8, 0.9)


def _gate_curve(name: str, db: Path, qs: list[dict]) -> str:
    """Accuracy / wrong-answer rate of the whole set with the trained gate's threshold at each of GATE_BARS
    (a pass each; aggregates only), then with the rules under the bar."""
    from pipeline.orchestrator import AskSettings

    cells = []
    for bar in GATE_BARS + (None,):
        settings = AskSettings(gate_threshold=bar) if bar is not None else AskSettings(gate_weights="")
        kb = KnowledgeBase(db, settings=settings, audit_log=None)
        s = summary(score(qs, [kb.ask(q["question"], id=q["id"]).to_dict() for q in qs]))
        cells.append(f"{s['accuracy']:.3f} / {s['wrong_answer_rate']:.3f}")
    return f"| {datetime.date.today()} | {name} | " + " | ".join(cells) + " |"


def _curve(name: str, db: Path, qs: list[dict]) -> str:
    """One pass in record mode (every extraction that passed the hard checks is let through, with its
    coverage), then accuracy / wrong-answer rate of the whole set as if the coverage bar were each of BARS.
    Accuracy over the answerable questions, wrong answers over all, as summary() counts them. Aggregates
    only; `bar` is today's decision (the 0.7 bar with its situational-question rule)."""
    from pipeline.orchestrator import AskSettings

    kb = KnowledgeBase(db, settings=AskSettings(record=True), audit_log=None)
    orch = kb.orchestrator
    seen = []
    for q in qs:
        orch.records.clear()
        a = kb.ask(q["question"], id=q["id"]).to_dict()
        r = score([q], [a])[0]
        rec = orch.records[-1] if orch.records else None
        right = bool(r["correct"] and r["evidence_ok"]) and r["answerable"]
        seen.append((rec and rec["features"]["coverage"], rec and rec["bar"], right, r["wrong"], a["status"]))
    n = len(qs)
    answerable = max(1, sum(1 for q in qs if q.get("answerable", True)))
    cells = []
    for bar in BARS + ("bar",):
        right = wrong = 0
        for cov, today, ok, wr, status in seen:
            if cov is None:  # no coverage decision (exact or refused earlier): as answered
                right += ok
                wrong += wr
            elif (today if bar == "bar" else cov >= bar):
                right += ok
                wrong += wr
        cells.append(f"{right / answerable:.3f} / {wrong / n:.3f}")  # as summary(): accuracy over answerable
    return f"| {datetime.date.today()} | {name} | " + " | ".join(cells) + " |"


if __name__ == "__main__":
    sys.exit(main())
