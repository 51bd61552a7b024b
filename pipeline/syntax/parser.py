"""The stage-2 parser: the shipped UD-trained pipeline (or an installed zh_core_web_*), loaded once.

Parses are cached by sentence text (blocks do not change between questions), so a
warm stage re-parses nothing; given a store, they are also read from and written to its
``parses`` table (pipeline/syntax/parsed.py), keyed by the model's :attr:`Parser.version`, so
a process answering from a filled store never loads spaCy. Loading and parsing are guarded
by one lock: spaCy components are not documented as thread-safe.
"""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
import time
from collections import OrderedDict
import hashlib
import importlib.util
import json
import logging
from typing import Any, Optional

from ..errors import LoopAgentError
from pathlib import Path

from .parsed import Parsed, decode, encode, label_table, parse_key
from .segment import PARSER_DIR, Segmenter

log = logging.getLogger("loopagent.syntax")

BUILTIN = "builtin"
BUILTIN_DIR = PARSER_DIR / "zh_loopagent_parser"  # the shipped default; Parser(parser_dir=...) overrides
# bump when the way words, offsets or arrays are produced changes (segment.ud_split, Parsed.from_doc)
PARSE_CODE_VERSION = "1"
_HEAD_TAIL = 1 << 16  # bytes of a large model file that go into the version hash (its start and end)


def _hash_tree(h: "hashlib._Hash", root: Path) -> None:
    """Feed names, sizes and content (start and end of large files) of every file under ``root``."""
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    for f in files:
        size = f.stat().st_size
        h.update(f"{f.relative_to(root) if f != root else f.name}\0{size}\0".encode())
        with open(f, "rb") as fh:
            if size <= 2 * _HEAD_TAIL:
                h.update(fh.read())
            else:
                h.update(fh.read(_HEAD_TAIL))
                fh.seek(size - _HEAD_TAIL)
                h.update(fh.read())


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


@contextmanager
def _spacy_without_cli():
    """Import spaCy without its command line (typer, rich, weasel, httpx, jinja2: about 15 MB resident).

    ``spacy/__init__`` imports ``spacy.cli.info`` only to re-export ``spacy.info``; loading and running a
    pipeline never needs the CLI. While spaCy is imported, a stand-in ``spacy.cli`` is in ``sys.modules``;
    it is removed afterwards, so a later ``import spacy.cli`` loads the real one, and ``spacy.info`` imports
    it when called. Nothing changes when spaCy is already imported.
    """
    if "spacy" in sys.modules or "spacy.cli" in sys.modules:
        yield
        return
    import types

    def info(*args: Any, **kwargs: Any) -> Any:
        from spacy.cli.info import info as real
        return real(*args, **kwargs)

    cli = types.ModuleType("spacy.cli")
    cli.__path__ = []  # type: ignore[attr-defined]  # a package, so that spacy.cli.info resolves to the stand-in
    cli_info = types.ModuleType("spacy.cli.info")
    cli_info.info = info  # type: ignore[attr-defined]
    sys.modules["spacy.cli"] = cli
    sys.modules["spacy.cli.info"] = cli_info
    try:
        yield
    finally:
        for name, mod in (("spacy.cli.info", cli_info), ("spacy.cli", cli)):
            if sys.modules.get(name) is mod:
                del sys.modules[name]
        spacy = sys.modules.get("spacy")
        if spacy is not None and getattr(spacy, "cli", None) is cli:
            delattr(spacy, "cli")


@contextmanager
def lean_spacy():
    """Import spaCy (or its submodules) without torch and without its command line: every spaCy import here."""
    with _thinc_without_torch(), _spacy_without_cli():
        yield


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
        self.stored_hits = 0  # parses read from a store instead of parsed
        self._version: Optional[str] = None
        self._labels: Optional[tuple[str, ...]] = None

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
        with lean_spacy():
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

    @property
    def loaded(self) -> bool:
        """Whether the spaCy pipeline or the segmenter is held in memory now."""
        return self._nlp is not None or self.segmenter.loaded

    def release(self) -> bool:
        """Drop the spaCy pipeline and the segmenter (they load again on the next parse); the parse cache stays.

        For a process that parsed only to fill a store (``ingest(parse=True)``) and then answers from the stored
        parses: about 60 MB it would otherwise keep (spaCy's modules stay imported). Returns whether anything was held.
        """
        with self._lock:
            held = self._nlp is not None
            self._nlp = None
            held = self.segmenter.release() or held
        if held:
            import gc

            from ..memory import trim
            gc.collect()  # the pipeline's objects hold reference cycles
            trim()
        return held

    # --- model identity (no spaCy import) ------------------------------------------
    def model_path(self) -> Optional[Path]:
        """The folder of the spaCy pipeline this parser loads, found without importing spaCy."""
        if self.model == BUILTIN:
            return self.parser_dir / "zh_loopagent_parser"
        if Path(self.model).exists():
            return Path(self.model)
        try:
            spec = importlib.util.find_spec(self.model)
        except (ImportError, ValueError):
            return None
        locs = list(spec.submodule_search_locations or []) if spec else []
        return Path(locs[0]) if locs else None

    @property
    def version(self) -> Optional[str]:
        """A hash of the model files, the segmenter and its model, and the parse code version: the key
        under which parses are persisted. None (nothing persisted) when the model cannot be found or the
        words come from jieba, whose user dictionaries can change at run time."""
        if self._version is None:
            path = self.model_path()
            if path is None or self.segmenter.name == "jieba" or not (path / "meta.json").exists():
                self._version = ""
            else:
                h = hashlib.blake2b(digest_size=12)
                h.update(f"{PARSE_CODE_VERSION}\0{self.segmenter.name}\0".encode())
                _hash_tree(h, path)
                for extra in (self.parser_dir / "pkuseg", self.parser_dir / "pkuseg_words.txt"):
                    if extra.exists():
                        _hash_tree(h, extra)
                self._version = h.hexdigest()
        return self._version or None

    @property
    def labels(self) -> tuple[str, ...]:
        """The model's interned label table (from its meta.json)."""
        if self._labels is None:
            path = self.model_path()
            try:
                meta = json.loads((path / "meta.json").read_text(encoding="utf-8")) if path else {}
            except (OSError, ValueError):
                meta = {}
            self._labels = label_table(meta)
        return self._labels

    # --- parsing --------------------------------------------------------------------
    def parse(self, text: str, store: Any = None) -> Parsed:
        """Parse one sentence (cached; read from and written to ``store`` when given)."""
        with self._lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                self.hits += 1
                return hit
        return self.parse_many([text], store)[0]

    def parse_many(self, texts: list[str], store: Any = None) -> list[Parsed]:
        """Parse several sentences, batching the uncached ones (about 2.5x faster than one by one).

        With a ``store``, sentences missing from memory are read from its ``parses`` table first;
        only the rest are parsed, and their parses are written back.
        """
        with self._lock:
            todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
            if todo and store is not None:
                for parsed in self._load_stored(store, todo):
                    self._cache[parsed.text] = parsed
                    self.stored_hits += 1
                todo = [t for t in todo if t not in self._cache]
            if todo:
                self.misses += len(todo)
                fresh = self._parse_batch(todo)
                for parsed in fresh:
                    self._cache[parsed.text] = parsed
                if store is not None:
                    self._save(store, fresh)
                _trim()  # the batch's Docs and arrays are freed: give their heap pages back
            out = []
            for t in texts:
                if t not in todo:
                    self.hits += 1
                self._cache.move_to_end(t)
                out.append(self._cache[t])
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
            return out

    def _load_stored(self, store: Any, texts: list[str]) -> list[Parsed]:
        version = self.version
        getter = getattr(store, "get_parses", None)
        if not version or getter is None:
            return []
        keys = {parse_key(version, t): t for t in texts}
        try:
            blobs = getter(list(keys))
        except LoopAgentError as exc:  # a damaged or locked store: parse instead
            log.debug("stored parses unreadable: %s", exc)
            return []
        out = []
        for k, blob in blobs.items():
            p = decode(keys[k], blob, self.labels)
            if p is not None:
                out.append(p)
        return out

    def _save(self, store: Any, parsed: list[Parsed]) -> None:
        version = self.version
        putter = getattr(store, "put_parses", None)
        if not version or putter is None:
            return
        index = {label: i for i, label in enumerate(self.labels)}
        rows = []
        for p in parsed:
            blob = encode(p, index)
            if blob is not None:
                rows.append((parse_key(version, p.text), blob))
        if rows:
            putter(version, rows)

    def parse_docs(self, texts: list[str]) -> list[Parsed]:
        """Parse without any cache (for filling a store at ingest)."""
        with self._lock:
            out = self._parse_batch(texts)
        _trim()
        return out

    def _parse_batch(self, texts: list[str]) -> list[Parsed]:
        nlp = self.nlp  # imports spaCy (without torch) before spacy.tokens below
        from spacy.tokens import Doc

        if self.own_tokenizer:
            return [Parsed.from_doc(t, d) for t, d in zip(texts, nlp.pipe(texts))]
        spans = [self.segmenter.spans(t) or [(t, 0, len(t))] for t in texts]
        docs = [Doc(nlp.vocab, words=[w for w, _, _ in sp], spaces=[False] * len(sp)) for sp in spans]
        for _, proc in nlp.pipeline:
            docs = list(proc.pipe(docs, batch_size=64))
        return [Parsed.from_doc(t, d, [(s, e) for _, s, e in sp]) for t, d, sp in zip(texts, docs, spans)]


def _trim() -> None:
    from ..memory import trim
    trim()


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
