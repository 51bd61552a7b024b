"""Lexical sentence scoring: the part of sentence selection that needs no parser.

Used by stage 2 as the lexical component, and as the whole of stage 2 when the
parser is unavailable. A sentence's score is the weighted share of the question's
terms it contains (synonyms at lower weight), with its block's terms and section
path counting a little, plus the block's stage-1 score as a prior.
"""
from __future__ import annotations

import re
from typing import Optional

from .extract import condition_match
from .text import block_sentences
from .types import Anchor, Candidate, Query


def coverage(query: Query, text: str, context: str = "", syn_weight: Optional[float] = None,
             context_weight: float = 0.4) -> float:
    """Weighted share (0..1) of the question's terms found in ``text`` (found only in ``context``: partly)."""
    if syn_weight is None:
        syn_weight = query.constraints.get("synonym_weight", 0.6)
    total = 0.0
    got = 0.0
    all_parts = query.constraints.get("parts") or {}
    for t, w in query.weights.items():
        total += w
        parts = all_parts.get(t) or []
        if t in text or (parts and _parts_together(parts, text)):
            got += w  # (提出申请 as 提出工伤认定申请: the parts in order, a few characters apart)
            continue
        syns = query.expansions.get(t, [])
        if any(s in text for s in syns):
            got += w * syn_weight
        elif t in context or any(s in context for s in syns):
            got += w * context_weight
        elif parts:  # 工会会员 when the text says 会员: partial credit for the parts present
            share = sum(1 for p in parts if p in text) / len(parts)
            got += w * 0.6 * share
    return got / total if total else 0.0


def _parts_together(parts: list[str], text: str, gap: int = 8) -> bool:
    """True when the parts occur in order, in one clause, at most ``gap`` characters apart."""
    if len(parts) < 2:
        return False
    pattern = f"[^，。；、,;]{{0,{gap}}}".join(re.escape(p) for p in parts)  # within one clause
    return re.search(pattern, text) is not None


def joined_terms(query: Query) -> list[str]:
    """Neighbouring question terms as the question writes them together (大型 + 客车 → 大型客车)."""
    got = query.constraints.get("_joined")
    if got is None:
        cats = query.constraints.get("asked_category") or []  # 哪个单位负责: 单位负责 is the asker's frame
        terms = sorted((t for t in query.weights if t not in cats), key=lambda t: query.text.find(t))
        got = [a + b for a, b in zip(terms, terms[1:]) if a + b in query.text]
        query.constraints["_joined"] = got
    return got


def phrase_bonus(query: Query, text: str) -> float:
    """0.1 per joined pair of question terms the sentence also has together (at most 0.2): 大型客车
    is not 中型客车、大型货车, though both sentences hold 大型 and 客车."""
    return min(0.2, 0.1 * sum(1 for p in joined_terms(query) if p in text))


def lexical_anchors(query: Query, candidates: list[Candidate], limit: int = 12,
                    blocks: Optional[int] = 40) -> list[Anchor]:
    """Best sentences of the top candidate blocks by lexical coverage, best first."""
    out: list[Anchor] = []
    top = candidates[:blocks] if blocks else candidates
    if not top:
        return []
    best_block = max(c.score for c in top) or 1.0
    quantities = query.constraints.get("quantities") or []
    for c in top:
        b = c.block
        context = " ".join(b.section) + " " + c.title + " " + b.text + " " + c.breakdown.get("lead", "")
        prior = c.score / best_block
        named = c.breakdown.get("named_section") or ""  # the question names this block's section: its heading counts
        for s in block_sentences(b):
            cov = coverage(query, s.text + named, context)
            cond = condition_match(quantities, s.text, query.constraints.get("ranges"))
            score = cov + 0.35 * prior + 0.3 * cond + phrase_bonus(query, s.text)
            out.append(Anchor(candidate=c, sentence=s, score=round(score, 4), pattern=None,
                              details={"coverage": round(cov, 3), "prior": round(prior, 3), "condition": cond}))
    out.sort(key=lambda a: -a.score)
    # at most a few sentences of one block: a long register table must not fill every anchor slot
    per_block: dict[str, int] = {}
    kept = []
    for a in out:
        n = per_block.get(a.candidate.block.block_id, 0)
        if n < _PER_BLOCK:
            kept.append(a)
            per_block[a.candidate.block.block_id] = n + 1
    return kept[:limit]


_PER_BLOCK = 4
