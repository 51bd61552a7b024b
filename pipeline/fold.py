"""Traditional → Simplified character folding for matching (hanziconv's one-to-one character map).

A document written in Traditional characters (台湾/香港 contracts, 協定/終止/資訊) is folded at ingest, so that
the index, the rules and the templates see the same characters as a Simplified question; the original
text stays in ``block.meta["raw"]`` and evidence quotes it (folding is one character for one, so sentence
offsets are the same in both). A question in Traditional characters is folded the same way. Simplified
text is never touched: a document is folded only when Traditional-only characters are a clear share of it.
"""
from __future__ import annotations

import re
from functools import lru_cache

from .config import shipped_dir
from .rules import load_rule_file, register_schema

register_schema("traditional_fold", {})  # dictionaries/traditional_fold.yaml: file-level settings only
MIN_SHARE = 0.03  # share of CJK characters that must be Traditional-only for a text to count as Traditional
MIN_COUNT = 3


@lru_cache(maxsize=1)
def _table() -> dict[int, str]:
    from hanziconv.charmap import simplified_charmap, traditional_charmap
    keep = _keep()
    return {ord(t): s for t, s in zip(traditional_charmap, simplified_charmap) if t != s and t not in keep}


def _keep() -> frozenset[str]:
    """Characters never folded (dictionaries/traditional_fold.yaml `keep`): also ordinary Simplified
    characters with another sense (著作, 乾坤)."""
    rf = load_rule_file(shipped_dir("dictionaries") / "traditional_fold.yaml")
    return frozenset(str(c) for c in rf.settings.get("keep") or [])


_NOT_CJK = re.compile("[^\u4e00-\u9fff]+")


@lru_cache(maxsize=1)
def _drop_folded() -> dict[int, None]:
    return dict.fromkeys(_table())


def is_traditional(text: str) -> bool:
    """True when Traditional-only characters are at least MIN_COUNT and MIN_SHARE of the CJK characters."""
    cjk_text = _NOT_CJK.sub("", text)  # the CJK characters (U+4E00-U+9FFF), counted and tested in C
    cjk = len(cjk_text)
    trad = cjk - len(cjk_text.translate(_drop_folded()))  # those the fold table maps
    return trad >= MIN_COUNT and trad >= MIN_SHARE * cjk


def fold(text: str) -> str:
    """``text`` with Traditional characters replaced by their Simplified forms (same length)."""
    return text.translate(_table())


def fold_document(doc) -> bool:
    """Fold a Traditional document's blocks in place (the original text kept in meta['raw']); True when folded."""
    sample = "".join(b.text for b in doc.blocks[:400])
    if not is_traditional(sample):
        return False
    for b in doc.blocks:
        folded = fold(b.text)
        if folded != b.text:
            b.meta = dict(b.meta or {})
            b.meta["raw"] = b.text
            b.text = folded
        if b.section:
            b.section = [fold(s) for s in b.section]
        if b.table_header:
            b.table_header = [fold(c) for c in b.table_header]
        if b.table_rows:
            b.table_rows = [[fold(c) for c in row] for row in b.table_rows]
    doc.title = fold(doc.title) if doc.title else doc.title
    return True
