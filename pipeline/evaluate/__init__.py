"""Evaluation: dev-set accuracy against retrieval baselines, public-benchmark localisation, benchmarks.

``loopagent eval`` (via :func:`add_subparser`) and ``scripts/eval.py`` (via :func:`main`)
run :func:`pipeline.evaluate.runner.run_eval` and print the tables.
"""
from __future__ import annotations

import argparse
import sys
from typing import Optional

from .runner import SYSTEMS, format_tables, run_eval, write_json

__all__ = ["add_subparser", "main", "run_eval", "format_tables", "SYSTEMS"]


def _add_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--docs", required=True, help="document directory to ingest (unchanged files are skipped)")
    p.add_argument("--questions", required=True, help="gold questions (JSONL, ../shared/eval/QUESTION_FORMAT.md)")
    p.add_argument("--db", default="/tmp/loopagent-eval.sqlite", help="store to (re)use (default %(default)s)")
    p.add_argument("--out", help="write the full result (summaries, margins, per-question rows) as JSON here")
    p.add_argument("--systems", default=",".join(SYSTEMS),
                   help=f"comma-separated subset of {', '.join(SYSTEMS)} (default: all)")
    p.add_argument("--limit", type=int, help="only the first N questions")


def cmd_eval(args: argparse.Namespace) -> int:
    """Run the evaluation described by parsed arguments; prints Markdown tables."""
    from pathlib import Path

    for name in ("docs", "questions"):
        if not Path(getattr(args, name)).exists():
            print(f"error: --{name} {getattr(args, name)} does not exist", file=sys.stderr)
            return 2
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    try:
        res = run_eval(args.docs, args.questions, args.db, systems=systems, limit=args.limit)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(format_tables(res))
    if args.out:
        write_json(res, args.out)
        print(f"\nwrote {args.out}")
    return 0


def add_subparser(sub) -> argparse.ArgumentParser:
    """Register ``eval`` on the CLI's subparsers (``sub = parser.add_subparsers()``)."""
    sp = sub.add_parser("eval", help="score LoopAgent and retrieval baselines on a question set")
    _add_args(sp)
    sp.set_defaults(func=cmd_eval)
    return sp


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m pipeline.evaluate`` / scripts/eval.py entry point."""
    p = argparse.ArgumentParser(prog="eval", description="Score LoopAgent and retrieval baselines side by side.")
    _add_args(p)
    return cmd_eval(p.parse_args(argv))
