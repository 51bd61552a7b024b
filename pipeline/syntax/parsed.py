"""A parsed sentence as plain arrays, and its compact stored form (no spaCy needed to read it).

A parse is stored once per (parser model version, sentence text) in the store's ``parses``
table, so stage 2 reads and matches instead of parsing again. The blob is columnar: one
format byte, then six columns of ``n`` unsigned integers (gap before the word, word length,
tag id, POS id, dependency-label id, head index), one byte each when every value fits in a
byte (6 bytes a token), else two bytes little-endian. Label ids index the model's label table
(:func:`label_table`), which is derived from the model's ``meta.json``: a reader with the same
model version decodes without loading the model.
"""
from __future__ import annotations

import hashlib
from array import array
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

FORMAT_U8, FORMAT_U16 = 1, 2
# UPOS, the empty label (an unset attribute) and ROOT: present whatever the model lists
_ALWAYS = ("", "ROOT", "ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN",
           "PUNCT", "SCONJ", "SYM", "VERB", "X", "SPACE")


@dataclass
class Parsed:
    """A parsed sentence: words with [start, end) offsets in ``text``, tags, UPOS, labels and head indices."""

    text: str
    words: list[str]
    offsets: list[tuple[int, int]]
    tags: list[str]
    pos: list[str]
    deps: list[str]
    heads: list[int]
    _doc: Any = field(default=None, repr=False, compare=False)
    _children: Optional[list[list[int]]] = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.words)

    def span_of(self, i: int) -> tuple[int, int]:
        return self.offsets[i]

    @property
    def children(self) -> list[list[int]]:
        """Each token's dependents, in order."""
        if self._children is None:
            ch: list[list[int]] = [[] for _ in self.heads]
            for i, h in enumerate(self.heads):
                if h != i:
                    ch[h].append(i)
            self._children = ch
        return self._children

    @property
    def doc(self) -> Any:
        """A spaCy Doc with the same words, tags and arcs (imports spaCy; for code that needs a Doc)."""
        if self._doc is None:
            from .parser import lean_spacy
            with lean_spacy():
                from spacy.tokens import Doc
                from spacy.vocab import Vocab
            self._doc = to_doc(self, Vocab())
        return self._doc

    @classmethod
    def from_doc(cls, text: str, doc: Any, offsets: Optional[list[tuple[int, int]]] = None) -> "Parsed":
        """The arrays of a parsed spaCy Doc (offsets default to the tokens' own character offsets)."""
        if offsets is None:
            offsets = [(t.idx, t.idx + len(t.text)) for t in doc]
        return cls(text=text, words=[t.text for t in doc], offsets=list(offsets), tags=[t.tag_ for t in doc],
                   pos=[t.pos_ for t in doc], deps=[t.dep_ for t in doc], heads=[t.head.i for t in doc])


def to_doc(p: Parsed, vocab: Any) -> Any:
    """A spaCy Doc of ``p`` on ``vocab``."""
    from spacy.tokens import Doc

    if not p.words:
        return Doc(vocab, words=[])
    return Doc(vocab, words=p.words, spaces=[False] * len(p.words), tags=p.tags, pos=p.pos or None,
               deps=p.deps, heads=p.heads)


def label_table(meta: dict[str, Any]) -> tuple[str, ...]:
    """The interned labels of a model: UPOS, ROOT and every label its ``meta.json`` lists, sorted."""
    labels = set(_ALWAYS)
    for names in (meta.get("labels") or {}).values():
        labels.update(str(x) for x in names)
    return tuple(sorted(labels))


def parse_key(version: str, text: str) -> bytes:
    """The store key of a sentence's parse under one parser version (16 bytes)."""
    return hashlib.blake2b(f"{version}\x00{text}".encode("utf-8"), digest_size=16).digest()


def encode(p: Parsed, index: dict[str, int]) -> Optional[bytes]:
    """The stored form of ``p``, or None when a label is not in the table or the words do not match the offsets."""
    n = len(p.words)
    gaps, lens = [], []
    pos = 0
    for w, (s, e) in zip(p.words, p.offsets):
        if s < pos or e - s != len(w) or p.text[s:e] != w:
            return None  # a segmenter that normalised characters: keep it in memory only
        gaps.append(s - pos)
        lens.append(e - s)
        pos = e
    try:
        cols = [gaps, lens, [index[t] for t in p.tags], [index[t] for t in p.pos], [index[t] for t in p.deps],
                list(p.heads)]
    except KeyError:
        return None
    flat = [v for col in cols for v in col]
    if any(v < 0 for v in flat) or len(p.heads) != n:
        return None
    if all(v < 256 for v in flat):
        return bytes([FORMAT_U8]) + bytes(flat)
    if any(v >= 65536 for v in flat):
        return None
    a = array("H", flat)
    if a.itemsize != 2:  # pragma: no cover - every supported platform has 2-byte shorts
        return None
    if array("H", [1]).tobytes() != b"\x01\x00":  # pragma: no cover - big-endian
        a.byteswap()
    return bytes([FORMAT_U16]) + a.tobytes()


def decode(text: str, blob: bytes, labels: Sequence[str]) -> Optional[Parsed]:
    """The :class:`Parsed` stored in ``blob`` (None when it does not fit ``text`` or the label table)."""
    if not blob:
        return None
    fmt, body = blob[0], blob[1:]
    if fmt == FORMAT_U8:
        vals: Sequence[int] = body
    elif fmt == FORMAT_U16:
        a = array("H")
        a.frombytes(bytes(body))
        if array("H", [1]).tobytes() != b"\x01\x00":  # pragma: no cover
            a.byteswap()
        vals = a
    else:
        return None
    if len(vals) % 6:
        return None
    n = len(vals) // 6
    gaps, lens, tags, poss, deps, heads = (vals[k * n:(k + 1) * n] for k in range(6))
    try:
        offsets = []
        pos = 0
        for g, ln in zip(gaps, lens):
            s = pos + g
            pos = s + ln
            offsets.append((s, pos))
        if pos > len(text) or any(h >= n for h in heads):
            return None
        return Parsed(text=text, words=[text[s:e] for s, e in offsets], offsets=offsets,
                      tags=[labels[i] for i in tags], pos=[labels[i] for i in poss], deps=[labels[i] for i in deps],
                      heads=list(heads))
    except IndexError:
        return None
