"""Word segmentation shared by the store (FTS5 index) and the stages: jieba with the project dictionaries.

One process-wide jieba Tokenizer, initialised lazily under a lock, with every
``*.txt`` user dictionary in ``dictionaries/`` (jieba format: word [freq] [pos]).
"""
from __future__ import annotations

import logging
import re
import sys
import threading
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
    table = _tags()
    tag = table.get(word)
    if tag is None:
        return "n" if get_tokenizer().FREQ.get(word) else None
    return tag


def _tags() -> dict:
    """word -> tag for the non-noun words of jieba's dictionary (nouns are the default).

    Built here rather than with jieba.posseg, whose full table costs about 95 MB.
    """
    global _pos_table
    if _pos_table is None:
        with _pos_lock:
            if _pos_table is None:
                tok = get_tokenizer()
                table: dict[str, str] = {}
                tags: dict[str, str] = {}
                with tok.get_dict_file() as f:
                    for raw in f:
                        parts = raw.decode("utf-8").split()
                        if len(parts) >= 3 and parts[2] != "n":
                            table[sys.intern(parts[0])] = tags.setdefault(parts[2], parts[2])
                _pos_table = table
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
