"""Structural maturity: one 0-100 score per document saying how far its extracted structure can be trusted.

Components (each 0-1): ``text_layer`` (pages with usable text), ``text_quality``
(characters that decoded), ``headings`` (a heading tree exists and blocks sit under it),
``tables`` (parsed tables are well formed). The weights favour the text layer: without
it nothing else matters.
"""
from __future__ import annotations

from typing import Optional

from ..types import Document

WEIGHTS = {"text_layer": 40, "text_quality": 15, "headings": 30, "tables": 15}


def maturity_score(doc: Document, pages_total: int, pages_with_text: int, chars: int, bad_chars: int,
                   table_quality: Optional[list[float]] = None) -> dict:
    """Score ``doc``'s blocks; returns ``{"score": int, components..., "notes": [...]}``."""
    notes: list[str] = []
    text_layer = pages_with_text / pages_total if pages_total else 0.0
    if text_layer < 1:
        notes.append(f"{pages_total - pages_with_text} of {pages_total} pages have no usable text layer")
    text_quality = 1 - bad_chars / chars if chars else 0.0
    if bad_chars:
        notes.append(f"{bad_chars} glyphs without a Unicode map ((cid:N))")
    body = [b for b in doc.blocks if b.type not in ("heading", "note")]
    n_headings = sum(1 for b in doc.blocks if b.type == "heading")
    if body:
        under = sum(1 for b in body if b.section) / len(body)
        # about one heading per two pages is what structured documents show; fewer means a flat text
        density = min(1.0, n_headings / max(1.0, pages_total / 2))
        headings = 0.5 * under + 0.5 * density
    else:
        headings = 0.0
    if n_headings == 0:
        notes.append("no headings found: answers will have no section path")
    tq = table_quality or []
    tables = sum(tq) / len(tq) if tq else 1.0
    if tq and tables < 0.8:
        notes.append("some tables have empty or ragged cells")
    parts = {"text_layer": text_layer, "text_quality": text_quality, "headings": headings, "tables": tables}
    score = round(sum(WEIGHTS[k] * v for k, v in parts.items()))
    return {"score": int(score), **{k: round(v, 3) for k, v in parts.items()}, "weights": dict(WEIGHTS),
            "notes": notes}
