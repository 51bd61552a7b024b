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
import re
import threading
from array import array
from bisect import bisect_left
from functools import lru_cache
from pathlib import Path
from typing import Optional, Sequence

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
            tok.initialize()
            paths = [p for p, _ in _files or ()]
            words = set(user_words(paths))
            # the user words jieba alone would split: these are the ones that change the index
            _index_words = frozenset(w for w in words if tok.lcut(w, HMM=False) != [w])
            for f in paths:
                tok.load_userdict(f)
            _tokenizer = tok
    return _tokenizer


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
_FUNCTION_CHARS = re.compile(r"[了的着过吗呢吧啊被把让给去来要能会可想得还就都也又很太最各有何几为我你他她它们这那哪么什不没别做是在之内段开里足]")
_CONTENT_TAGS = ("n", "nr", "ns", "nt", "nz", "vn", "eng", "nrt", "nrfg", "an", "j", "l", "i", "t", "s")


def pos_tag(word: str) -> Optional[str]:
    """The dictionary part-of-speech tag of ``word`` (jieba's dictionary), None for unknown words."""
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
                pairs: dict[str, str] = {}
                with tok.get_dict_file() as f:
                    for raw in f:
                        parts = raw.decode("utf-8").split()
                        if len(parts) >= 3 and parts[2] != "n" and "\n" not in parts[0]:
                            pairs[parts[0]] = parts[2]  # a later line for the same word wins, as in a dict
                _pos_table = _TagTable(list(pairs.items()))
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
