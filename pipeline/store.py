"""The embedded store: one SQLite file with documents, blocks and an FTS5 index over jieba tokens.

WAL mode lets readers keep answering while one writer ingests; each document is
replaced in one transaction, so an interrupted ingest leaves the previous state.
Connections are per thread.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import re
import os
import sqlite3
import threading
import time
import weakref
from collections import OrderedDict
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional

from .errors import LoopAgentError
from .tokenize import index_tokens
from .types import Block, Document

log = logging.getLogger("loopagent")

SCHEMA_VERSION = 3
SCORE_DECIMALS = 9  # BM25 scores are compared and returned at this precision (same ranking in every store)

# v2: superseded document versions and their blocks are kept (doc_versions, block_history);
# answer feedback lives in the store. v3: stage-2 sentence parses are persisted (parses).
# An older store is upgraded in place when opened (no existing row changes).
# a block's columns, the same in both stores and in the current and superseded-version tables
BLOCK_COLUMNS = """ord INTEGER NOT NULL,
    type TEXT NOT NULL,
    text TEXT NOT NULL,
    section TEXT NOT NULL,
    clause TEXT,
    page_start INTEGER,
    page_end INTEGER,
    bbox TEXT,
    table_header TEXT,
    table_rows TEXT,
    meta TEXT NOT NULL DEFAULT '{}'"""

_SCHEMA_V2 = """
CREATE TABLE IF NOT EXISTS doc_versions (
    doc_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    source TEXT NOT NULL,
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    version_date TEXT,
    effective_date TEXT,
    collection TEXT NOT NULL DEFAULT 'default',
    meta TEXT NOT NULL DEFAULT '{}',
    n_blocks INTEGER NOT NULL DEFAULT 0,
    ingested_at REAL NOT NULL,
    superseded_at REAL NOT NULL,
    superseded_by TEXT NOT NULL,
    PRIMARY KEY (doc_id, content_hash)
);
CREATE TABLE IF NOT EXISTS block_history (
    block_id TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    <BLOCK_COLUMNS>,
    PRIMARY KEY (block_id, content_hash)
);
CREATE TABLE IF NOT EXISTS feedback (
    id INTEGER PRIMARY KEY,
    trace_id TEXT NOT NULL,
    verdict TEXT NOT NULL,
    expected TEXT,
    note TEXT,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS feedback_trace ON feedback(trace_id);
""".replace("<BLOCK_COLUMNS>", BLOCK_COLUMNS)

# v3: one compact parse per (parser version, sentence text) key; see pipeline/syntax/parsed.py.
# The parser version the rows were made with is meta 'parse_version'; a writer with another
# version empties the table first (parses of an old model are never read: the key differs).
_SCHEMA_V3 = """
CREATE TABLE IF NOT EXISTS parses (key BLOB PRIMARY KEY, data BLOB NOT NULL) WITHOUT ROWID;
"""
PARSE_WRITE_TIMEOUT_MS = 200  # a parse write waits this long for another writer, then stays queued
PARSE_QUEUE_MAX = 20000       # queued parse rows beyond which new ones are dropped (parsed again later)
PARSE_BATCH = 256             # parses made while answering are written in batches of this many rows…
PARSE_FLUSH_SECONDS = 5.0     # …or when this long has passed since the last write (and on close / exit)
# parsed rows kept in memory per store (least recently used dropped; 0 turns a cache off). Both are emptied
# whenever the store's content changes (:attr:`Store.generation`). ~1 KB a block: 20000 blocks ≈ 20 MB.
BLOCK_CACHE_SIZE = 20000
DOC_CACHE_SIZE = 5000
# a search limited to documents reads those documents' row-id ranges from the index (FTS5 seeks them) when
# they make at most this many ranges; more, and the search joins with the blocks table instead
SEARCH_RANGES_MAX = 8
# ingest (Store.bulk): a write transaction commits after this many blocks or seconds, whichever comes first
BULK_BLOCKS = 20000
BULK_SECONDS = 2.0
# BM25 over the whole store from cached per-term postings (numpy) instead of FTS5's bm25(), which costs ~2 µs
# for every matching row (thousands for a question's OR of terms). Used from this many searches of a store
# generation on (a process that answers one question does not pay the set-up), for at most this many terms.
FAST_SEARCH_AFTER = 3
POSTINGS_CACHE_ROWS = 2_000_000  # (row id, summand) pairs kept, 16 bytes each (+64 a phrase): about 32 MB
TERM_CACHE_SIZE = 16384          # terms whose document frequency is kept

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY,
    source TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    version_date TEXT,
    effective_date TEXT,
    collection TEXT NOT NULL DEFAULT 'default',
    meta TEXT NOT NULL DEFAULT '{}',
    n_blocks INTEGER NOT NULL DEFAULT 0,
    ingested_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS blocks (
    rid INTEGER PRIMARY KEY,
    block_id TEXT NOT NULL UNIQUE,
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    <BLOCK_COLUMNS>
);
CREATE INDEX IF NOT EXISTS blocks_doc_ord ON blocks(doc_id, ord);
CREATE INDEX IF NOT EXISTS blocks_clause ON blocks(doc_id, clause);
CREATE VIRTUAL TABLE IF NOT EXISTS blocks_fts USING fts5(text, section, title, tokenize='unicode61');
CREATE VIRTUAL TABLE IF NOT EXISTS blocks_vocab USING fts5vocab(blocks_fts, 'row');
""".replace("<BLOCK_COLUMNS>", BLOCK_COLUMNS) + _SCHEMA_V2 + _SCHEMA_V3

_BLOCK_COLS = ("rid, block_id, doc_id, ord, type, text, section, clause, page_start, page_end, bbox, "
               "table_header, table_rows, meta")

_H_COLS = ", ".join(f"h.{c}" for c in _BLOCK_COLS[5:].split(", "))


def default_busy_timeout() -> float:
    """Seconds a store operation waits for another writer: $LOOPAGENT_BUSY_TIMEOUT, else 30."""
    try:
        return max(0.0, float(os.environ.get("LOOPAGENT_BUSY_TIMEOUT", "30")))
    except ValueError:
        return 30.0


def store_error(exc: BaseException, db: str | Path, busy_timeout: Optional[float] = None) -> LoopAgentError:
    """The coded store error (E106-E109, else E108) for an sqlite3 exception, with its next step."""
    text = str(exc)
    low = text.lower()
    path = Path(db)
    if "locked" in low or "busy" in low:
        return LoopAgentError("E106", db=str(db), seconds=round(busy_timeout if busy_timeout is not None
                                                                else default_busy_timeout(), 1))
    if "readonly" in low or "read-only" in low or (path.exists() and not os.access(path, os.W_OK)):
        return LoopAgentError("E107", db=str(db), detail=text)
    if path.exists() and not path.is_file():
        return LoopAgentError("E109", db=str(db), detail="it is a directory" if path.is_dir() else text)
    if "unable to open" in low and not os.access(path.parent if str(path.parent) else Path("."), os.W_OK):
        return LoopAgentError("E107", db=str(db), detail=f"{text}; its folder is not writable")
    return LoopAgentError("E108", db=str(db), detail=text)


class Store:
    """A LoopAgent SQLite store. Safe to share between threads (one connection per thread).

    ``busy_timeout`` (seconds, default $LOOPAGENT_BUSY_TIMEOUT or 30) is how long an operation
    waits for another process's write before E106. SQLite failures surface as coded errors:
    locked E106, read-only E107, damaged E108, not a file E109.
    """

    def __init__(self, db: str | Path, create: bool = True, busy_timeout: Optional[float] = None,
                 block_cache: int = BLOCK_CACHE_SIZE, doc_cache: int = DOC_CACHE_SIZE) -> None:
        self.path = Path(db)
        if block_cache < 0 or doc_cache < 0:
            raise ValueError("cache sizes must be >= 0")
        self._blocks = _LRU(block_cache)  # rid -> Block
        self._docs = _LRU(doc_cache)      # doc_id -> document row (copies handed out)
        self._ranges = _LRU(doc_cache)    # doc_id -> its blocks' row-id runs (searches limited to documents)
        self._postings = _LRU(POSTINGS_CACHE_ROWS)  # (phrase, weights) -> (row ids, BM25 summands)
        self._df = _LRU(TERM_CACHE_SIZE)           # term -> blocks holding it (doc_freq)
        self._searches = [-1, 0]          # [generation, searches seen]
        self.busy_timeout = default_busy_timeout() if busy_timeout is None else float(busy_timeout)
        self._local = threading.local()
        self._write_lock = threading.Lock()
        self._gen_lock = threading.Lock()
        self._generation = 0
        self._parse_queue: dict[bytes, tuple[str, bytes]] = {}  # parses waiting to be written
        self._parse_lock = threading.Lock()
        self._parse_flushed = time.monotonic()
        # what is still queued when the store is dropped without close(), or at exit, is written then
        weakref.finalize(self, _write_queued, str(self.path), self._parse_queue)
        if str(self.path) != ":memory:" and self.path.exists() and not self.path.is_file():
            raise LoopAgentError("E109", db=str(self.path), detail="it is a directory" if self.path.is_dir()
                                 else "not a regular file")
        if not self.path.exists() and not create:
            raise LoopAgentError("E105", db=str(self.path))
        if str(self.path) != ":memory:" and self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._init_schema()
        except sqlite3.Error as exc:
            raise store_error(exc, self.path, self.busy_timeout) from exc

    # --- connections ------------------------------------------------------
    def conn(self) -> sqlite3.Connection:
        c = getattr(self._local, "conn", None)
        if c is None:
            try:
                c = sqlite3.connect(str(self.path), timeout=self.busy_timeout, check_same_thread=False,
                                    isolation_level=None)
                c.row_factory = sqlite3.Row
                c.execute(f"PRAGMA busy_timeout={int(self.busy_timeout * 1000)}")
                c.execute("PRAGMA foreign_keys=ON")
            except sqlite3.Error as exc:
                raise store_error(exc, self.path, self.busy_timeout) from exc
            self._local.conn = c
            self._local.data_version = None
        return c

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """Every read inside sees one state of the store (a read transaction on this thread's connection)."""
        c = self.conn()
        if c.in_transaction:
            yield
            return
        # the generation before the read transaction starts: the snapshot holds at least its content, so
        # rows read in it may be cached under it (a later write moves the caches to a newer generation)
        self._local.snapshot_gen = self.generation
        c.execute("BEGIN")
        try:
            yield
        finally:
            self._local.snapshot_gen = None
            if c.in_transaction:
                c.execute("COMMIT")
            if self._parse_queue:
                self._flush_parses(force=False)  # parses made while answering: batched writes after the read

    def _cache_gen(self) -> Optional[int]:
        """The generation under which rows read now may be cached, or None (inside a write transaction)."""
        c = self.conn()
        if c.in_transaction:
            return getattr(self._local, "snapshot_gen", None)
        return self.generation

    def close(self) -> None:
        if self._parse_queue:
            self._flush_parses()
        c = getattr(self._local, "conn", None)
        if c is not None:
            c.close()
            self._local.conn = None

    def _init_schema(self) -> None:
        """Check an existing store, or create the schema; safe when several processes create one file at once."""
        c = self.conn()
        try:
            tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as exc:
            raise store_error(exc, self.path, self.busy_timeout) from exc  # E106-E109: locked, damaged…
        if tables and "meta" not in tables:
            raise LoopAgentError("E102", db=str(self.path), detail="no LoopAgent meta table")
        if "meta" not in tables:
            # WAL first (a no-op when another process already set it), then the schema in one
            # write transaction: IF NOT EXISTS and INSERT OR IGNORE make a concurrent creator harmless
            c.execute("PRAGMA journal_mode=WAL")
            c.execute("BEGIN IMMEDIATE")
            try:
                for stmt in _SCHEMA.split(";"):
                    if stmt.strip():
                        c.execute(stmt)
                c.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)",
                          (str(SCHEMA_VERSION),))
                c.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                if c.in_transaction:
                    c.execute("ROLLBACK")
                if "fts5" in str(exc).lower():
                    raise LoopAgentError("E104") from exc
                raise
        row = c.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        found = int(row[0]) if row else None
        if found in (1, 2):
            self._upgrade(c, found)
            return
        if found != SCHEMA_VERSION:
            raise LoopAgentError("E101", db=str(self.path), found=found, expected=SCHEMA_VERSION)

    def _upgrade(self, c: sqlite3.Connection, found: int) -> None:
        """v1 → v2 adds the version history and feedback tables, v2 → v3 the parses table; no row changes."""
        c.execute("BEGIN IMMEDIATE")
        try:
            now = c.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if int(now[0]) == SCHEMA_VERSION:  # another process upgraded it meanwhile
                c.execute("COMMIT")
                return
            script = (_SCHEMA_V2 if found < 2 else "") + _SCHEMA_V3
            for stmt in script.split(";"):
                if stmt.strip():
                    c.execute(stmt)
            c.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION),))
            c.execute("COMMIT")
        except BaseException:
            if c.in_transaction:
                c.execute("ROLLBACK")
            raise

    # --- writing ----------------------------------------------------------
    def document_hash(self, source: str) -> Optional[str]:
        row = self.conn().execute("SELECT content_hash FROM documents WHERE source=?", (source,)).fetchone()
        return row[0] if row else None

    def put_document(self, doc: Document, collection: str = "default", _fail_after: Optional[int] = None,
                     tokens: Optional[DocTokens] = None) -> str:
        """Insert or replace ``doc`` and its blocks in one transaction; returns 'added' or 'updated'.

        ``tokens`` are :func:`document_tokens` of ``doc`` when a worker process computed them already.
        ``_fail_after`` (tests only) raises after that many blocks, to show the rollback.
        """
        title_tokens, block_tokens = _checked_tokens(doc, tokens)
        rows = [(b, toks, sec_toks) for b, (toks, sec_toks) in zip(doc.blocks, block_tokens)]
        paths: dict[tuple[str, ...], Optional[str]] = {}  # consecutive blocks mostly share a section path

        def sections(section: Any) -> Optional[str]:
            if type(section) is not list:
                return _j(section)
            key = tuple(section)
            if key not in paths:
                paths[key] = _j(section)
            return paths[key]
        bulk = getattr(self._local, "bulk", None)
        with self._write_lock, self._coded():
            c = self.conn()
            with self._tx(c, doc.source):
                self._archive(c, doc)
                existed = self._delete_doc(c, doc.source)
                c.execute(
                    "INSERT INTO documents(doc_id, source, title, kind, content_hash, version_date, effective_date,"
                    " collection, meta, n_blocks, ingested_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (doc.doc_id, doc.source, doc.title, doc.kind, doc.content_hash, doc.version_date,
                     doc.effective_date, collection, json.dumps(doc.meta, ensure_ascii=False), len(doc.blocks),
                     time.time()))
                if _fail_after is not None and _fail_after < len(rows):
                    rows = rows[:_fail_after]
                # row ids as SQLite would give them one by one (largest + 1), so both statements go in batches
                first = c.execute("SELECT coalesce(max(rid), 0) + 1 FROM blocks").fetchone()[0]
                c.executemany(
                    f"INSERT INTO blocks(rid, {_BLOCK_COLS[5:]}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    [(first + i, b.block_id, doc.doc_id, b.order, b.type, b.text, sections(b.section), b.clause,
                      b.page_start, b.page_end, _j(b.bbox), _j(b.table_header), _j(b.table_rows), _j(b.meta) or "{}")
                     for i, (b, _, _) in enumerate(rows)])
                fts = [(first + i, toks, sec_toks, title_tokens) for i, (_, toks, sec_toks) in enumerate(rows)]
                if bulk is None:
                    c.executemany(_FTS_INSERT, fts)
                if _fail_after is not None and _fail_after < len(doc.blocks):
                    raise RuntimeError("simulated crash during ingest")
            if bulk is not None:
                bulk.done(c, fts)
        self._bump()
        return "updated" if existed else "added"

    def _tx(self, c: sqlite3.Connection, source: str) -> contextlib.AbstractContextManager[None]:
        """A write transaction on ``c`` that replaces or removes the document of ``source``; inside :meth:`bulk`, a
        savepoint in the batch's open transaction (begun here when none is open), so that one failed write is undone
        alone and those before it stay, after the batch's waiting search rows (that document's among them) are written."""
        bulk = getattr(self._local, "bulk", None)
        if bulk is None:
            return _write_tx(c)
        bulk.before_delete(c, source)
        if not c.in_transaction:
            c.execute("BEGIN IMMEDIATE")
            bulk.began = time.monotonic()
        return _write_tx(c, savepoint="batch_write")

    @contextlib.contextmanager
    def bulk(self, max_blocks: int = BULK_BLOCKS, max_seconds: float = BULK_SECONDS) -> Iterator[None]:
        """Many :meth:`put_document` calls on this thread in few write transactions (ingest).

        Each document still goes in whole or not at all (a savepoint of its own); a transaction commits after
        ``max_blocks`` blocks or ``max_seconds``, so other writers wait at most about that long and a crash
        loses at most the documents of the open transaction, never half of one. Inside, commits do not wait for
        the disk (``synchronous=NORMAL``: WAL keeps the store consistent); on the way out the last commit
        does, so what the batch wrote is durable when it returns, also when it ends by an exception."""
        if getattr(self._local, "bulk", None) is not None:
            yield  # nested: the outer batch commits
            return
        c = self.conn()
        if c.in_transaction:
            raise RuntimeError("Store.bulk() inside an open transaction")
        batch = _Bulk(max_blocks, max_seconds)
        with self._coded():
            c.execute("PRAGMA synchronous=NORMAL")
        self._local.bulk = batch
        try:
            yield
        finally:
            self._local.bulk = None
            with self._write_lock, self._coded():
                try:
                    if c.in_transaction:
                        try:
                            batch.flush(c)
                        except BaseException:  # blocks without their search rows must not be committed
                            c.execute("ROLLBACK")
                            raise
                        c.execute("COMMIT")
                finally:
                    c.execute("PRAGMA synchronous=FULL")
                    self._sync_wal()

    def _sync_wal(self) -> None:
        """Put the write-ahead log on disk (what commits under ``synchronous=NORMAL`` did not wait for)."""
        wal = Path(f"{self.path}-wal")
        try:
            fd = os.open(wal, os.O_RDONLY)
        except OSError:
            return  # no log (checkpointed and removed, or an in-memory store): nothing waits
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    @staticmethod
    def _archive(c: sqlite3.Connection, doc: Document) -> None:
        """Keep the current version of ``doc.source`` (row and blocks) when new content replaces it."""
        row = c.execute("SELECT doc_id, content_hash FROM documents WHERE source=?", (doc.source,)).fetchone()
        if not row or row[1] == doc.content_hash:
            return
        c.execute("INSERT OR REPLACE INTO doc_versions SELECT doc_id, content_hash, source, title, kind, version_date,"
                  " effective_date, collection, meta, n_blocks, ingested_at, ?, ? FROM documents WHERE doc_id=?",
                  (time.time(), doc.content_hash, row[0]))
        c.execute("INSERT OR REPLACE INTO block_history SELECT block_id, doc_id, ?, ord, type, text, section, clause,"
                  " page_start, page_end, bbox, table_header, table_rows, meta FROM blocks WHERE doc_id=?",
                  (row[1], row[0]))

    def remove(self, source: str) -> bool:
        """Delete the document with this source name, all its versions included; True if it existed."""
        with self._write_lock, self._coded():
            c = self.conn()
            with self._tx(c, source):
                existed = self._delete_doc(c, source)
                old = [r[0] for r in c.execute("SELECT DISTINCT doc_id FROM doc_versions WHERE source=?", (source,))]
                for doc_id in old:
                    c.execute("DELETE FROM block_history WHERE doc_id=?", (doc_id,))
                c.execute("DELETE FROM doc_versions WHERE source=?", (source,))
                existed = existed or bool(old)
        self._bump()
        return existed

    @contextlib.contextmanager
    def _coded(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise store_error(exc, self.path, self.busy_timeout) from exc

    def _bump(self) -> None:
        with self._gen_lock:
            self._generation += 1

    @staticmethod
    def _delete_doc(c: sqlite3.Connection, source: str) -> bool:
        row = c.execute("SELECT doc_id FROM documents WHERE source=?", (source,)).fetchone()
        if not row:
            return False
        c.execute("DELETE FROM blocks_fts WHERE rowid IN (SELECT rid FROM blocks WHERE doc_id=?)", (row[0],))
        c.execute("DELETE FROM blocks WHERE doc_id=?", (row[0],))
        c.execute("DELETE FROM documents WHERE doc_id=?", (row[0],))
        return True

    # --- reading ----------------------------------------------------------
    def documents(self, collection: Optional[str] = None) -> list[dict[str, Any]]:
        q = "SELECT * FROM documents" + (" WHERE collection=?" if collection else "") + " ORDER BY source"
        rows = self.conn().execute(q, (collection,) if collection else ()).fetchall()
        return [_doc_row(r) for r in rows]

    def document(self, doc_id: str) -> Optional[dict[str, Any]]:
        """A document row (a copy; cached until the store's content changes)."""
        gen = self._cache_gen()
        d = self._docs.get(gen, doc_id)
        if d is _MISSING:
            r = self.conn().execute("SELECT * FROM documents WHERE doc_id=?", (doc_id,)).fetchone()
            d = _doc_row(r) if r else None
            self._docs.put(gen, doc_id, d)
        return dict(d) if d is not None else None

    def block(self, block_id: str) -> Optional[Block]:
        r = self.conn().execute(f"SELECT {_BLOCK_COLS} FROM blocks WHERE block_id=?", (block_id,)).fetchone()
        return _block_row(r) if r else None

    def block_version(self, block_id: str) -> Optional[tuple[Block, dict[str, Any]]]:
        """A block and the document version holding it: the current one, else the newest superseded one.

        The version dict is the document row plus ``superseded_at``/``superseded_by`` (None when current).
        """
        b = self.block(block_id)
        if b is not None:
            d = self.document(b.doc_id) or {}
            return b, {**d, "superseded_at": None, "superseded_by": None}
        c = self.conn()
        r = c.execute(f"SELECT h.rowid AS rid, {_H_COLS}, h.content_hash FROM block_history h "
                      "JOIN doc_versions v USING (doc_id, content_hash) WHERE block_id=? "
                      "ORDER BY v.superseded_at DESC LIMIT 1", (block_id,)).fetchone()
        if r is None:
            return None
        v = c.execute("SELECT * FROM doc_versions WHERE doc_id=? AND content_hash=?",
                      (r["doc_id"], r["content_hash"])).fetchone()
        return _block_row(r), _doc_row(v)

    def versions(self, source: Optional[str] = None) -> list[dict[str, Any]]:
        """Every version of every document (or of one source), current ones with ``superseded_at`` None."""
        args: tuple = (source,) if source else ()
        where = " WHERE source=?" if source else ""
        cur = [{**_doc_row(r), "superseded_at": None, "superseded_by": None}
               for r in self.conn().execute(f"SELECT * FROM documents{where}", args)]
        old = [_doc_row(r) for r in self.conn().execute(f"SELECT * FROM doc_versions{where}", args)]
        return sorted(cur + old, key=lambda d: (d["source"], d["ingested_at"]))

    def document_version(self, doc_id: str, content_hash: str) -> Optional[dict[str, Any]]:
        """The version of a document with this content hash (current or superseded), or None."""
        d = self.document(doc_id)
        if d and d["content_hash"] == content_hash:
            return {**d, "superseded_at": None, "superseded_by": None}
        r = self.conn().execute("SELECT * FROM doc_versions WHERE doc_id=? AND content_hash=?",
                                (doc_id, content_hash)).fetchone()
        return _doc_row(r) if r else None

    def fingerprint(self) -> str:
        """A hash of the current documents' ids and content hashes (what answers are drawn from)."""
        c = self.conn()
        key = (self._generation, c.execute("PRAGMA data_version").fetchone()[0])
        cached = getattr(self._local, "fp", None)
        if cached and cached[0] == key:
            return cached[1]
        h = hashlib.sha256()
        for doc_id, chash in c.execute("SELECT doc_id, content_hash FROM documents ORDER BY doc_id"):
            h.update(f"{doc_id}:{chash}\n".encode())
        fp = h.hexdigest()[:16]
        self._local.fp = (key, fp)
        return fp

    # --- stored sentence parses (stage 2) ----------------------------------
    def get_parses(self, keys: list[bytes]) -> dict[bytes, bytes]:
        """The stored parse blobs of these keys (those present)."""
        if not keys:
            return {}
        out: dict[bytes, bytes] = {}
        c = self.conn()
        with self._coded():
            for i in range(0, len(keys), 500):
                part = keys[i:i + 500]
                out.update(c.execute(f"SELECT key, data FROM parses WHERE key IN ({','.join('?' * len(part))})",
                                     part).fetchall())
        return out

    def put_parses(self, version: str, rows: list[tuple[bytes, bytes]]) -> int:
        """Persist parse blobs made by parser ``version``; returns rows written now (0 when queued).

        Outside a read snapshot the rows are written at once. Inside one (answering) they are queued
        and written after it in batches (PARSE_BATCH rows or PARSE_FLUSH_SECONDS), on :meth:`close`
        and at exit, so answering does not pay a commit per question. A write waits at most
        PARSE_WRITE_TIMEOUT_MS for another writer; when it cannot write (busy, read-only) the rows stay
        queued: answering never fails or blocks because a parse was not stored.
        """
        with self._parse_lock:
            for k, blob in rows:
                if len(self._parse_queue) >= PARSE_QUEUE_MAX:
                    break
                self._parse_queue[k] = (version, blob)
        if self.conn().in_transaction:
            return 0
        return self._flush_parses()

    def flush_parses(self) -> int:
        """Write the queued parses now; returns rows written."""
        return self._flush_parses()

    @contextlib.contextmanager
    def brief_write(self) -> Iterator[Optional[sqlite3.Connection]]:
        """This thread's connection for a write made while answering (stored parses, e5 vectors): it waits at most
        PARSE_WRITE_TIMEOUT_MS for another writer, in this process or another (then SQLite says busy), and is
        None when this process's own writer (an ingest) holds the store that long: the caller writes later."""
        if not self._write_lock.acquire(timeout=PARSE_WRITE_TIMEOUT_MS / 1000):
            yield None
            return
        c = self.conn()
        try:
            c.execute(f"PRAGMA busy_timeout={PARSE_WRITE_TIMEOUT_MS}")
            yield c
        finally:
            c.execute(f"PRAGMA busy_timeout={int(self.busy_timeout * 1000)}")
            self._write_lock.release()

    def _flush_parses(self, force: bool = True) -> int:
        c = self.conn()
        with self._parse_lock:
            if not self._parse_queue or c.in_transaction:
                return 0
            if not force and len(self._parse_queue) < PARSE_BATCH and \
                    time.monotonic() - self._parse_flushed < PARSE_FLUSH_SECONDS:
                return 0
            queued = dict(self._parse_queue)
        with self.brief_write() as w:
            if w is None:
                return 0  # this process is ingesting: later
            try:
                written = _write_parses(w, queued)
            except sqlite3.Error as exc:
                log.debug("parses not stored yet (%s); kept for the next write", exc)
                return 0
        with self._parse_lock:
            for k in queued:  # other versions' rows are dropped: one parser model per store
                self._parse_queue.pop(k, None)
            self._parse_flushed = time.monotonic()
        return written

    def parse_count(self) -> int:
        """Number of stored sentence parses."""
        return self.conn().execute("SELECT count(*) FROM parses").fetchone()[0]

    # --- feedback ---------------------------------------------------------
    def add_feedback(self, trace_id: str, verdict: str, expected: Optional[str] = None,
                     note: Optional[str] = None) -> int:
        """Store a verdict ('right' or 'wrong') on the answer with this trace id; returns its row id."""
        with self._write_lock:
            cur = self.conn().execute(
                "INSERT INTO feedback(trace_id, verdict, expected, note, created_at) VALUES (?,?,?,?,?)",
                (trace_id, verdict, expected, note, time.time()))
            return int(cur.lastrowid)

    def feedback(self) -> list[dict[str, Any]]:
        """All feedback rows, oldest first."""
        return [dict(r) for r in self.conn().execute("SELECT * FROM feedback ORDER BY id")]

    def blocks_by_rid(self, rids: Iterable[int]) -> dict[int, Block]:
        """The blocks with these row ids (those present), in row-id order; parsed rows are cached."""
        gen = self._cache_gen()
        cache = self._blocks
        keys = sorted(set(rids))
        out: dict[int, Block] = dict(zip(keys, cache.get_many(gen, keys)))
        missing = [r for r, b in out.items() if b is _MISSING]
        if missing:
            got = self._fetch_blocks(missing)
            for r in missing:
                b = got.get(r)
                if b is None:
                    del out[r]
                else:
                    out[r] = b
                    cache.put(gen, r, b)
        return out

    def _fetch_blocks(self, rids: list[int]) -> dict[int, Block]:
        c = self.conn()
        out: dict[int, Block] = {}
        for i in range(0, len(rids), 500):  # one prepared statement per chunk size, not per list length
            part = rids[i:i + 500]
            rows = c.execute(f"SELECT {_BLOCK_COLS} FROM blocks WHERE rid IN (SELECT value FROM json_each(?))",
                             (json.dumps(part),)).fetchall()
            out.update((r[0], _block_tuple(r)) for r in rows)
        return out

    def _rid_blocks(self, sql: str, args: tuple) -> list[Block]:
        """The blocks whose row ids ``sql`` selects, in its order (through the block cache)."""
        rids = [r[0] for r in self.conn().execute(sql, args).fetchall()]
        got = self.blocks_by_rid(rids)
        return [got[r] for r in rids if r in got]

    def doc_blocks(self, doc_id: str, start: int = 0, stop: int = 1 << 30) -> list[Block]:
        """Blocks of a document with ``start <= order < stop``, in order."""
        return self._rid_blocks("SELECT rid FROM blocks WHERE doc_id=? AND ord>=? AND ord<? ORDER BY ord",
                                (doc_id, start, stop))

    def clause_blocks(self, doc_id: str, clause: str) -> list[Block]:
        return self._rid_blocks("SELECT rid FROM blocks WHERE doc_id=? AND clause=? ORDER BY ord", (doc_id, clause))

    def search(self, match: str, limit: int = 30, doc_ids: Optional[list[str]] = None,
               weights: tuple[float, float, float] = (1.0, 0.5, 0.3)) -> list[tuple[int, float]]:
        """FTS5 BM25 search; returns (rid, score) best first, score = -bm25 (higher is better)."""
        ranges = self._rid_ranges(doc_ids) if doc_ids else None
        if ranges == []:
            return []
        if not doc_ids or ranges is not None:
            fast = self._fast_search(match, limit, weights, ranges)
            if fast is not None:
                return fast
        bm25 = f"bm25(blocks_fts, {weights[0]}, {weights[1]}, {weights[2]})"
        if ranges is not None:
            # the documents' row-id ranges: FTS5 seeks each one (BM25 is computed only for rows in them, and
            # is the same as over the whole table: its IDF and average length are the table's)
            sql = ("SELECT r, s FROM (" + " UNION ALL ".join(
                f"SELECT rowid AS r, {bm25} AS s FROM blocks_fts WHERE blocks_fts MATCH ? AND rowid BETWEEN ? AND ?"
                for _ in ranges) + ")")
            args: list[Any] = [x for lo, hi in ranges for x in (match, lo, hi)]
            order = "r"
        elif doc_ids:  # a join, not `rowid IN (subquery)`: the latter is evaluated per match (20x slower)
            sql = (f"SELECT f.rowid, {bm25} AS s "
                   "FROM blocks_fts f JOIN blocks b ON b.rid = f.rowid WHERE blocks_fts MATCH ? "
                   f"AND b.doc_id IN ({','.join('?' * len(doc_ids))})")
            args = [match, *doc_ids]
            order = "f.rowid"
        else:
            sql = f"SELECT rowid, {bm25} AS s FROM blocks_fts WHERE blocks_fts MATCH ?"
            args = [match]
            order = "rowid"
        # scores rounded to 9 decimals, ties by row id: the PostgreSQL store sums the same BM25 terms in
        # another order (last-digit differences), and both must rank near-ties alike
        sql += f" ORDER BY round(s, {SCORE_DECIMALS}), {order} LIMIT ?"
        args.append(limit)
        try:
            return [(r[0], -round(r[1], SCORE_DECIMALS)) for r in self.conn().execute(sql, args).fetchall()]
        except sqlite3.OperationalError:
            return []

    # --- BM25 from cached postings ----------------------------------------------------------
    def _fast_search(self, match: str, limit: int, weights: tuple[float, ...],
                     ranges: Optional[list[tuple[int, int]]] = None) -> Optional[list[tuple[int, float]]]:
        """What :meth:`search` returns for ``"p1" OR "p2" …`` (over the whole store, or the row-id ``ranges``),
        from each phrase's BM25 summand per row, kept per store generation; None when the query has another
        form, or before FAST_SEARCH_AFTER searches.

        FTS5's bm25() is Σ over the query's phrases, in order from 0.0, of a summand that depends only on the
        phrase and the row (its IDF, frequency per column, the row's and the average length); a query of that
        phrase alone returns exactly −summand. So the sums below are the same doubles bm25() returns, and the
        order is SQLite's round() of them, as in the SQL path.
        """
        phrases = _or_phrases(match)
        gen = self._cache_gen()
        if phrases is None or gen is None or limit <= 0:
            return None
        with self._gen_lock:
            if self._searches[0] != gen:
                self._searches[:] = [gen, 0]
            self._searches[1] += 1
            if self._searches[1] <= FAST_SEARCH_AFTER:
                return None
        try:
            return self._bm25_top(phrases, limit, tuple(weights), gen, ranges)
        except (sqlite3.Error, ValueError, IndexError, ImportError) as exc:  # anything odd: FTS5 answers
            log.debug("BM25 from postings unavailable (%s); using FTS5", exc)
            return None

    def _phrase_postings(self, phrase: str, weights: tuple, gen: int):
        """(row ids, the phrase's BM25 summand in each row), from a query of the phrase alone."""
        got = self._postings.get(gen, (phrase, weights))
        if got is _MISSING:
            import numpy as np
            rows = self.conn().execute(
                f"SELECT rowid, bm25(blocks_fts, {weights[0]}, {weights[1]}, {weights[2]}) FROM blocks_fts "
                "WHERE blocks_fts MATCH ?", (f'"{phrase}"',)).fetchall()
            rids = np.array([r[0] for r in rows], dtype=np.int64)
            part = -np.array([r[1] for r in rows], dtype=np.float64)  # bm25() = -1.0 * (0.0 + summand)
            got = (rids, part)
            self._postings.put(gen, (phrase, weights), got, cost=len(rows) + 64)
        return got

    def _bm25_top(self, phrases: list[str], limit: int, weights: tuple, gen: int,
                  ranges: Optional[list[tuple[int, int]]] = None) -> list[tuple[int, float]]:
        import numpy as np
        posts = [self._phrase_postings(p, weights, gen) for p in phrases]
        size = 1 + max((int(r[-1]) for r, _ in posts if len(r)), default=0)
        score = np.zeros(size)
        hit = np.zeros(size, dtype=bool)
        for rids, part in posts:  # phrase by phrase, in the query's order, as bm25() adds them
            score[rids] += part
            hit[rids] = True
        if ranges is not None:  # only these row ids (a search limited to documents)
            inside = np.zeros(size, dtype=bool)
            for lo, hi in ranges:
                inside[lo:hi + 1] = True
            hit &= inside
        rids = np.flatnonzero(hit)
        s = -1.0 * score[rids]
        if len(rids) > limit:  # the best `limit` and everything within 1e-8 of the last: exact order below
            cut = np.partition(s, limit - 1)[limit - 1]
            keep = np.flatnonzero(s <= cut + 1e-8)
            rids, s = rids[keep], s[keep]
        values = s.tolist()
        keys: list[float] = []
        c = self.conn()
        for i in range(0, len(values), _ROUND_BATCH):  # SQLite's round(), as the SQL path orders by it
            part = values[i:i + _ROUND_BATCH]
            keys += c.execute(_ROUND_SQL, part + [0.0] * (_ROUND_BATCH - len(part))).fetchone()[:len(part)]
        top = sorted(zip(keys, rids.tolist(), values))[:limit]
        return [(r, -round(v, SCORE_DECIMALS)) for _, r, v in top]

    def _rid_ranges(self, doc_ids: list[str]) -> Optional[list[tuple[int, int]]]:
        """The maximal runs of consecutive row ids of these documents' blocks, or None when there are more
        than SEARCH_RANGES_MAX (a document's blocks are inserted together: one run each, usually)."""
        gen = self._cache_gen()
        c = self.conn()
        runs: list[tuple[int, int]] = []
        for doc_id in dict.fromkeys(doc_ids):
            got = self._ranges.get(gen, doc_id)
            if got is _MISSING:
                lo, hi, n = c.execute("SELECT min(rid), max(rid), count(*) FROM blocks WHERE doc_id=?",
                                      (doc_id,)).fetchone()
                if not n:
                    got = []
                elif hi - lo + 1 == n:  # row ids are unique: n of them between lo and hi are all of them
                    got = [(lo, hi)]
                else:
                    got = [tuple(r) for r in c.execute(
                        "SELECT min(rid), max(rid) FROM (SELECT rid, rid - row_number() OVER (ORDER BY rid) AS g "
                        "FROM blocks WHERE doc_id=?) GROUP BY g ORDER BY 1 LIMIT ?",
                        (doc_id, SEARCH_RANGES_MAX + 1)).fetchall()]
                self._ranges.put(gen, doc_id, got)
            runs += got
            if len(runs) > SEARCH_RANGES_MAX:
                return None
        runs.sort()
        merged: list[tuple[int, int]] = []
        for lo, hi in runs:  # documents side by side make one run
            if merged and lo <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
            else:
                merged.append((lo, hi))
        return merged

    def doc_freq(self, terms: Iterable[str]) -> dict[str, int]:
        """Number of blocks containing each (lower-cased) term, from the FTS5 vocabulary."""
        terms = list({t.lower() for t in terms})
        if not terms:
            return {}
        gen = self._cache_gen()
        out = dict(zip(terms, self._df.get_many(gen, terms)))
        missing = [t for t, n in out.items() if n is _MISSING]
        if missing:
            marks = ",".join("?" * len(missing))
            rows = dict(self.conn().execute(f"SELECT term, doc FROM blocks_vocab WHERE term IN ({marks})",
                                            missing).fetchall())
            for t in missing:
                out[t] = rows.get(t, 0)
                self._df.put(gen, t, out[t])
        return out

    def stats(self) -> dict[str, int]:
        c = self.conn()
        return {"documents": c.execute("SELECT count(*) FROM documents").fetchone()[0],
                "blocks": c.execute("SELECT count(*) FROM blocks").fetchone()[0],
                "bytes": sum(p.stat().st_size for p in (self.path, Path(f"{self.path}-wal")) if p.exists())}

    def source_paths(self) -> tuple[dict[str, str], dict[str, str]]:
        """({real file path: source}, {source: real file path}) of every document (any collection)."""
        rows = self.conn().execute("SELECT source, json_extract(meta, '$.path') FROM documents").fetchall()
        by_source = {r[0]: r[1] for r in rows if r[1]}
        return {p: s for s, p in by_source.items()}, by_source

    @property
    def generation(self) -> int:
        """Changes whenever the store's content changes, by this object or by another process or connection
        (for caches keyed on store content): SQLite's ``data_version`` seen from this thread's connection."""
        c = self.conn()
        dv = c.execute("PRAGMA data_version").fetchone()[0]
        last = getattr(self._local, "data_version", None)
        self._local.data_version = dv
        if last is not None and dv != last:
            self._bump()
        return self._generation

    # --- meta values and re-indexing (the search tokens depend on the user dictionaries) ---------
    def get_meta(self, key: str) -> Optional[str]:
        row = self.conn().execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self._write_lock, self._coded():
            self.conn().execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def reindex(self) -> int:
        """Re-tokenise every block's search entry with the current tokenizer, in one transaction; returns blocks."""
        c = self.conn()
        titles = {r[0]: index_tokens(r[1]) for r in c.execute("SELECT doc_id, title FROM documents")}
        rows = [(r[0], index_tokens(r[1]), index_tokens(" ".join(json.loads(r[2]))), titles.get(r[3], ""))
                for r in c.execute("SELECT rid, text, section, doc_id FROM blocks")]
        with self._write_lock, self._coded():
            with _write_tx(c):
                c.execute("DELETE FROM blocks_fts")
                c.executemany("INSERT INTO blocks_fts(rowid, text, section, title) VALUES (?,?,?,?)", rows)
        self._bump()
        return len(rows)


_FTS_INSERT = "INSERT INTO blocks_fts(rowid, text, section, title) VALUES (?,?,?,?)"


class _Bulk:
    """The open transaction of :meth:`Store.bulk`: blocks written in it, when it began, and the search rows of its
    documents, written all at once before it commits. FTS5 writes its pending terms to disk at every savepoint's
    release, so rows written one document at a time cost a small index segment (and later merges) each: on the
    training corpus's 1,989 statutes that was a third of the store's writing time."""

    def __init__(self, max_blocks: int, max_seconds: float) -> None:
        self.max_blocks, self.max_seconds = max_blocks, max_seconds
        self.blocks, self.began = 0, time.monotonic()
        self.fts: list[tuple] = []

    def done(self, c: sqlite3.Connection, fts: list[tuple]) -> None:
        """A document went in (``fts``: its search rows): commit when the transaction is full or old enough."""
        self.fts += fts
        self.blocks += len(fts)
        if self.blocks >= self.max_blocks or time.monotonic() - self.began >= self.max_seconds:
            self.flush(c)
            c.execute("COMMIT")
            self.blocks, self.began = 0, time.monotonic()

    def flush(self, c: sqlite3.Connection) -> None:
        """Write the search rows waiting (in the open transaction, with the blocks they index)."""
        if self.fts:
            c.executemany(_FTS_INSERT, self.fts)
            self.fts = []

    def before_delete(self, c: sqlite3.Connection, source: str) -> None:
        """A document of this source is about to be replaced or removed: its search rows may be waiting."""
        if self.fts and c.execute("SELECT 1 FROM documents WHERE source=?", (source,)).fetchone():
            self.flush(c)


@contextlib.contextmanager
def _write_tx(c: sqlite3.Connection, savepoint: Optional[str] = None) -> Iterator[None]:
    """One write transaction on ``c`` (BEGIN IMMEDIATE … COMMIT), rolled back on any error; with ``savepoint``,
    a nested write inside the open transaction instead, undone alone."""
    c.execute(f"SAVEPOINT {savepoint}" if savepoint else "BEGIN IMMEDIATE")
    try:
        yield
        c.execute(f"RELEASE {savepoint}" if savepoint else "COMMIT")
    except BaseException:
        if savepoint:
            c.execute(f"ROLLBACK TO {savepoint}")
            c.execute(f"RELEASE {savepoint}")
        elif c.in_transaction:
            c.execute("ROLLBACK")
        raise


DocTokens = tuple[str, list[tuple[str, str]]]  # (title tokens, [(text tokens, section tokens)] per block)


def document_tokens(doc: Document) -> DocTokens:
    """The search tokens of a document's title and of each block's text and section path (what ingest indexes).

    Consecutive blocks mostly share their section path (a document has about a third as many distinct
    paths as blocks), so each distinct path is segmented once per document."""
    sections: dict[str, str] = {}
    out = []
    for b in doc.blocks:
        path = " ".join(b.section)
        sec = sections.get(path)
        if sec is None:
            sec = sections[path] = index_tokens(path)
        out.append((index_tokens(b.text), sec))
    return index_tokens(doc.title), out


def _checked_tokens(doc: Document, tokens: Optional[DocTokens]) -> DocTokens:
    if tokens is None or len(tokens[1]) != len(doc.blocks):
        return document_tokens(doc)
    return tokens


def _write_parses(c: sqlite3.Connection, queued: dict[bytes, tuple[str, bytes]]) -> int:
    """Write queued parse rows in one transaction on ``c``; returns rows written. Rows of the parser
    version with most rows win (one model per process in practice); a new version empties the table."""
    by_version: dict[str, list[tuple[bytes, bytes]]] = {}
    for k, (v, blob) in queued.items():
        by_version.setdefault(v, []).append((k, blob))
    version, rows = max(by_version.items(), key=lambda kv: len(kv[1]))
    with _write_tx(c):
        row = c.execute("SELECT value FROM meta WHERE key='parse_version'").fetchone()
        if row is None or row[0] != version:
            c.execute("DELETE FROM parses")  # rows of another parser model: never read again
            c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('parse_version', ?)", (version,))
        c.executemany("INSERT OR IGNORE INTO parses(key, data) VALUES (?, ?)", rows)
    return len(rows)


def _write_queued(path: str, queue: dict[bytes, tuple[str, bytes]]) -> None:
    """Finalizer of a Store: write the parses still queued, on a connection of its own."""
    if not queue or path == ":memory:":
        return
    try:
        c = sqlite3.connect(path, timeout=PARSE_WRITE_TIMEOUT_MS / 1000, isolation_level=None)
        try:
            _write_parses(c, dict(queue))
            queue.clear()
        finally:
            c.close()
    except Exception:  # dropped or exiting: a parse not stored is parsed again next time
        pass


def open_store(db: Any, create: bool = True) -> Any:
    """The store a --db value names: ``postgresql://…`` → :class:`~pipeline.pgstore.PostgresStore`,
    anything else → the SQLite :class:`Store` file. Both offer the same methods."""
    if isinstance(db, str) and db.startswith(("postgresql://", "postgres://")):
        from .pgstore import PostgresStore
        return PostgresStore(db, create=create)
    return Store(db, create=create)


_JSON = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps(…, ensure_ascii=False) without a new encoder each call


def _j(value: Any) -> Optional[str]:
    if value is None:
        return None
    if not value and (type(value) is dict or type(value) is list):  # most blocks' meta, many a section path
        return "{}" if type(value) is dict else "[]"
    return _JSON(value)


def _doc_row(r: sqlite3.Row) -> dict[str, Any]:
    d = dict(r)
    d["meta"] = json.loads(d.get("meta") or "{}")
    return d


def _block_row(r: sqlite3.Row) -> Block:
    return Block(
        block_id=r["block_id"], doc_id=r["doc_id"], type=r["type"], text=r["text"], order=r["ord"],
        section=json.loads(r["section"]), clause=r["clause"], page_start=r["page_start"], page_end=r["page_end"],
        bbox=json.loads(r["bbox"]) if r["bbox"] else None,
        table_header=json.loads(r["table_header"]) if r["table_header"] else None,
        table_rows=json.loads(r["table_rows"]) if r["table_rows"] else None,
        meta=json.loads(r["meta"]) if r["meta"] and r["meta"] != "{}" else {},
    )


def _block_tuple(r: tuple) -> Block:
    """A Block from a row of ``_BLOCK_COLS`` by position (what :func:`_block_row` does by name, faster)."""
    (_, block_id, doc_id, order, btype, text, section, clause, page_start, page_end, bbox, header, trows, meta) = r
    return Block(
        block_id=block_id, doc_id=doc_id, type=btype, text=text, order=order,
        section=json.loads(section), clause=clause, page_start=page_start, page_end=page_end,
        bbox=json.loads(bbox) if bbox else None,
        table_header=json.loads(header) if header else None,
        table_rows=json.loads(trows) if trows else None,
        meta=json.loads(meta) if meta and meta != "{}" else {},
    )


_MISSING = object()
_OR_PHRASE = re.compile(r'"([^"]+)"')  # a quoted FTS5 phrase (no quote inside)
_ROUND_BATCH = 256
_ROUND_SQL = "SELECT " + ",".join([f"round(?, {SCORE_DECIMALS})"] * _ROUND_BATCH)


def _or_phrases(match: str) -> Optional[list[str]]:
    """The phrases of ``"p1" OR "p2" …``, or None when ``match`` has another form."""
    out = []
    for part in match.split(" OR "):
        m = _OR_PHRASE.fullmatch(part)
        if m is None or not m.group(1).strip():
            return None
        out.append(m.group(1))
    return out


class _LRU:
    """A bounded least-recently-used map of one store generation (thread-safe; size 0 keeps nothing).

    A newer generation empties it; a read made under an older generation (a snapshot that began before
    the last write) neither reads nor fills it.
    """

    def __init__(self, size: int) -> None:
        self.size = size  # entries, or with costs given to put(), total cost
        self._data: "OrderedDict[Any, Any]" = OrderedDict()
        self._costs: dict[Any, int] = {}
        self._total = 0
        self._gen = -1
        self._lock = threading.Lock()

    def get(self, gen: Optional[int], key: Any) -> Any:
        """The value, or ``_MISSING``."""
        if gen is None or self.size <= 0:
            return _MISSING
        with self._lock:
            if gen != self._gen:
                if gen > self._gen:
                    self._clear(gen)
                return _MISSING
            v = self._data.get(key, _MISSING)
            if v is not _MISSING:
                self._data.move_to_end(key)
            return v

    def get_many(self, gen: Optional[int], keys: list) -> list:
        """The values of ``keys`` (``_MISSING`` for those absent), under one lock."""
        if gen is None or self.size <= 0:
            return [_MISSING] * len(keys)
        with self._lock:
            if gen != self._gen:
                if gen > self._gen:
                    self._clear(gen)
                return [_MISSING] * len(keys)
            data = self._data
            out = [data.get(k, _MISSING) for k in keys]
            move = data.move_to_end
            for k, v in zip(keys, out):
                if v is not _MISSING:
                    move(k)
            return out

    def _clear(self, gen: int) -> None:
        self._data.clear()
        self._costs.clear()
        self._total = 0
        self._gen = gen

    def put(self, gen: Optional[int], key: Any, value: Any, cost: int = 1) -> None:
        """Keep ``value``; the least recently used go while the total cost (entries by default) is over size."""
        if gen is None or self.size <= 0 or cost > self.size:
            return
        with self._lock:
            if gen > self._gen:
                self._clear(gen)
            elif gen != self._gen:
                return
            self._total += cost - self._costs.get(key, 0)
            self._costs[key] = cost
            self._data[key] = value
            self._data.move_to_end(key)
            while self._total > self.size:
                old, _ = self._data.popitem(last=False)
                self._total -= self._costs.pop(old)

    def __len__(self) -> int:
        return len(self._data)
