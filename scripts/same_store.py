#!/usr/bin/env python3
"""Whether two SQLite stores hold the same content (ingest timestamps aside); prints the differences.

usage: scripts/same_store.py A.sqlite B.sqlite

Compares every table of the store row by row: documents and their versions (``ingested_at`` and
``superseded_at`` left out: they are clock times), blocks with every column and row id, the
FTS5 rows (row id, text, section and title tokens), the FTS5 vocabulary (term, blocks, occurrences),
meta, parses and feedback. Exit status 0 when they are the same, 1 when not (the first
differences are printed), 2 on a bad argument. ``stores_differ`` is the same check for tests.
"""
from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

# table -> (columns, order); clock columns are left out
TABLES = {
    "meta": ("key, value", "key"),
    "documents": ("doc_id, source, title, kind, content_hash, version_date, effective_date, collection, meta, "
                  "n_blocks", "doc_id"),
    "blocks": ("rid, block_id, doc_id, ord, type, text, section, clause, page_start, page_end, bbox, "
               "table_header, table_rows, meta", "rid"),
    "blocks_fts": ("rowid, text, section, title", "rowid"),
    "blocks_vocab": ("term, doc, cnt", "term"),
    "doc_versions": ("doc_id, content_hash, source, title, kind, version_date, effective_date, collection, meta, "
                     "n_blocks, superseded_by", "doc_id, content_hash"),
    "block_history": ("block_id, doc_id, content_hash, ord, type, text, section, clause, page_start, page_end, "
                      "bbox, table_header, table_rows, meta", "block_id, content_hash"),
    "parses": ("key, data", "key"),
    "feedback": ("trace_id, verdict, expected, note", "id"),
}


def _rows(db: str | Path, table: str) -> list[tuple[Any, ...]]:
    cols, order = TABLES[table]
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return c.execute(f"SELECT {cols} FROM {table} ORDER BY {order}").fetchall()
    finally:
        c.close()


def stores_differ(a: str | Path, b: str | Path, show: int = 5) -> list[str]:
    """The differences between two stores, table by table (empty when they hold the same content)."""
    out: list[str] = []
    for table in TABLES:
        ra, rb = _rows(a, table), _rows(b, table)
        if ra == rb:
            continue
        out.append(f"{table}: {len(ra)} rows vs {len(rb)}")
        sa, sb = set(ra), set(rb)
        for r in [r for r in ra if r not in sb][:show]:
            out.append(f"  only in A: {str(r)[:300]}")
        for r in [r for r in rb if r not in sa][:show]:
            out.append(f"  only in B: {str(r)[:300]}")
        if sa == sb:
            out.append("  same rows, in another order")
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    for p in args:
        if not Path(p).is_file():
            print(f"{p}: no such store", file=sys.stderr)
            return 2
    diff = stores_differ(*args)
    if diff:
        print("\n".join(diff))
        return 1
    counts = {t: len(_rows(args[0], t)) for t in ("documents", "blocks", "blocks_fts", "blocks_vocab")}
    print("same content: " + ", ".join(f"{t} {n}" for t, n in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
