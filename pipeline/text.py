"""Text helpers shared by ingest and the stages: normalisation and sentence splitting."""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import regex

from . import cues
from .numbers import UNITS
from .types import Block, Sentence

# Characters that close a sentence in Chinese legal text. '；' separates the
# coordinated provisions of one 款, which questions address one at a time.
_ENDERS = set("。！？；!?;")
_OPEN = "“‘（(《〈「『【［"
_CLOSE = "”’）)》〉」』】］"
_PAIR = dict(zip(_OPEN, _CLOSE))
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SPACES = re.compile(r"[ \t\u3000\xa0]+")


def normalize(text: str) -> str:
    """NFKC (keeping Chinese full-width punctuation), control characters removed, spaces collapsed.

    Full-width （）：；，？！ are structure markers in Chinese legal text (（一）, 下列情形：),
    so they survive; everything else (full-width digits and Latin, compatibility
    ideographs) is folded by NFKC. Newlines are kept.
    """
    parts = _KEEP.split(text)
    text = "".join(p if i % 2 else unicodedata.normalize("NFKC", p) for i, p in enumerate(parts))
    text = _CONTROL.sub("", text)
    text = _SPACES.sub(" ", text)
    return text


_KEEP = re.compile("([（）：；，？！])")

# a space a typesetter puts between a figure and a Chinese word (享有 3 日, 最大为 1460, 满 2 年): not a word break
# and the spaces around a Latin unit after a figure (超过 10 km 的, 低于 3.0 V 时 → 超过10km的, 低于3.0V时); the
# `regex` module for the variable-length look-behind
_LATIN_UNIT = "(?:" + "|".join(sorted((regex.escape(u) for u in UNITS if u[:1] < "\u3000"), key=len, reverse=True)) + \
    ")(?![A-Za-z])"  # the units of dictionaries/units.yaml before the CJK blocks (km, mA, °C …), never a word
_FIGURE_SPACE = regex.compile(r"(?<=[0-9\u4e00-\u9fff%])[ \t\u3000\xa0]+(?=[0-9])|(?<=[0-9])[ \t\u3000\xa0]+(?=[\u4e00-\u9fff%])"
                              rf"|(?<=[0-9])[ \t\u3000\xa0]+(?={_LATIN_UNIT})"
                              rf"|(?<=[0-9][ \t\u3000\xa0]*{_LATIN_UNIT})[ \t\u3000\xa0]+(?=[\u4e00-\u9fff])")


@lru_cache(maxsize=4096)
def close_figures(text: str) -> tuple[str, tuple[int, ...]]:
    """``text`` without the spaces around figures (享有 3 日 → 享有3日), and for each character of the result
    (and its end) its offset in ``text``, so that a span found in the result maps back to ``text``."""
    if not _FIGURE_SPACE.search(text):
        return text, ()
    keep = [True] * len(text)
    for m in _FIGURE_SPACE.finditer(text):
        for i in range(m.start(), m.end()):
            keep[i] = False
    where = tuple(i for i, k in enumerate(keep) if k) + (len(text),)
    return "".join(c for c, k in zip(text, keep) if k), where


def span_back(where: tuple[int, ...], span: tuple[int, int]) -> tuple[int, int]:
    """A span of :func:`close_figures`' result as a span of the original text (``where`` empty: unchanged)."""
    if not where:
        return span
    a, b = span
    return where[a], (where[b - 1] + 1 if b > a else where[a])


_ASIDE = re.compile(r"[（(][^（）()]{2,40}[）)]")


def strip_asides(text: str, repl: str = "") -> str:
    """Remove bracketed asides (（续租、转租）): in a question they explain, they do not ask."""
    return _ASIDE.sub(repl, text)


# texts whose sentences are kept (least recently used dropped): one answer splits the same few dozen
# blocks about 70 times (syntax, extract, the orchestrator), which was the largest single Python cost
SPLIT_CACHE = 4096


def split_sentences(text: str) -> list[Sentence]:
    """Split block text into sentences at 。！？； outside quotes and brackets.

    Offsets index into ``text``; closing quotes right after an ender stay with
    the sentence. Newlines also end a sentence. A new list each call; the
    :class:`Sentence` objects in it are shared between calls (read only).
    """
    return list(_split_cached(text))


@lru_cache(maxsize=SPLIT_CACHE)
def _split_cached(text: str) -> tuple[Sentence, ...]:
    return tuple(_split(text))


def _split(text: str) -> list[Sentence]:
    sentences: list[Sentence] = []
    stack: list[str] = []
    start = 0
    n = len(text)
    i = 0
    while i < n:
        ch = text[i]
        if ch in _PAIR:
            stack.append(_PAIR[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
            if not stack and ch in "”’」』" and i > 0 and text[i - 1] in _ENDERS:
                _emit(text, start, i + 1, sentences)  # 。” closes the sentence
                start = i + 1
        elif ch in _CLOSE and ch in stack:  # unbalanced: close up to the match
            while stack and stack.pop() != ch:
                pass
        if ch == "\n" or (ch in _ENDERS and not stack):
            end = i + 1
            while end < n and (text[end] in _ENDERS or text[end] in "”’」』"):
                end += 1
            _emit(text, start, end, sentences)
            start = end
            i = end
            if ch == "\n":
                stack.clear()
            continue
        if len(stack) > 8:  # runaway nesting means broken quoting: stop honouring it
            stack.clear()
        i += 1
    _emit(text, start, n, sentences)
    return sentences


# A run longer than this without a sentence end is cut into windows (at the last comma or space
# of each window when there is one), so no per-sentence work ever sees unbounded text. The longest
# real sentence of the dev corpus has 220 characters.
MAX_SENTENCE_CHARS = 500
_SOFT_BREAKS = "，,、：: "


def _emit(text: str, start: int, end: int, out: list[Sentence]) -> None:
    while start < end and text[start] in " \n\t":
        start += 1
    stop = end
    while stop > start and text[stop - 1] in " \n\t":
        stop -= 1
    while stop - start > MAX_SENTENCE_CHARS:
        cut = start + MAX_SENTENCE_CHARS
        soft = max(text.rfind(ch, start + MAX_SENTENCE_CHARS // 2, cut) for ch in _SOFT_BREAKS)
        if soft > start:
            cut = soft + 1
        out.append(Sentence(text=text[start:cut], start=start, end=cut))
        start = cut
        while start < stop and text[start] in " \n\t":
            start += 1
    if stop > start:
        out.append(Sentence(text=text[start:stop], start=start, end=stop))


def block_sentences(block: Block) -> list[Sentence]:
    """Sentences of a block; a table's rows ('header：cell；…' lines) are its sentences (cached like
    :func:`split_sentences`: a new list of shared, read-only sentences)."""
    if block.type == "table":
        return list(_table_rows(block.text))
    return split_sentences(block.text)


@lru_cache(maxsize=SPLIT_CACHE)
def _table_rows(text: str) -> tuple[Sentence, ...]:
    out, pos = [], 0
    for line in text.split("\n"):
        if line.strip():
            out.append(Sentence(line, pos, pos + len(line)))
        pos += len(line) + 1
    return tuple(out)


_N = cues.chars("text.article_numerals")  # rules/pipeline_cues.yaml
# 本办法第三条第一款、第五条、第八条第二款 → 第三条, 第五条, 第八条
_CITED_RUN = re.compile(rf"(?:本法|本条例|本规定|本办法)((?:第[{_N}]+条(?:第[{_N}]+[款项])*[、和及或者]*)+)")
_ARTICLE_LABEL = re.compile(rf"第[{_N}]+条")


def cited_articles(text: str, limit: int = 4) -> list[str]:
    """The articles of the same document that ``text`` cites (本办法第三条第一款、第五条 → 第三条, 第五条)."""
    labels = [a for run in _CITED_RUN.findall(text) for a in _ARTICLE_LABEL.findall(run)]
    return list(dict.fromkeys(labels))[:limit]
