#!/usr/bin/env python3
"""Which documents of ../shared/eval/train no question set has used yet: the pool for a sealed set on unseen documents.

Every question set in the repository (tests/data/**/questions.jsonl: practice, fresh and sealed sets, scored or not)
names the documents its questions are about. A document one of them names has been read while the code changed (or
will be, once the set is scored), so a set meant to measure generalisation to new documents must avoid it. This
prints, per group of the training corpus, how many documents there are and how many are still unused, and with
--exclusions FILE writes the used paths (relative to ../shared/eval/train/) of the folders given by --folder, the list a
helper writing such a set is told to avoid (it sees the list, never the questions).

usage: scripts/unused_docs.py [--folder docs/地方性法规] [--exclusions FILE]
"""
import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRAIN = ROOT.parent / "shared" / "eval" / "train"
SKIP = {"README.md", "SOURCES.md"}


def used_documents(root: Path = ROOT) -> set[str]:
    """The documents the repository's question sets name, as paths relative to the training corpus."""
    used: set[str] = set()
    for f in sorted((root / "tests" / "data").rglob("questions.jsonl")):
        for line in open(f, encoding="utf-8"):
            if line.strip():
                doc = json.loads(line).get("doc")
                used.update(d for d in (doc if isinstance(doc, list) else [doc]) if d)
    return used


def group(rel: str) -> str:
    return "/".join(rel.split("/")[:2])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folder", action="append", help="folder(s) of the training corpus the exclusion list covers "
                    "(default: all)")
    ap.add_argument("--exclusions", help="write the used paths of those folders here")
    args = ap.parse_args()
    if not TRAIN.is_dir():
        print(f"training corpus not found: {TRAIN} (needs ../shared)", file=sys.stderr)
        return 2
    used = used_documents()
    files = sorted(str(p.relative_to(TRAIN)) for p in TRAIN.rglob("*") if p.is_file() and p.name not in SKIP)
    is_used = {f: f in used or f.split("/", 1)[-1] in used for f in files}  # older sets name docs/… without docs/
    total, free = Counter(group(f) for f in files), Counter(group(f) for f in files if not is_used[f])
    for g in sorted(total):
        print(f"{g}: {total[g]} documents, {free[g]} unused")
    if args.exclusions:
        folders = tuple(f.rstrip("/") + "/" for f in args.folder or [""])
        out = [f for f in files if is_used[f] and f.startswith(folders)]
        Path(args.exclusions).write_text("\n".join(out) + "\n", encoding="utf-8")
        print(f"wrote {len(out)} used paths to {args.exclusions}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
