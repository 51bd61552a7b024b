"""Lexical sentence scoring: the part of sentence selection that needs no parser.

Used by stage 2 as the lexical component, and as the whole of stage 2 when the
parser is unavailable. A sentence's score is the weighted share of the question's
terms it contains (synonyms at lower weight), with its block's terms and section
path counting a little, plus the block's stage-1 score as a prior.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

from .extract import condition_match, phrase_bonus
from .text import block_sentences
from .types import Anchor, Block, Candidate, Query


_PER_BLOCK = 4  # anchors one block may give
SENTENCE_CACHE = 8192  # blocks whose sentences are kept (least recently used dropped)


@lru_cache(maxsize=SENTENCE_CACHE)
def _sentences(btype: str, text: str) -> tuple:
    """The sentences of a block of this type and text (:func:`pipeline.text.block_sentences`), shared: read only."""
    return tuple(block_sentences(Block(block_id="", doc_id="", type=btype, text=text, order=0)))


def coverage(query: Query, text: str, context: str = "", syn_weight: Optional[float] = None,
             context_weight: float = 0.4, topic: frozenset[str] = frozenset()) -> float:
    """Weighted share (0..1) of the question's terms found in ``text`` (found only in ``context``: partly). The
    terms of ``topic`` (:func:`table_topic`) count as context wherever they are."""
    if syn_weight is None:
        syn_weight = query.constraints.get("synonym_weight", 0.6)
    total = 0.0
    got = 0.0
    all_parts = query.constraints.get("parts") or {}
    own = query.constraints.get("synonym_term_weight") or {}  # entries with a weight of their own
    expansions = query.expansions
    for t, w in query.weights.items():
        total += w
        if t in topic:
            got += w * context_weight
            continue
        parts = all_parts.get(t)
        if t in text or (parts and _parts_together(parts, text)):
            got += w  # (提出申请 as 提出工伤认定申请: the parts in order, a few characters apart)
            continue
        syns = expansions.get(t) or ()
        for s in syns:
            if s in text:
                got += w * own.get(t, syn_weight)
                break
        else:
            if t in context or _any_in(syns, context):
                got += w * context_weight
            elif parts:  # 工会会员 when the text says 会员: partial credit for the parts present
                share = sum(1 for p in parts if p in text) / len(parts)
                got += w * 0.6 * share
    return got / total if total else 0.0


def table_topic(query: Query, block: Block) -> frozenset[str]:
    """The question's terms that more than half of a table's rows hold (synonyms counted): what the table is about
    (补贴 in a table of allowances, 保教费 in a table of fees by class), which says nothing of which row answers.
    A row is chosen by the terms that set it apart (夜班 in the row of the night-shift allowance). Empty for other
    blocks and for tables of fewer than three rows. Stage 2's lexical and parser scoring both ask it of a block: the
    answer is kept per question's words and table text, so a table is counted once."""
    if block.type != "table":
        return frozenset()
    return _table_topic(tuple((t, *(query.expansions.get(t) or ())) for t in query.weights), block.text)


@lru_cache(maxsize=256)
def _table_topic(terms: tuple[tuple[str, ...], ...], text: str) -> frozenset[str]:
    rows = _sentences("table", text)
    if len(rows) < 3:
        return frozenset()
    return frozenset(forms[0] for forms in terms if 2 * sum(1 for s in rows if _any_in(forms, s.text)) > len(rows))


def _any_in(words, text: str) -> bool:
    for w in words:
        if w in text:
            return True
    return False


def _parts_together(parts: list[str], text: str) -> bool:
    """True when the parts occur in order, in one clause, at most 8 characters apart; two parts also
    the other way round, at most 2 apart (签订合同 as 合同签订之日: the object put first as topic)."""
    if len(parts) < 2:
        return False
    if _parts_rx(tuple(parts)).search(text) is not None:
        return True
    return len(parts) == 2 and _parts_rx((parts[1], parts[0]), 2).search(text) is not None  # 合同签订, 合同的签订


@lru_cache(maxsize=1024)
def _parts_rx(parts: tuple[str, ...], gap: int = 8) -> "re.Pattern[str]":
    return re.compile(f"[^，。；、,;]{{0,{gap}}}".join(re.escape(p) for p in parts))  # coverage runs per sentence: compile once


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
        topic = table_topic(query, b)
        for s in _sentences(b.type, b.text):
            cov = coverage(query, s.text + named, context, topic=topic)
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
