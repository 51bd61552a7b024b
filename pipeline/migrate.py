"""`loopagent migrate --from kb.sqlite --to postgresql://…`: copy a SQLite store into PostgreSQL.

Every current document is written in its own transaction (the usual ``put_document``), keeping
block row ids when the target is empty; superseded versions, their blocks and the feedback rows
follow, then the stored sentence parses. Running it again replaces documents whose content changed and skips the rest.
"""
from __future__ import annotations

import sys
import time
from typing import Any

from .pgstore import PostgresStore, is_url
from .store import Store
from .types import Document


def migrate(src: Store, dst: PostgresStore, log: Any = None) -> dict[str, int]:
    """Copy documents, versions and feedback from ``src`` into ``dst``; returns counts."""
    t0 = time.perf_counter()
    keep_rids = dst.stats()["blocks"] == 0
    out = {"documents": 0, "skipped": 0, "blocks": 0, "versions": 0, "feedback": 0}
    c = src.conn()
    for d in src.documents():
        if dst.document_hash(d["source"]) == d["content_hash"]:
            out["skipped"] += 1
            continue
        blocks = src.doc_blocks(d["doc_id"])
        rids = [r[0] for r in c.execute("SELECT rid FROM blocks WHERE doc_id=? ORDER BY ord", (d["doc_id"],))]
        doc = Document(doc_id=d["doc_id"], title=d["title"], source=d["source"], kind=d["kind"],
                       content_hash=d["content_hash"], version_date=d["version_date"],
                       effective_date=d["effective_date"], meta=d["meta"], blocks=blocks)
        dst.put_document(doc, collection=d["collection"], rids=rids if keep_rids else None)
        out["documents"] += 1
        out["blocks"] += len(blocks)
        if log:
            print(f"copied {d['source']} ({len(blocks)} blocks)", file=log)
    with dst.pool.connection() as pc:
        with pc.transaction():
            if keep_rids:
                pc.execute("SELECT setval(pg_get_serial_sequence('blocks', 'rid'), "
                           "GREATEST((SELECT coalesce(max(rid), 0) FROM blocks), 1))")
            vers = c.execute("SELECT * FROM doc_versions").fetchall()
            with pc.cursor() as cur:
                cur.executemany("INSERT INTO doc_versions VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) "
                                "ON CONFLICT DO NOTHING", [tuple(r) for r in vers])
                cur.executemany("INSERT INTO block_history VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) "
                                "ON CONFLICT DO NOTHING",
                                [tuple(r) for r in c.execute("SELECT * FROM block_history")])
                have = {(r[0], r[1], r[2]) for r in pc.execute("SELECT trace_id, verdict, created_at FROM feedback")}
                fb = [r for r in c.execute("SELECT trace_id, verdict, expected, note, created_at FROM feedback ORDER BY id")
                      if (r[0], r[1], r[4]) not in have]
                cur.executemany("INSERT INTO feedback(trace_id, verdict, expected, note, created_at) "
                                "VALUES (%s,%s,%s,%s,%s)", [tuple(r) for r in fb])
            out["versions"], out["feedback"] = len(vers), len(fb)
    version = src.get_meta("parse_version")
    parses = c.execute("SELECT key, data FROM parses").fetchall() if version else []
    out["parses"] = dst.put_parses(version, [(bytes(k), bytes(d)) for k, d in parses]) if parses else 0
    dst.invalidate()
    out["seconds"] = round(time.perf_counter() - t0, 2)
    return out


def cmd_migrate(args) -> int:
    if not is_url(args.to) or is_url(args.source):
        print("migrate copies a SQLite file into PostgreSQL: --from kb.sqlite --to postgresql://user@host/db",
              file=sys.stderr)
        return 2
    src = Store(args.source, create=False)
    dst = PostgresStore(args.to, create=True)
    out = migrate(src, dst, log=sys.stderr if args.verbose else None)
    st = dst.stats()
    print(f"migrated {out['documents']} documents ({out['blocks']} blocks), skipped {out['skipped']} unchanged, "
          f"{out['versions']} superseded versions, {out['feedback']} feedback rows, {out['parses']} parses "
          f"in {out['seconds']} s; "
          f"target {st['documents']} docs, {st['blocks']} blocks")
    return 0


def add_subparser(sub) -> None:
    sp = sub.add_parser("migrate", help="copy a SQLite store into PostgreSQL")
    sp.add_argument("--from", dest="source", required=True, help="SQLite store file")
    sp.add_argument("--to", required=True, help="postgresql://user@host:port/db")
    sp.add_argument("-v", "--verbose", action="store_true")
    sp.set_defaults(func=cmd_migrate)
