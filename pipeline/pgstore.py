"""The shared store: PostgreSQL, for many answer workers on many hosts and several ingesting teams.

Same interface and answers as the SQLite :class:`~pipeline.store.Store`. Recall runs over the
same jieba tokens: each block's ``tsv`` is a ``tsvector`` built from them (weights A/B/C for
text, section path and title; GIN index) and ranked with FTS5's BM25 in SQL (same k1, b, column
weights, IDF from a ``vocab`` table of block frequencies kept at ingest), so both stores return
the same candidates. Each document is replaced in one transaction under a per-source advisory
lock, so two ingesters of one document never leave a mixed state and readers never see one.
Connections come from a psycopg 3 pool.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import re
import threading
import time
from typing import Any, Iterable, Iterator, Optional
from urllib.parse import urlsplit, urlunsplit

from .errors import LoopAgentError
from .store import BLOCK_COLUMNS, SCHEMA_VERSION, SCORE_DECIMALS, DocTokens, _checked_tokens, _j
from .text import split_sentences
from .tokenize import index_tokens
from .types import Block, Document

log = logging.getLogger("loopagent")

K1, B = 1.2, 0.75          # FTS5's bm25() constants
_TOKEN = re.compile(r"[^\W_]+")  # what FTS5's unicode61 tokenizer keeps as one token
_MAX_POS = 16383           # tsvector positions stop here
_INIT_LOCK = 0x10a9a6e7    # advisory lock key for schema creation / migration

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
    ingested_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS blocks (
    rid BIGSERIAL PRIMARY KEY,
    block_id TEXT NOT NULL UNIQUE,
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    <BLOCK_COLUMNS>,
    tsv TSVECTOR NOT NULL,
    ntok INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS blocks_doc_ord ON blocks(doc_id, ord);
CREATE INDEX IF NOT EXISTS blocks_clause ON blocks(doc_id, clause);
CREATE INDEX IF NOT EXISTS blocks_tsv ON blocks USING GIN (tsv);
CREATE TABLE IF NOT EXISTS sentences (
    rid BIGINT NOT NULL REFERENCES blocks(rid) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    start_offset INTEGER NOT NULL,
    end_offset INTEGER NOT NULL,
    PRIMARY KEY (rid, n)
);
-- BM25's inputs per (term, block): term frequency in text / section path / title, and the block's length
CREATE TABLE IF NOT EXISTS postings (
    term TEXT NOT NULL,
    rid BIGINT NOT NULL,
    doc_id TEXT NOT NULL,
    ntok INTEGER NOT NULL,
    tf_a SMALLINT NOT NULL,
    tf_b SMALLINT NOT NULL,
    tf_c SMALLINT NOT NULL
);
CREATE INDEX IF NOT EXISTS postings_term ON postings(term) INCLUDE (rid, doc_id, ntok, tf_a, tf_b, tf_c);
CREATE INDEX IF NOT EXISTS postings_doc ON postings(doc_id);
CREATE TABLE IF NOT EXISTS vocab (term TEXT PRIMARY KEY, ndocs BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS corpus (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    nblocks BIGINT NOT NULL,
    ntok BIGINT NOT NULL,
    generation BIGINT NOT NULL
);
INSERT INTO corpus VALUES (1, 0, 0, 0) ON CONFLICT (id) DO NOTHING;
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
    ingested_at DOUBLE PRECISION NOT NULL,
    superseded_at DOUBLE PRECISION NOT NULL,
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
    id BIGSERIAL PRIMARY KEY,
    trace_id TEXT NOT NULL,
    verdict TEXT NOT NULL,
    expected TEXT,
    note TEXT,
    created_at DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS feedback_trace ON feedback(trace_id);
""".replace("<BLOCK_COLUMNS>", BLOCK_COLUMNS) + """
CREATE TABLE IF NOT EXISTS parses (key BYTEA PRIMARY KEY, data BYTEA NOT NULL);
"""
# v2 → v3 (the SQLite store's schema versions): stage-2 parses are persisted
_UPGRADE_V3 = "CREATE TABLE IF NOT EXISTS parses (key BYTEA PRIMARY KEY, data BYTEA NOT NULL)"

_COLS = ("block_id, doc_id, ord, type, text, section, clause, page_start, page_end, bbox, table_header, "
         "table_rows, meta")
_BLOCK_COLS = "rid, " + _COLS


def is_url(db: Any) -> bool:
    return isinstance(db, str) and db.startswith(("postgresql://", "postgres://"))


def masked(url: str) -> str:
    """The URL without its password (for messages and logs)."""
    parts = urlsplit(url)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return urlunsplit(parts._replace(netloc=netloc))
    return url


def fts_tokens(indexed: str) -> list[str]:
    """The tokens FTS5 (unicode61) makes of an ``index_tokens`` string: runs of letters and digits, lower-cased."""
    return _TOKEN.findall(indexed.lower())


def _lexeme(t: str) -> str:
    return "'" + t.replace("\\", "\\\\").replace("'", "''") + "'"


def tsvector_literal(columns: list[list[str]], weights: str = "ABC") -> tuple[str, int]:
    """A ``tsvector`` literal of the columns' tokens (positions run on across columns, weight per
    column) and the total token count (FTS5's document length)."""
    pos: dict[str, list[str]] = {}
    p = 0
    for col, w in zip(columns, weights):
        for t in col:
            p += 1
            pos.setdefault(t, []).append(f"{min(p, _MAX_POS)}{w}")
    return " ".join(f"{_lexeme(t)}:{','.join(ps[:256])}" for t, ps in pos.items()), p


def parse_match(match: str) -> list[list[str]]:
    """The phrases of an FTS5 expression ``"a" OR "b c"`` as token lists."""
    out = []
    for m in re.finditer(r'"([^"]*)"|(\S+)', match):
        text = m.group(1) if m.group(1) is not None else m.group(2)
        if m.group(2) and m.group(2).upper() in ("OR", "AND", "NOT"):
            continue
        toks = fts_tokens(text)
        if toks:
            out.append(toks)
    return out


class PostgresStore:
    """A LoopAgent store in a PostgreSQL database; thread-safe (a connection pool)."""

    def __init__(self, url: str, create: bool = True, min_size: int = 1, max_size: int = 8) -> None:
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ImportError as exc:
            raise LoopAgentError("E111", detail=str(exc)) from exc
        self.url = url
        self.path = masked(url)  # what messages print (E103 etc.)
        self.busy_timeout = 30.0  # seconds (the pool's wait for a free connection)
        try:
            psycopg.connect(url, connect_timeout=10).close()  # fails fast (refused, unknown host, auth)
            self.pool = ConnectionPool(url, min_size=min_size, max_size=max_size, open=True, timeout=30,
                                       kwargs={"autocommit": True})
            self.pool.wait(timeout=10)
        except Exception as exc:  # psycopg / pool errors: a coded message naming the URL
            raise LoopAgentError("E110", db=self.path, detail=str(exc).strip().splitlines()[0]) from exc
        self._local = threading.local()
        self._gen_cache: tuple[float, int] = (0.0, -1)
        self._doc_cache: dict[str, Any] = {}
        self._init_schema(create)

    # --- connections ------------------------------------------------------
    def _rows(self, sql: str, args: Any = None) -> list[dict[str, Any]]:
        from psycopg.rows import dict_row
        pinned = getattr(self._local, "snap", None)
        if pinned is not None:  # inside snapshot(): every read on one REPEATABLE READ transaction
            with pinned.cursor(row_factory=dict_row) as cur:
                cur.execute(sql, args)
                return cur.fetchall()
        with self.pool.connection() as c:
            with c.cursor(row_factory=dict_row) as cur:
                cur.execute(sql, args)
                return cur.fetchall()

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """Every read inside sees one state of the store (a read-only REPEATABLE READ transaction)."""
        if getattr(self._local, "snap", None) is not None:
            yield
            return
        with self.pool.connection() as c:
            c.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            self._local.snap = c
            try:
                yield
            finally:
                self._local.snap = None
                c.execute("COMMIT")

    def _one(self, sql: str, args: Any = None) -> Optional[dict[str, Any]]:
        rows = self._rows(sql, args)
        return rows[0] if rows else None

    def close(self) -> None:
        self.pool.close()

    def _init_schema(self, create: bool) -> None:
        with self.pool.connection() as c:
            tables = {r[0] for r in c.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")}
            if tables and "meta" not in tables:
                raise LoopAgentError("E102", db=self.path, detail="tables but no LoopAgent meta table")
            if "meta" not in tables and not create:
                raise LoopAgentError("E105", db=self.path)
            with c.transaction():
                c.execute("SELECT pg_advisory_xact_lock(%s)", (_INIT_LOCK,))
                has_meta = c.execute("SELECT to_regclass('meta')").fetchone()[0] is not None
                row = c.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() if has_meta else None
                if row is None:
                    c.execute(_SCHEMA)
                    c.execute("INSERT INTO meta VALUES ('schema_version', %s) ON CONFLICT (key) DO NOTHING",
                              (str(SCHEMA_VERSION),))
                    return
                if int(row[0]) == 2 and SCHEMA_VERSION == 3:  # upgraded in place, no row changes
                    c.execute(_UPGRADE_V3)
                    c.execute("UPDATE meta SET value = %s WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))
                    return
                if int(row[0]) != SCHEMA_VERSION:
                    raise LoopAgentError("E101", db=self.path, found=int(row[0]), expected=SCHEMA_VERSION)

    # --- writing ----------------------------------------------------------
    def document_hash(self, source: str) -> Optional[str]:
        r = self._one("SELECT content_hash FROM documents WHERE source=%s", (source,))
        return r["content_hash"] if r else None

    def put_document(self, doc: Document, collection: str = "default", _fail_after: Optional[int] = None,
                     rids: Optional[list[int]] = None, tokens: Optional[DocTokens] = None) -> str:
        """Insert or replace ``doc`` and its blocks in one transaction; returns 'added' or 'updated'.

        ``rids`` (migration) keeps the source store's row ids; ``tokens`` are :func:`document_tokens`
        computed by a worker process; ``_fail_after`` (tests) raises mid-way.
        """
        title_idx, block_idx = _checked_tokens(doc, tokens)
        title_toks = fts_tokens(title_idx)
        rows, new_terms, ntok_total = [], {}, 0
        for b, (text_idx, sec_idx) in zip(doc.blocks, block_idx):
            text_toks, sec_toks = fts_tokens(text_idx), fts_tokens(sec_idx)
            tsv, n = tsvector_literal([text_toks, sec_toks, title_toks])
            ntok_total += n
            tfs: dict[str, list[int]] = {}
            for k, col in enumerate((text_toks, sec_toks, title_toks)):
                for t in col:
                    tfs.setdefault(t, [0, 0, 0])[k] += 1
            for t in tfs:
                new_terms[t] = new_terms.get(t, 0) + 1
            rows.append((b, tsv, n, tfs))
        with self.pool.connection() as c:
            with c.transaction():
                c.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (doc.source,))
                existed = self._archive_and_delete(c, doc, new_terms)
                old_blocks, old_ntok = existed if existed else (0, 0)
                c.execute(
                    "INSERT INTO documents(doc_id, source, title, kind, content_hash, version_date, effective_date,"
                    " collection, meta, n_blocks, ingested_at) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                    (doc.doc_id, doc.source, doc.title, doc.kind, doc.content_hash, doc.version_date,
                     doc.effective_date, collection, json.dumps(doc.meta, ensure_ascii=False), len(doc.blocks),
                     time.time()))
                if rids is None:  # row ids first, so blocks, sentences and postings go in by COPY
                    rids = [r[0] for r in c.execute("SELECT nextval(pg_get_serial_sequence('blocks', 'rid')) "
                                                    "FROM generate_series(1, %s)", (len(rows),))]
                sentences, postings = [], []
                with c.cursor() as cur:
                    with cur.copy(f"COPY blocks (rid, {_COLS}, tsv, ntok) FROM STDIN") as cp:
                        for i, (b, tsv, n, tfs) in enumerate(rows):
                            if _fail_after is not None and i >= _fail_after:
                                raise RuntimeError("simulated crash during ingest")
                            rid = rids[i]
                            cp.write_row((rid, b.block_id, doc.doc_id, b.order, b.type, b.text, _j(b.section),
                                          b.clause, b.page_start, b.page_end, _j(b.bbox), _j(b.table_header),
                                          _j(b.table_rows), _j(b.meta) or "{}", tsv, n))
                            postings += [(t, rid, doc.doc_id, n, min(a, 32767), min(s_, 32767), min(ti, 32767))
                                         for t, (a, s_, ti) in tfs.items()]
                            sentences += [(rid, k, x.start, x.end) for k, x in enumerate(split_sentences(b.text))]
                    with cur.copy("COPY sentences (rid, n, start_offset, end_offset) FROM STDIN") as cp:
                        for row in sentences:
                            cp.write_row(row)
                    with cur.copy("COPY postings (term, rid, doc_id, ntok, tf_a, tf_b, tf_c) FROM STDIN") as cp:
                        for row in postings:
                            cp.write_row(row)
                self._add_vocab(c, new_terms)
                c.execute("UPDATE corpus SET nblocks = nblocks + %s, ntok = ntok + %s, generation = generation + 1 "
                          "WHERE id = 1", (len(rows) - old_blocks, ntok_total - old_ntok))
            self._analyze_if_grown(c, len(rows))
        self.invalidate()
        return "updated" if existed else "added"

    def _analyze_if_grown(self, c: Any, added: int) -> None:
        """VACUUM ANALYZE once the blocks grew by a fifth since the last time: a fresh
        store's recall otherwise runs on plans for empty tables (50 ms instead of 8 ms a search)."""
        self._added = getattr(self, "_added", 0) + added
        total = int(c.execute("SELECT nblocks FROM corpus WHERE id = 1").fetchone()[0])
        if self._added >= max(500, total // 5):
            c.execute("VACUUM (ANALYZE) blocks, postings, vocab, documents")  # + visibility map: index-only scans
            self._added = 0

    @staticmethod
    def _add_vocab(c: Any, delta: dict[str, int]) -> None:
        """Apply block-frequency changes in term order (concurrent ingesters lock rows in one order)."""
        items = sorted((t, n) for t, n in delta.items() if n)
        if not items:
            return
        c.execute("INSERT INTO vocab(term, ndocs) SELECT * FROM unnest(%s::text[], %s::bigint[]) "
                  "ON CONFLICT (term) DO UPDATE SET ndocs = vocab.ndocs + EXCLUDED.ndocs",
                  ([t for t, _ in items], [n for _, n in items]))
        c.execute("DELETE FROM vocab WHERE term = ANY(%s) AND ndocs <= 0", ([t for t, _ in items],))

    def _archive_and_delete(self, c: Any, doc: Optional[Document], delta: dict[str, int],
                            source: Optional[str] = None) -> Optional[tuple[int, int]]:
        """Keep the current version when new content replaces it, then delete it from the live tables;
        subtracts its terms from ``delta``. Returns (blocks, tokens) removed, or None if there was none."""
        src = doc.source if doc else source
        row = c.execute("SELECT doc_id, content_hash FROM documents WHERE source=%s FOR UPDATE", (src,)).fetchone()
        if not row:
            return None
        doc_id, old_hash = row
        if doc is not None and old_hash != doc.content_hash:
            c.execute("INSERT INTO doc_versions SELECT doc_id, content_hash, source, title, kind, version_date,"
                      " effective_date, collection, meta, n_blocks, ingested_at, %s, %s FROM documents WHERE doc_id=%s"
                      " ON CONFLICT (doc_id, content_hash) DO UPDATE SET superseded_at = EXCLUDED.superseded_at,"
                      " superseded_by = EXCLUDED.superseded_by", (time.time(), doc.content_hash, doc_id))
            c.execute(f"INSERT INTO block_history SELECT block_id, doc_id, %s, ord, type, text, section, clause,"
                      " page_start, page_end, bbox, table_header, table_rows, meta FROM blocks WHERE doc_id=%s"
                      " ON CONFLICT (block_id, content_hash) DO NOTHING", (old_hash, doc_id))
        for term, n in c.execute("SELECT term, count(*) FROM postings WHERE doc_id=%s GROUP BY term", (doc_id,)):
            delta[term] = delta.get(term, 0) - n
        nb, nt = c.execute("SELECT count(*), coalesce(sum(ntok), 0) FROM blocks WHERE doc_id=%s", (doc_id,)).fetchone()
        c.execute("DELETE FROM postings WHERE doc_id=%s", (doc_id,))
        c.execute("DELETE FROM blocks WHERE doc_id=%s", (doc_id,))
        c.execute("DELETE FROM documents WHERE doc_id=%s", (doc_id,))
        return int(nb), int(nt)

    def remove(self, source: str) -> bool:
        """Delete the document with this source name, all its versions included; True if it existed."""
        delta: dict[str, int] = {}
        with self.pool.connection() as c:
            with c.transaction():
                c.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (source,))
                gone = self._archive_and_delete(c, None, delta, source=source)
                old = [r[0] for r in c.execute("SELECT DISTINCT doc_id FROM doc_versions WHERE source=%s", (source,))]
                for doc_id in old:
                    c.execute("DELETE FROM block_history WHERE doc_id=%s", (doc_id,))
                c.execute("DELETE FROM doc_versions WHERE source=%s", (source,))
                self._add_vocab(c, delta)
                if gone:
                    c.execute("UPDATE corpus SET nblocks = nblocks - %s, ntok = ntok - %s, "
                              "generation = generation + 1 WHERE id = 1", gone)
        self.invalidate()
        return bool(gone) or bool(old)

    # --- reading ----------------------------------------------------------
    def documents(self, collection: Optional[str] = None) -> list[dict[str, Any]]:
        q = "SELECT * FROM documents" + (" WHERE collection=%s" if collection else "") + " ORDER BY source"
        return [_doc_row(r) for r in self._rows(q, (collection,) if collection else None)]

    def document(self, doc_id: str) -> Optional[dict[str, Any]]:
        """A document row; cached until the store's generation changes (the stages ask ~25 times per question)."""
        gen = self.generation
        cache = self._doc_cache
        if cache.get("__gen__") != gen:
            cache = self._doc_cache = {"__gen__": gen}
        if doc_id not in cache:
            r = self._one("SELECT * FROM documents WHERE doc_id=%s", (doc_id,))
            if len(cache) > 100_000:
                cache.clear()
                cache["__gen__"] = gen
            cache[doc_id] = _doc_row(r) if r else None
        d = cache[doc_id]
        return dict(d) if d is not None else None

    def block(self, block_id: str) -> Optional[Block]:
        r = self._one(f"SELECT {_BLOCK_COLS} FROM blocks WHERE block_id=%s", (block_id,))
        return _block_row(r) if r else None

    def block_version(self, block_id: str) -> Optional[tuple[Block, dict[str, Any]]]:
        """A block and the document version holding it (see :meth:`pipeline.store.Store.block_version`)."""
        b = self.block(block_id)
        if b is not None:
            return b, {**(self.document(b.doc_id) or {}), "superseded_at": None, "superseded_by": None}
        r = self._one("SELECT 0 AS rid, h.*, v.superseded_at AS v_at FROM block_history h JOIN doc_versions v "
                      "USING (doc_id, content_hash) WHERE h.block_id=%s ORDER BY v.superseded_at DESC LIMIT 1",
                      (block_id,))
        if r is None:
            return None
        v = self._one("SELECT * FROM doc_versions WHERE doc_id=%s AND content_hash=%s", (r["doc_id"], r["content_hash"]))
        return _block_row(r), _doc_row(v)

    def versions(self, source: Optional[str] = None) -> list[dict[str, Any]]:
        where, args = (" WHERE source=%s", (source,)) if source else ("", None)
        cur = [{**_doc_row(r), "superseded_at": None, "superseded_by": None}
               for r in self._rows(f"SELECT * FROM documents{where}", args)]
        old = [_doc_row(r) for r in self._rows(f"SELECT * FROM doc_versions{where}", args)]
        return sorted(cur + old, key=lambda d: (d["source"], d["ingested_at"]))

    def document_version(self, doc_id: str, content_hash: str) -> Optional[dict[str, Any]]:
        d = self.document(doc_id)
        if d and d["content_hash"] == content_hash:
            return {**d, "superseded_at": None, "superseded_by": None}
        r = self._one("SELECT * FROM doc_versions WHERE doc_id=%s AND content_hash=%s", (doc_id, content_hash))
        return _doc_row(r) if r else None

    def fingerprint(self) -> str:
        gen = self.generation
        cached = getattr(self, "_fp", None)
        if cached and cached[0] == gen:
            return cached[1]
        h = hashlib.sha256()
        for r in self._rows("SELECT doc_id, content_hash FROM documents ORDER BY doc_id"):
            h.update(f"{r['doc_id']}:{r['content_hash']}\n".encode())
        fp = h.hexdigest()[:16]
        self._fp = (gen, fp)
        return fp

    def add_feedback(self, trace_id: str, verdict: str, expected: Optional[str] = None,
                     note: Optional[str] = None) -> int:
        r = self._one("INSERT INTO feedback(trace_id, verdict, expected, note, created_at) VALUES (%s,%s,%s,%s,%s) "
                      "RETURNING id", (trace_id, verdict, expected, note, time.time()))
        return int(r["id"])

    def feedback(self) -> list[dict[str, Any]]:
        return self._rows("SELECT * FROM feedback ORDER BY id")

    def blocks_by_rid(self, rids: Iterable[int]) -> dict[int, Block]:
        rids = list(rids)
        if not rids:
            return {}
        # in row-id order, as SQLite returns them: stage 1's article bonus depends on the order it meets blocks
        rows = self._rows(f"SELECT {_BLOCK_COLS} FROM blocks WHERE rid = ANY(%s) ORDER BY rid", (rids,))
        return {r["rid"]: _block_row(r) for r in rows}

    def doc_blocks(self, doc_id: str, start: int = 0, stop: int = 1 << 30) -> list[Block]:
        rows = self._rows(f"SELECT {_BLOCK_COLS} FROM blocks WHERE doc_id=%s AND ord>=%s AND ord<%s ORDER BY ord",
                          (doc_id, start, stop))
        return [_block_row(r) for r in rows]

    def clause_blocks(self, doc_id: str, clause: str) -> list[Block]:
        rows = self._rows(f"SELECT {_BLOCK_COLS} FROM blocks WHERE doc_id=%s AND clause=%s ORDER BY ord",
                          (doc_id, clause))
        return [_block_row(r) for r in rows]

    def search(self, match: str, limit: int = 30, doc_ids: Optional[list[str]] = None,
               weights: tuple[float, float, float] = (1.0, 0.5, 0.3)) -> list[tuple[int, float]]:
        """BM25 as FTS5 computes it (k1, b, column weights, IDF); (rid, score) best first.

        One-token phrases (nearly all) are scored from the postings index; a phrase of several
        tokens must match the GIN-indexed tsvector as a phrase and counts each of its tokens.
        """
        phrases = parse_match(match)
        if not phrases:
            return []
        stats = self._one("SELECT nblocks, ntok FROM corpus WHERE id = 1") or {"nblocks": 0, "ntok": 0}
        n = max(1, int(stats["nblocks"]))
        avgdl = max(1e-9, int(stats["ntok"]) / n)
        singles = sorted({p[0] for p in phrases if len(p) == 1})
        multi = [p for p in phrases if len(p) > 1]
        df = self.doc_freq(singles + [t for p in multi for t in p])

        def idf(t: str) -> float:
            v = math.log((n - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5))
            return v if v > 0 else 1e-6

        f = "(%(wa)s * p.tf_a + %(wb)s * p.tf_b + %(wc)s * p.tf_c)"  # FTS5: column-weighted term frequency
        bm25 = f"i.idf * {f} * {K1 + 1} / ({f} + {K1} * (1 - {B} + {B} * p.ntok / %(avgdl)s))"
        parts, args = [], {"avgdl": avgdl, "wa": weights[0], "wb": weights[1], "wc": weights[2], "docs": doc_ids,
                           "limit": limit}
        doc_filter = " AND p.doc_id = ANY(%(docs)s)" if doc_ids else ""
        if singles:
            args.update(lex=singles, idf=[idf(t) for t in singles])
            parts.append(f"""
                SELECT p.rid, {bm25} AS s
                  FROM unnest(%(lex)s::text[], %(idf)s::float8[]) AS i(term, idf)
                  JOIN postings p ON p.term = i.term{doc_filter}""")
        for k, ph in enumerate(multi):  # rare: tokens FTS5 splits (1.5, a-b) must stand together
            args[f"q{k}"] = " <-> ".join(_lexeme(t) for t in ph)
            args[f"lex{k}"], args[f"idf{k}"] = ph, [idf(t) for t in ph]
            parts.append(f"""
                SELECT p.rid, {bm25} AS s
                  FROM unnest(%(lex{k})s::text[], %(idf{k})s::float8[]) AS i(term, idf)
                  JOIN postings p ON p.term = i.term{doc_filter}
                 WHERE p.rid IN (SELECT rid FROM blocks WHERE tsv @@ %(q{k})s::tsquery)""")
        scale = 10 ** SCORE_DECIMALS  # float8 rounding (numeric rounding of every sum cost ~50 ms a search)
        sql = (f"SELECT rid, round(sum(s) * {scale}) / {scale} AS s FROM ({' UNION ALL '.join(parts)}) x "
               "GROUP BY rid ORDER BY 2 DESC, rid LIMIT %(limit)s")
        try:
            return [(int(r["rid"]), float(r["s"])) for r in self._rows(sql, args)]
        except Exception:  # a malformed expression finds nothing, as in SQLite
            return []

    def doc_freq(self, terms: Iterable[str]) -> dict[str, int]:
        """Number of blocks containing each (lower-cased) term, from the vocab table."""
        terms = list({t.lower() for t in terms})
        if not terms:
            return {}
        out = {t: 0 for t in terms}
        out.update({r["term"]: int(r["ndocs"]) for r in self._rows(
            "SELECT term, ndocs FROM vocab WHERE term = ANY(%s)", (terms,))})
        return out

    def stats(self) -> dict[str, int]:
        r = self._one("SELECT (SELECT count(*) FROM documents) AS documents, (SELECT count(*) FROM blocks) AS blocks, "
                      "(SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                      " JOIN pg_namespace s ON s.oid = c.relnamespace "
                      " WHERE s.nspname = current_schema() AND c.relkind IN ('r', 'm')) AS bytes")
        return {k: int(v) for k, v in r.items()}

    def source_paths(self) -> tuple[dict[str, str], dict[str, str]]:
        """({real file path: source}, {source: real file path}) of every document (any collection)."""
        by_source = {r["source"]: r["path"] for r in self._rows(
            "SELECT source, meta::json->>'path' AS path FROM documents") if r["path"]}
        return {p: s for s, p in by_source.items()}, by_source

    # --- stored sentence parses (stage 2) ----------------------------------
    def get_parses(self, keys: list[bytes]) -> dict[bytes, bytes]:
        """The stored parse blobs of these keys (those present)."""
        if not keys:
            return {}
        rows = self._rows("SELECT key, data FROM parses WHERE key = ANY(%s)", (list(keys),))
        return {bytes(r["key"]): bytes(r["data"]) for r in rows}

    def put_parses(self, version: str, rows: list[tuple[bytes, bytes]]) -> int:
        """Persist parse blobs made by parser ``version`` on a connection of its own (outside any
        snapshot); returns rows written. Waits at most 200 ms for locks; on failure nothing is stored
        and the sentences are parsed again next time."""
        try:
            with self.pool.connection(timeout=1) as c:
                with c.transaction():
                    c.execute("SET LOCAL lock_timeout = '200ms'")
                    r = c.execute("SELECT value FROM meta WHERE key = 'parse_version'").fetchone()
                    if r is None or r[0] != version:
                        c.execute("SELECT pg_advisory_xact_lock(%s)", (_INIT_LOCK + 1,))
                        r = c.execute("SELECT value FROM meta WHERE key = 'parse_version'").fetchone()
                        if r is None or r[0] != version:
                            c.execute("DELETE FROM parses")  # another parser model's rows: never read again
                            c.execute("INSERT INTO meta VALUES ('parse_version', %s) ON CONFLICT (key) DO UPDATE "
                                      "SET value = EXCLUDED.value", (version,))
                    with c.cursor() as cur:
                        cur.executemany("INSERT INTO parses(key, data) VALUES (%s, %s) ON CONFLICT DO NOTHING", rows)
            return len(rows)
        except Exception as exc:  # psycopg errors: a cache write, never worth failing an answer
            log.debug("parses not stored (%s)", exc)
            return 0

    def flush_parses(self) -> int:
        """Nothing waits here: parses are written as they come, on a connection of their own."""
        return 0

    def parse_count(self) -> int:
        """Number of stored sentence parses."""
        r = self._one("SELECT count(*) AS n FROM parses")
        return int(r["n"]) if r else 0

    def get_meta(self, key: str) -> Optional[str]:
        r = self._one("SELECT value FROM meta WHERE key=%s", (key,))
        return r["value"] if r else None

    def set_meta(self, key: str, value: str) -> None:
        self._one("INSERT INTO meta(key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE "
                  "SET value = EXCLUDED.value RETURNING key", (key, value))

    def reindex(self) -> int:
        """Re-tokenise every block (tsvector, postings, block frequencies, lengths) in one transaction; returns blocks."""
        with self.pool.connection() as c:
            with c.transaction():
                c.execute("LOCK TABLE blocks IN SHARE ROW EXCLUSIVE MODE")  # ingesters wait; readers go on
                titles = {d: fts_tokens(index_tokens(t)) for d, t in c.execute("SELECT doc_id, title FROM documents")}
                rows = c.execute("SELECT rid, doc_id, text, section FROM blocks").fetchall()
                c.execute("DELETE FROM postings")
                c.execute("DELETE FROM vocab")
                vocab: dict[str, int] = {}
                total = 0
                with c.cursor() as cur:
                    updates, postings = [], []
                    for rid, doc_id, text, section in rows:
                        cols = [fts_tokens(index_tokens(text)), fts_tokens(index_tokens(" ".join(json.loads(section)))),
                                titles.get(doc_id, [])]
                        tsv, n = tsvector_literal(cols)
                        total += n
                        tfs: dict[str, list[int]] = {}
                        for k, col in enumerate(cols):
                            for t in col:
                                tfs.setdefault(t, [0, 0, 0])[k] += 1
                        for t, (a, b_, ti) in tfs.items():
                            vocab[t] = vocab.get(t, 0) + 1
                            postings.append((t, rid, doc_id, n, min(a, 32767), min(b_, 32767), min(ti, 32767)))
                        updates.append((tsv, n, rid))
                    cur.executemany("UPDATE blocks SET tsv = %s::tsvector, ntok = %s WHERE rid = %s", updates)
                    with cur.copy("COPY postings (term, rid, doc_id, ntok, tf_a, tf_b, tf_c) FROM STDIN") as cp:
                        for row in postings:
                            cp.write_row(row)
                self._add_vocab(c, vocab)
                c.execute("UPDATE corpus SET nblocks = %s, ntok = %s, generation = generation + 1 WHERE id = 1",
                          (len(rows), total))
        self.invalidate()
        return len(rows)

    @property
    def generation(self) -> int:
        """Changes whenever any writer (any host) changes the store; read at most every 0.5 s."""
        at, gen = self._gen_cache
        now = time.monotonic()
        if now - at > 0.5:
            r = self._one("SELECT generation FROM corpus WHERE id = 1")
            gen = int(r["generation"]) if r else 0
            self._gen_cache = (now, gen)
        return gen

    def invalidate(self) -> None:
        """Forget the cached generation (after this process wrote)."""
        self._gen_cache = (0.0, -1)


def _doc_row(r: dict[str, Any]) -> dict[str, Any]:
    d = dict(r)
    d["meta"] = json.loads(d.get("meta") or "{}")
    return d


def _block_row(r: dict[str, Any]) -> Block:
    return Block(
        block_id=r["block_id"], doc_id=r["doc_id"], type=r["type"], text=r["text"], order=r["ord"],
        section=json.loads(r["section"]), clause=r["clause"], page_start=r["page_start"], page_end=r["page_end"],
        bbox=json.loads(r["bbox"]) if r["bbox"] else None,
        table_header=json.loads(r["table_header"]) if r["table_header"] else None,
        table_rows=json.loads(r["table_rows"]) if r["table_rows"] else None,
        meta=json.loads(r["meta"] or "{}"),
    )
