"""Word segmentation shared by the store (FTS5 index) and the stages: jieba with the project dictionaries.

One process-wide jieba Tokenizer, initialised lazily under a lock, with every
``*.txt`` user dictionary in ``dictionaries/`` (jieba format: word [freq] [pos]).
"""
from __future__ import annotations

import logging
import re
import threading
from array import array
from bisect import bisect_left
from functools import lru_cache
from pathlib import Path
from typing import Optional

DICT_DIR = Path(__file__).resolve().parent.parent / "dictionaries"
_lock = threading.Lock()
_tokenizer = None
_WORD = re.compile(r"[\w\u4e00-\u9fff]", re.U)
_USER_DICT_SKIP = {"stopwords.txt"}


def get_tokenizer(dict_dir: Optional[Path] = None):
    """The shared jieba.Tokenizer with the user dictionaries loaded (thread-safe, once per process)."""
    global _tokenizer
    if _tokenizer is not None:
        return _tokenizer
    with _lock:
        if _tokenizer is None:
            import jieba

            jieba.setLogLevel(logging.WARNING)
            tok = jieba.Tokenizer()
            tok.initialize()
            for f in sorted((dict_dir or DICT_DIR).glob("*.txt")):
                if f.name not in _USER_DICT_SKIP:
                    tok.load_userdict(str(f))
            _tokenizer = tok
    return _tokenizer


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
    """Stop words from dictionaries/stopwords.txt (comments with #)."""
    path = DICT_DIR / "stopwords.txt"
    if not path.exists():
        return frozenset()
    return frozenset(l.strip() for l in path.read_text(encoding="utf-8").splitlines()
                     if l.strip() and not l.startswith("#"))


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
