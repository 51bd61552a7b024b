"""Word segmentation shared by the store (FTS5 index) and the stages: jieba with the configured dictionaries.

One process-wide jieba Tokenizer, built lazily under a lock, with the ``*.txt`` user
dictionaries of the configured dictionary folders (jieba format: word [freq] [pos]).
:func:`configure` (called by :class:`~pipeline.rules.RuleSet` on every reload) switches
the files; when they or their modification times change the tokenizer is rebuilt on next
use, so a new user word takes effect without a restart. Before any ``configure`` the
shipped dictionaries apply. The tokenizer is per process (jieba's dictionary costs
about 50 MB), so knowledge bases in one process share the last configured dictionaries.
"""
from __future__ import annotations

import logging
import os
import re
import threading
from array import array
from bisect import bisect_left
from functools import lru_cache
from pathlib import Path
from typing import Optional, Sequence

from . import cues
from . import cache

_lock = threading.RLock()
_tokenizer = None
_WORD = re.compile(r"[\w\u4e00-\u9fff]", re.U)
_files: Optional[tuple[tuple[str, int], ...]] = None   # (path, mtime) of the user dictionaries in effect
_stop_files: tuple[tuple[str, int], ...] = ()  # (path, mtime) of the stop-word files
_index_words: Optional[frozenset[str]] = None
_generation = 0


def _key(paths: Sequence[Path]) -> tuple[tuple[str, int], ...]:
    out = []
    for p in paths:
        try:
            out.append((str(p), Path(p).stat().st_mtime_ns))
        except OSError:
            continue
    return tuple(out)


def _default_files() -> tuple[list[Path], list[Path]]:
    from .config import Settings
    s = Settings.default()
    return s.user_dict_files(), s.stopword_files()


def configure(user_dicts: Sequence[Path], stopword_files: Sequence[Path] = ()) -> bool:
    """Use these jieba user dictionaries and stop-word files from now on.

    Returns True when they differ (files or modification times) from the ones in effect
    before; the tokenizer is then rebuilt on next use.
    """
    global _files, _stop_files, _tokenizer, _index_words, _generation
    key = _key(user_dicts)
    stops = _key(stopword_files)
    with _lock:
        if key == _files and stops == _stop_files:
            return False
        first = _files is None
        _files, _stop_files = key, stops
        _tokenizer = None
        _index_words = None
        _cut_cached.cache_clear()
        stopwords.cache_clear()
        _generation += 1
        return not first


def dictionary_files() -> tuple[list[str], list[str]]:
    """(user dictionaries, stop-word files) in effect, as :func:`configure` takes them (for worker processes)."""
    get_tokenizer()
    return [p for p, _ in _files or ()], [p for p, _ in _stop_files]


def generation() -> int:
    """Bumped whenever the dictionaries in effect change."""
    return _generation


def user_words(paths: Optional[Sequence[Path]] = None) -> list[str]:
    """The words (first field of each line) of jieba user dictionaries; comments start with #."""
    if paths is None:
        paths = [Path(p) for p, _ in (_files or _key(_default_files()[0]))]
    out = []
    for p in paths:
        try:
            text = Path(p).read_text(encoding="utf-8")
        except OSError:
            continue
        out += [l.split()[0] for l in text.splitlines() if l.strip() and not l.lstrip().startswith("#")]
    return out


def get_tokenizer(dict_dir: Optional[Path] = None):
    """The shared jieba.Tokenizer with the user dictionaries loaded (thread-safe, rebuilt after a change).

    ``dict_dir`` (for old callers) configures the ``*.txt`` files of that folder first.
    """
    global _tokenizer, _index_words
    if dict_dir is not None:
        configure([p for p in sorted(Path(dict_dir).glob("*.txt")) if p.name != "stopwords.txt"],
                  [Path(dict_dir) / "stopwords.txt"])
    tok = _tokenizer
    if tok is not None:
        return tok
    with _lock:
        if _tokenizer is None:
            import jieba

            if _files is None:
                configure(*_default_files())
            jieba.setLogLevel(logging.WARNING)
            tok = jieba.Tokenizer()
            _initialize(tok)
            paths = [p for p, _ in _files or ()]
            words = set(user_words(paths))
            # the user words jieba alone would split: these are the ones that change the index
            _index_words = frozenset(w for w in words if tok.lcut(w, HMM=False) != [w])
            for f in paths:
                tok.load_userdict(f)
            _tokenizer = tok
    return _tokenizer


def _dict_path(tok) -> str:
    import jieba
    return tok.dictionary or os.path.join(os.path.dirname(jieba.__file__), "dict.txt")


class LazyFreq(dict):
    """jieba's prefix dictionary (word or prefix -> frequency), filled one first character at a time.

    A process that only answers questions looks up a few hundred words, all starting with the
    question's few dozen characters; building the full 500k-entry dict costs 0.3-1.2 s at start-up.
    The words are kept as one sorted string with offset and frequency arrays (read from the cache
    in about 20 ms); the entries of a first character become dict entries the first time any word
    starting with it is looked up, so every lookup sees exactly the value of the full dict. Writes
    (jieba's add_word for user dictionaries) load their character first.
    """

    def __init__(self, blob: str, starts: "array[int]", freqs: "array[int]", index: dict[str, tuple[int, int]]):
        super().__init__()
        self._blob, self._starts, self._freqs, self._all = blob, starts, freqs, index
        self._index = dict(index)  # first characters not loaded yet

    @classmethod
    def build(cls, freq: dict) -> "LazyFreq":
        words = sorted(freq)
        starts, pos = array("I"), 0
        index: dict[str, tuple[int, int]] = {}
        for i, w in enumerate(words):
            starts.append(pos)
            pos += len(w) + 1
            lo, _ = index.get(w[0], (i, i))
            index[w[0]] = (lo, i + 1)
        return cls("\n".join(words), starts, array("I", (freq[w] for w in words)), index)

    def state(self) -> tuple:
        """The base dictionary (as built, without later writes), marshal-able for the cache."""
        return (self._blob, self._starts.tobytes(), self._freqs.tobytes(), self._all)

    @classmethod
    def restore(cls, state: tuple) -> "LazyFreq":
        blob, starts, freqs, index = state
        a, f = array("I"), array("I")
        a.frombytes(starts)
        f.frombytes(freqs)
        return cls(blob, a, f, index)

    def _load(self, ch: str) -> None:
        lo, hi = self._index.pop(ch)
        end = self._starts[hi] - 1 if hi < len(self._starts) else len(self._blob)
        dict.update(self, zip(self._blob[self._starts[lo]:end].split("\n"), self._freqs[lo:hi]))

    def __contains__(self, k: object) -> bool:
        if isinstance(k, str) and k and k[0] in self._index:
            self._load(k[0])
        return dict.__contains__(self, k)

    def __getitem__(self, k: str) -> int:
        if k and k[0] in self._index:
            self._load(k[0])
        return dict.__getitem__(self, k)

    def get(self, k: str, default=None):
        if isinstance(k, str) and k and k[0] in self._index:
            self._load(k[0])
        return dict.get(self, k, default)

    def __setitem__(self, k: str, v: int) -> None:
        if k and k[0] in self._index:
            self._load(k[0])
        dict.__setitem__(self, k, v)

    def full(self) -> dict:
        """A plain dict of every entry (for bulk work such as ingest, where lookups dominate)."""
        for ch in list(self._index):
            self._load(ch)
        return dict(self)


def _initialize(tok) -> None:
    """Give ``tok`` jieba's prefix dictionary as a :class:`LazyFreq` from the loopagent cache
    (pipeline/cache.py), else build it as jieba does and cache it. Every lookup returns what jieba's
    own dictionary holds; only the start-up cost differs."""
    import jieba
    key = cache.file_key(_dict_path(tok)) + "-" + str(getattr(jieba, "__version__", ""))
    got = cache.load("jieba_lazy", key)
    if isinstance(got, tuple) and len(got) == 2 and isinstance(got[1], tuple):
        tok.FREQ, tok.total = LazyFreq.restore(got[1]), got[0]
        tok.initialized = True
        return
    tok.initialize()
    lazy = LazyFreq.build(tok.FREQ)
    cache.save("jieba_lazy", key, (tok.total, lazy.state()))


def full_dictionary() -> None:
    """Turn the shared tokenizer's prefix dictionary into a plain dict (before bulk tokenising: ingest)."""
    tok = get_tokenizer()
    with _lock:
        if isinstance(tok.FREQ, LazyFreq):
            tok.FREQ = tok.FREQ.full()


def index_words() -> frozenset[str]:
    """User-dictionary words that jieba without them would split (they decide how documents are indexed)."""
    get_tokenizer()
    return _index_words or frozenset()


def splits(word: str) -> list[str]:
    """How the current tokenizer segments ``word`` (one element when it is kept whole)."""
    return get_tokenizer().lcut(word, HMM=False)


@lru_cache(maxsize=4096)
def _cut_cached(text: str) -> tuple[str, ...]:
    return tuple(get_tokenizer().lcut(text, HMM=True))


def cut(text: str) -> list[str]:
    """Segment ``text`` into words (punctuation and spaces kept as tokens)."""
    return list(_cut_cached(text))


def index_tokens(text: str) -> str:
    """Space-joined search tokens of ``text`` for FTS5: words plus their sub-words, lower-cased."""
    tok = get_tokenizer()
    words = [w.lower() for w in tok.cut_for_search(text) if _WORD.search(w)]
    return " ".join(words)


def is_word(token: str) -> bool:
    """True for a token with at least one letter, digit or CJK character."""
    return bool(_WORD.search(token))


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    """Stop words from the stopwords.txt of the dictionary folders (comments with #)."""
    files = [Path(p) for p, _ in _stop_files] if _files is not None else _default_files()[1]
    out: set[str] = set()
    for path in files:
        if path.exists():
            out |= {l.strip() for l in path.read_text(encoding="utf-8").splitlines()
                    if l.strip() and not l.startswith("#")}
    return frozenset(out)


_pos_lock = threading.Lock()
_pos_table: Optional[dict] = None
_FUNCTION_CHARS = re.compile(cues.pattern("tokenize.function_chars"))  # rules/pipeline_cues.yaml
_CONTENT_TAGS = ("n", "nr", "ns", "nt", "nz", "vn", "eng", "nrt", "nrfg", "an", "j", "l", "i", "t", "s")


POS_CACHE = 8192  # words whose tag is kept (least recently used dropped)


def pos_tag(word: str) -> Optional[str]:
    """The dictionary part-of-speech tag of ``word`` (jieba's dictionary), None for unknown words."""
    return _pos_tag(word, _generation)


@lru_cache(maxsize=POS_CACHE)
def _pos_tag(word: str, generation: int) -> Optional[str]:
    """:func:`pos_tag` for the dictionaries of ``generation`` (user words count as nouns)."""
    tag = _tags().get(word)
    if tag is None:
        return "n" if get_tokenizer().FREQ.get(word) else None
    return tag


class _TagTable:
    """word -> tag for the non-noun words of jieba's dictionary (nouns are the default), kept compact.

    Built here rather than with jieba.posseg, whose full table costs about 95 MB; a plain dict of the
    231k non-noun words still costs about 36 MB, so the words are one sorted string searched by
    bisection (about 3 MB).
    """

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        pairs.sort()
        self._tag_names = sorted({t for _, t in pairs})
        code = {t: i for i, t in enumerate(self._tag_names)}
        self._blob = "\n".join(w for w, _ in pairs)
        self._starts = array("I")
        pos = 0
        for w, _ in pairs:
            self._starts.append(pos)
            pos += len(w) + 1
        self._codes = bytes(code[t] for _, t in pairs)

    def state(self) -> tuple:
        """What :meth:`restore` needs (marshal-able), for the on-disk cache."""
        return (self._tag_names, self._blob, self._starts.tobytes(), self._codes)

    @classmethod
    def restore(cls, state: tuple) -> "_TagTable":
        t = cls.__new__(cls)
        t._tag_names, t._blob, starts, t._codes = state
        t._starts = array("I")
        t._starts.frombytes(starts)
        return t

    def _word(self, i: int) -> str:
        end = self._starts[i + 1] - 1 if i + 1 < len(self._starts) else len(self._blob)
        return self._blob[self._starts[i]:end]

    def get(self, word: str) -> Optional[str]:
        i = bisect_left(range(len(self._starts)), word, key=self._word)
        if i < len(self._starts) and self._word(i) == word:
            return self._tag_names[self._codes[i]]
        return None

    def __len__(self) -> int:
        return len(self._starts)


def _tags() -> _TagTable:
    global _pos_table
    if _pos_table is None:
        with _pos_lock:
            if _pos_table is None:
                tok = get_tokenizer()
                key = cache.file_key(_dict_path(tok)) + f"-{array('I').itemsize}"
                state = cache.load("jieba_tags", key)
                if isinstance(state, tuple) and len(state) == 4:
                    _pos_table = _TagTable.restore(state)
                    return _pos_table
                pairs: dict[str, str] = {}
                with tok.get_dict_file() as f:
                    for raw in f:
                        parts = raw.decode("utf-8").split()
                        if len(parts) >= 3 and parts[2] != "n" and "\n" not in parts[0]:
                            pairs[parts[0]] = parts[2]  # a later line for the same word wins, as in a dict
                _pos_table = _TagTable(list(pairs.items()))
                cache.save("jieba_tags", key, _pos_table.state())
    return _pos_table


def is_content_word(word: str) -> bool:
    """Whether ``word`` names something (noun-like or unknown to the dictionary), not a function word.

    Unknown words that start with a modal (能休, 可领) are jieba fragments, not names.
    The part-of-speech table is loaded on first use (about 0.7 s, once per process).
    """
    if _FUNCTION_CHARS.search(word):
        return False  # 交了, 最多能, 有何, 被扣: jieba fragments around function characters
    tag = pos_tag(word)
    if tag is None:
        return True
    return tag.startswith(_CONTENT_TAGS)
