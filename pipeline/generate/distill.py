"""Distilled context: the anchor sentence and the few pieces around it that complete it.

The generator never sees whole blocks. It gets the anchor sentence, one sentence
before and after (they often hold the subject or the object the anchor leaves out),
the table header when the anchor is a table row, and the previous list item and
the list's lead-in when it is a list item, within a character budget.
"""
from __future__ import annotations

from typing import Optional

from ..errors import LoopAgentError
from ..text import split_sentences
from ..types import Anchor, Block, Distilled, Piece, Sentence

MIN_BUDGET = 20
# A neighbour trimmed below this many characters says nothing useful: leave it out.
MIN_TRIM = 12
ELLIPSIS = "…"
SEP = "\n"

# Pieces are added in this order until the budget is spent; they are shown in document order.
PRIORITY = ("anchor", "table_header", "before", "list_previous", "after", "list_lead")
_DOC_ORDER = {"table_header": 0, "list_lead": 1, "list_previous": 2, "before": 3, "anchor": 4, "after": 5}


def distill(anchor: Anchor, neighbours: list[Block], budget: int = 200) -> Distilled:
    """The anchor sentence plus its context pieces, at most ``budget`` characters in all.

    ``neighbours`` are blocks around the anchor's block in the same document (the
    anchor's own block may be among them); they supply the sentence before/after
    when the anchor opens or closes its block, and the list context.

    >>> d = distill(anchor, [prev_block, next_block], budget=120)
    >>> len(d.text) <= 120
    True
    """
    if not isinstance(budget, int) or budget < MIN_BUDGET:
        raise LoopAgentError("E303", name="budget", value=budget, why="too small to hold a sentence",
                             allowed=f"an integer >= {MIN_BUDGET}")
    block = anchor.candidate.block
    prev_block, next_block = _adjacent(block, neighbours)
    candidates = _candidates(block, anchor.sentence, prev_block, next_block, neighbours)

    chosen: list[Piece] = []
    used = 0
    for role in PRIORITY:
        piece = candidates.get(role)
        if piece is None or not piece.text.strip():
            continue
        room = budget - used - (len(SEP) if chosen else 0)
        fitted = _fit(piece, room, keep_tail=role in ("before", "list_previous", "list_lead"),
                      required=role == "anchor")
        if fitted is None:
            continue
        chosen.append(fitted)
        used += len(fitted.text) + (len(SEP) if len(chosen) > 1 else 0)
    chosen.sort(key=lambda p: _DOC_ORDER[p.role])
    text = SEP.join(p.text for p in chosen)
    return Distilled(text=text, pieces=chosen, anchor_block_id=block.block_id, budget=budget)


# --- helpers ------------------------------------------------------------------------

def _adjacent(block: Block, neighbours: list[Block]) -> tuple[Optional[Block], Optional[Block]]:
    """The nearest blocks before and after ``block`` in the same document."""
    same = [b for b in neighbours if b.doc_id == block.doc_id and b.block_id != block.block_id]
    before = [b for b in same if b.order < block.order]
    after = [b for b in same if b.order > block.order]
    return (max(before, key=lambda b: b.order) if before else None,
            min(after, key=lambda b: b.order) if after else None)


def _units(block: Block) -> list[Sentence]:
    """Sentences of a block; for a table, its lines (caption, then one line per row)."""
    if block.type == "table":
        units, pos = [], 0
        for line in block.text.split("\n"):
            if line.strip():
                units.append(Sentence(text=line, start=pos, end=pos + len(line)))
            pos += len(line) + 1
        return units
    return split_sentences(block.text)


def _candidates(block: Block, sentence: Sentence, prev_block: Optional[Block], next_block: Optional[Block],
                neighbours: list[Block]) -> dict[str, Piece]:
    out: dict[str, Piece] = {}
    units = _units(block)
    anchor_unit = sentence
    if block.type == "table":  # the whole row is the unit a table answer lives in
        anchor_unit = next((u for u in units if u.start <= sentence.start < u.end), sentence)
    out["anchor"] = Piece("anchor", anchor_unit.text, block.block_id, anchor_unit.start, anchor_unit.end)

    before = [u for u in units if u.end <= anchor_unit.start]
    after = [u for u in units if u.start >= anchor_unit.end]
    if before:
        u = before[-1]
        out["before"] = Piece("before", u.text, block.block_id, u.start, u.end)
    elif prev_block is not None and _continues(prev_block, block):
        u = _units(prev_block)[-1:]
        if u:
            role = "list_previous" if block.type == "list_item" and prev_block.type == "list_item" else "before"
            out[role] = Piece(role, u[0].text, prev_block.block_id, u[0].start, u[0].end)
    if after:
        u = after[0]
        out["after"] = Piece("after", u.text, block.block_id, u.start, u.end)
    elif next_block is not None and _continues(block, next_block) and next_block.type != "heading":
        u = _units(next_block)[:1]
        if u:
            out["after"] = Piece("after", u[0].text, next_block.block_id, u[0].start, u[0].end)

    if block.type == "table" and block.table_header:
        header = " | ".join(h for h in block.table_header if h)
        if header:
            out["table_header"] = Piece("table_header", header, block.block_id, -1, -1)
    if block.type == "list_item":
        lead = _list_lead(block, neighbours)
        if lead is not None and (prev_block is None or lead[0].block_id != prev_block.block_id):
            lb, u = lead
            out["list_lead"] = Piece("list_lead", u.text, lb.block_id, u.start, u.end)
    return out


def _continues(first: Block, second: Block) -> bool:
    """Whether ``second`` reads on from ``first``: same section, and ``first`` is not a heading."""
    return first.type != "heading" and list(first.section) == list(second.section)


def _list_lead(block: Block, neighbours: list[Block]) -> Optional[tuple[Block, Sentence]]:
    """The sentence introducing the list ``block`` belongs to (…有下列情形之一的：), if any."""
    earlier = sorted((b for b in neighbours if b.doc_id == block.doc_id and b.order < block.order),
                     key=lambda b: b.order, reverse=True)
    expected = block.order - 1
    for b in earlier:
        if b.order != expected:  # a gap: the list's start is not among the neighbours
            return None
        if b.type == "list_item":
            expected -= 1
            continue
        if b.type in ("paragraph", "clause", "note") and list(b.section) == list(block.section):
            units = _units(b)
            return (b, units[-1]) if units else None
        return None
    return None


def _fit(piece: Piece, room: int, keep_tail: bool, required: bool = False) -> Optional[Piece]:
    """``piece`` if it fits in ``room`` characters, else trimmed with an ellipsis, else None."""
    text = piece.text
    if len(text) <= room:
        return piece
    if room < MIN_TRIM and not required:
        return None
    keep = max(room - len(ELLIPSIS), 1)
    if keep_tail:
        start = piece.end - keep if piece.end >= 0 else -1
        return Piece(piece.role, ELLIPSIS + text[-keep:], piece.block_id, start, piece.end)
    end = piece.start + keep if piece.start >= 0 else -1
    return Piece(piece.role, text[:keep] + ELLIPSIS, piece.block_id, piece.start, end)
