"""CJK text clean-up for layout formats (PDF, HTML, Excel): look-alike glyphs, layout spaces.

PDF producers often map glyphs to Kangxi radicals (⼯ U+2F2F) or CJK radical
supplement forms (⻔ U+2EE8) instead of the ideographs they look like; search
and templates need the real characters.
"""
from __future__ import annotations

import re

from ..cues import table
from ..text import normalize

# Radical look-alikes and the ideographs they stand for: dictionaries/cjk_variants.yaml (read once, at import).
LOOKALIKES: dict[str, str] = {str(k): str(v) for k, v in table("cjk.lookalikes").items()}
_LOOKALIKE_RX = re.compile("[" + "".join(LOOKALIKES) + "]")
_CJK = r"\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
# a space next to a CJK character is a layout artefact (justification, Word's
# CJK/Latin spacing); spaces between Latin words are kept
_SPACE_NEAR_CJK = re.compile(rf"(?<=[{_CJK}]) +| +(?=[{_CJK}])")
_CID = re.compile(r"\(cid:\d+\)")
_CIRCLED = re.compile("([\u2460-\u2473])")


def fold_lookalikes(text: str) -> str:
    """Replace radical look-alikes (⻔⼾) by the ideographs they stand for (门户)."""
    return _LOOKALIKE_RX.sub(lambda m: LOOKALIKES[m.group(0)], text)


def clean_text(text: str) -> str:
    """Look-alikes folded, NFKC via :func:`normalize`, ``(cid:N)`` and layout spaces removed.

    >>> clean_text("⽤⼾ 扣款 30 元 (cid:12)")
    '用户扣款30元'
    """
    text = _CID.sub("", fold_lookalikes(text))
    # circled numbers (①) label list items; NFKC would turn them into plain digits
    parts = _CIRCLED.split(text)
    text = "".join(p if i % 2 else normalize(p) for i, p in enumerate(parts))
    return _SPACE_NEAR_CJK.sub("", text).strip()


def is_cjk_char(ch: str) -> bool:
    return bool(ch) and bool(re.match(rf"[{_CJK}]", ch))


def join_lines(parts: list[str]) -> str:
    """Join wrapped lines: no space after a CJK character or a hyphen, one space between Latin words."""
    out = ""
    for p in parts:
        p = p.strip()
        if not p:
            continue
        if out and not (is_cjk_char(out[-1]) or is_cjk_char(p[0]) or out.endswith(("-", "/", "_"))):
            out += " "
        out += p
    return out
