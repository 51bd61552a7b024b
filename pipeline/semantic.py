"""Optional semantic recall for stage 1: embeddings of every block from a local sentence-transformers
model directory, searched by cosine similarity. Off unless a model is given; nothing is downloaded.

Block embeddings are cached beside the store (``<db>.emb.npz``, keyed by block id) and topped up
incrementally after ingest. The pre-filter fuses this ranking with its lexicon and BM25 rankings
by reciprocal rank fusion (k = 60).
"""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Optional

from .errors import LoopAgentError
from .store import Store


class SemanticRecall:
    """Cosine search over block embeddings. ``model`` is a model directory or any object with
    ``encode(list[str]) -> array`` (tests pass a small deterministic encoder)."""

    def __init__(self, store: Store, model: Any, cache: Optional[Path] = None, batch_size: int = 64) -> None:
        self.store = store
        self.model = model
        self.cache = Path(cache) if cache else Path(f"{store.path}.emb.npz")
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._encoder: Any = None
        self._ids: list[str] = []
        self._rids: list[int] = []
        self._matrix: Any = None
        self._generation: Any = None

    def encoder(self) -> Any:
        if self._encoder is None:
            if not isinstance(self.model, (str, Path)) and hasattr(self.model, "encode"):  # str has .encode too
                self._encoder = self.model
            else:
                path = Path(self.model)
                if not path.is_dir():
                    raise LoopAgentError("E405", path=str(path))
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise LoopAgentError("E402", detail=f"sentence-transformers: {exc}") from exc
                self._encoder = SentenceTransformer(str(path), device="cpu")
        return self._encoder

    def _embed(self, texts: list[str]):
        import numpy as np

        enc = self.encoder()
        vecs = np.asarray(enc.encode(texts, batch_size=self.batch_size), dtype="float32")
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return vecs / np.maximum(norms, 1e-9)

    def _ensure(self) -> None:
        """Embed blocks not in the cache yet; drop blocks the store no longer has."""
        import numpy as np

        key = (self.store.generation, self.store.stats()["blocks"])
        if self._matrix is not None and self._generation == key:
            return
        with self._lock:
            rows = self.store.conn().execute("SELECT rid, block_id, text FROM blocks ORDER BY rid").fetchall()
            cached: dict[str, Any] = {}
            if self.cache.exists():
                data = np.load(self.cache, allow_pickle=False)
                cached = dict(zip(data["ids"].tolist(), data["vecs"]))
            missing = [(r[1], r[2]) for r in rows if r[1] not in cached]
            for i in range(0, len(missing), 512):
                chunk = missing[i:i + 512]
                for (bid, _), vec in zip(chunk, self._embed([t for _, t in chunk])):
                    cached[bid] = vec
            self._ids = [r[1] for r in rows]
            self._rids = [r[0] for r in rows]
            self._matrix = np.stack([cached[i] for i in self._ids]) if self._ids else np.zeros((0, 1), "float32")
            if missing or len(cached) != len(self._ids):
                np.savez(self.cache, ids=np.array(self._ids), vecs=self._matrix)
            self._generation = key

    def search(self, question: str, k: int = 50) -> list[tuple[int, float]]:
        """(rid, cosine) of the ``k`` blocks closest to ``question``, best first."""
        import numpy as np

        self._ensure()
        if not self._ids:
            return []
        q = self._embed([question])[0]
        sims = self._matrix @ q
        top = np.argsort(-sims)[:k]
        return [(self._rids[i], float(sims[i])) for i in top]


def rrf(rankings: list[list[Any]], k: int = 60, weights: Optional[list[float]] = None) -> dict[Any, float]:
    """Reciprocal rank fusion: Σ weight / (k + rank) over the rankings an item appears in (rank from 1)."""
    out: dict[Any, float] = {}
    for i, ranking in enumerate(rankings):
        w = 1.0 if weights is None else weights[i]
        if not w:
            continue
        for rank, item in enumerate(ranking, 1):
            out[item] = out.get(item, 0.0) + w / (k + rank)
    return out
