"""The stage-2 parser: the shipped UD-trained pipeline (or an installed zh_core_web_*), loaded once.

Parses are cached by sentence text (blocks do not change between questions), so a
warm stage re-parses nothing. Loading and parsing are guarded by one lock: spaCy
components are not documented as thread-safe.
"""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Optional

from ..errors import LoopAgentError
from pathlib import Path

from .segment import PARSER_DIR, Segmenter

BUILTIN = "builtin"
BUILTIN_DIR = PARSER_DIR / "zh_loopagent_parser"  # the shipped default; Parser(parser_dir=...) overrides


@dataclass
class Parsed:
    """A parsed sentence: the spaCy Doc and each token's [start, end) offsets in ``text``."""

    text: str
    doc: Any
    offsets: list[tuple[int, int]]

    def span_of(self, i: int) -> tuple[int, int]:
        return self.offsets[i]


@contextmanager
def _thinc_without_torch():
    """Import spaCy without letting thinc import torch (when the llm extra is installed).

    thinc imports torch at import time if it can, which costs about 250 MB and 2-3 s; the
    parser runs on numpy and never needs it. If torch is already loaded nothing changes; the
    generator imports torch later as usual.
    """
    if "torch" in sys.modules or "thinc" in sys.modules:
        yield
        return
    sys.modules["torch"] = None  # type: ignore[assignment]  # makes `import torch` fail inside thinc
    try:
        yield
    finally:
        if sys.modules.get("torch", 0) is None:
            del sys.modules["torch"]


def _slim(doc: Any) -> Any:
    """Drop the tok2vec tensor once tags and arcs are set: patterns never read it, and cached
    Docs would otherwise keep about 1 KB per token."""
    import numpy

    doc.tensor = numpy.zeros((0,), dtype="float32")
    return doc


class Parser:
    """Loads a spaCy pipeline lazily and parses sentences with an LRU cache keyed by text.

    ``model`` is ``"builtin"`` (models/parser/zh_loopagent_parser, UD labels), a path,
    or the name of an installed package such as ``zh_core_web_sm`` (its own segmentation;
    its labels are not UD, so UD-written patterns match less).
    """

    def __init__(self, model: str = BUILTIN, segmenter: str = "pkuseg", cache_size: int = 5000,
                 parser_dir: Optional[Path] = None) -> None:
        self.model = model
        self.parser_dir = Path(parser_dir) if parser_dir else PARSER_DIR
        self.segmenter = Segmenter(segmenter, self.parser_dir)
        self.cache_size = cache_size
        self._nlp: Any = None
        self._lock = threading.RLock()
        self._cache: OrderedDict[str, Parsed] = OrderedDict()
        self.load_seconds: Optional[float] = None
        self.hits = 0
        self.misses = 0

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            with self._lock:
                if self._nlp is None:
                    self._nlp = self._load()
        return self._nlp

    @property
    def own_tokenizer(self) -> bool:
        """True when the pipeline segments itself (an official zh_core_web_* model uses pkuseg)."""
        seg = getattr(self.nlp.tokenizer, "segmenter", "char")
        return str(getattr(seg, "value", seg)) != "char"

    def _load(self) -> Any:
        with _thinc_without_torch():
            import spacy

        t0 = time.perf_counter()
        target = self.parser_dir / "zh_loopagent_parser" if self.model == BUILTIN else self.model
        try:
            nlp = spacy.load(target, exclude=["senter", "ner"])
        except OSError as exc:
            raise LoopAgentError("E204", model=str(target), detail=str(exc).split("\n")[0]) from exc
        if "parser" not in nlp.pipe_names:
            raise LoopAgentError("E204", model=str(target), detail=f"it has no parser (pipes: {nlp.pipe_names})")
        self.load_seconds = time.perf_counter() - t0
        return nlp

    def parse(self, text: str) -> Parsed:
        """Parse one sentence (cached)."""
        with self._lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                self.hits += 1
                return hit
            self.misses += 1
            parsed = self._parse(text)
            self._cache[text] = parsed
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
            return parsed

    def parse_many(self, texts: list[str]) -> list[Parsed]:
        """Parse several sentences, batching the uncached ones (about 2.5x faster than one by one)."""
        with self._lock:
            todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
            if todo:
                self.misses += len(todo)
                for parsed in self._parse_batch(todo):
                    self._cache[parsed.text] = parsed
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
            out = []
            for t in texts:
                if t not in todo:
                    self.hits += 1
                self._cache.move_to_end(t)
                out.append(self._cache[t])
            return out

    def _parse_batch(self, texts: list[str]) -> list[Parsed]:
        from spacy.tokens import Doc

        nlp = self.nlp
        if self.own_tokenizer:
            return [Parsed(t, d, [(x.idx, x.idx + len(x.text)) for x in d]) for t, d in zip(texts, nlp.pipe(texts))]
        spans = [self.segmenter.spans(t) or [(t, 0, len(t))] for t in texts]
        docs = [Doc(nlp.vocab, words=[w for w, _, _ in sp], spaces=[False] * len(sp)) for sp in spans]
        for _, proc in nlp.pipeline:
            docs = list(proc.pipe(docs, batch_size=64))
        return [Parsed(t, _slim(d), [(s, e) for _, s, e in sp]) for t, d, sp in zip(texts, docs, spans)]

    def _parse(self, text: str) -> Parsed:
        from spacy.tokens import Doc

        nlp = self.nlp
        if self.own_tokenizer:
            doc = nlp(text)
            return Parsed(text, doc, [(t.idx, t.idx + len(t.text)) for t in doc])
        spans = self.segmenter.spans(text) or [(text, 0, len(text))]
        doc = Doc(nlp.vocab, words=[w for w, _, _ in spans], spaces=[False] * len(spans))
        for _, proc in nlp.pipeline:
            doc = proc(doc)
        return Parsed(text, _slim(doc), [(s, e) for _, s, e in spans])


_defaults: dict[str, Parser] = {}
_default_lock = threading.Lock()


def default_parser(parser_dir: Optional[Path] = None) -> Parser:
    """The process-wide parser with default settings (one per parser folder)."""
    key = str(parser_dir or PARSER_DIR)
    p = _defaults.get(key)
    if p is None:
        with _default_lock:
            p = _defaults.get(key)
            if p is None:
                p = _defaults[key] = Parser(parser_dir=parser_dir)
    return p
