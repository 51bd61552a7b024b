"""Stage 2's sentences put in order by a learned ranker (issue 19, item 3).

When stage 3's first extraction comes from the sentence that holds the answer, it is right about 96% of the
time on the training questions; most misses are extractions from another sentence. Stage 2 orders its
sentences by a hand-weighted score (lexical coverage, dependency patterns, the block's place in stage 1).
This module orders them by the probability that each one is the sentence a reader would cite, learnt from
the training questions' gold evidence (``scripts/train_anchor_ranker.py``): boosted trees over what stage 1
and stage 2 already know about each sentence, relative to the others of the same question. No e5 call is
made here (the block's e5 cosine comes from stage 1's re-ranking when it ran).

Each anchor keeps stage 2's own score in ``details["stage2_score"]`` and gets the ranker's probability as
``details["ranker"]``; its score becomes ``weight`` × that probability, so stage 3's extraction ranking (the
strategy's own score plus the anchor's) follows the ranker. The weights ship as data with a manifest
(``models/anchor_ranker/``); without them the stage-2 order stands.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Optional, Sequence

from .config import shipped_dir
from .extract import _holds
from .numbers import find_quantities
from .types import Anchor, Candidate, Query
from .verify import load_model


RANKER_WEIGHTS = shipped_dir("models") / "anchor_ranker" / "weights.json"
BLOCK_TYPES = ("paragraph", "list_item", "table", "heading")
# the features, in the model's order; their Chinese labels are in rules/pipeline_cues.yaml (verify.features)
NAMES = ("a_score", "a_score_rel", "a_rank", "a_cue", "a_pattern", "a_cand_rank", "a_cand_score", "a_e5_block",
         "a_e5_block_rel", "a_lex_rank", "a_cov", "a_cov_rel", "a_cov_block", "a_kind", "a_has_num", "a_chars",
         "a_condition") + tuple(f"a_type_{t}" for t in BLOCK_TYPES)
# the question types the training questions mostly have: each a feature, so that the trees weigh the others by type
# (a condition is stated in words, a duration with a figure)
QTYPES = ("duration", "yesno", "number", "money", "who", "list", "open", "condition", "code", "count", "procedure",
          "date", "definition", "exception")
NAMES += ("a_cov_content", "a_cov_content_rel") + tuple(f"a_q_{t}" for t in QTYPES)


def anchor_features(query: Query, cands: Sequence[Candidate], anchors: Sequence[Anchor]) -> list[dict[str, float]]:
    """The ranker's features of each anchor, in the anchors' order: its stage-2 score and rank, its block's place
    and score in stage 1 (and e5 cosine where stage 1 re-ranked), the question's word weight (synonyms counted)
    the sentence and its block hold, and the share of it outside the document's title the sentence holds, whether
    it holds a figure of the asked unit, the question's type; scores, cosines and coverage also relative to the best
    of the question's anchors."""
    if not anchors:
        return []
    top = max((c.score for c in cands), default=0.0) or 1.0
    pos = {id(c): i for i, c in enumerate(cands)}
    total = sum(query.weights.values()) or 1.0
    units = query.constraints.get("value_units") or []
    rows: list[dict[str, Any]] = []
    held: dict[str, float] = {}  # the question's word weight each block holds (anchors share blocks)

    def holds(text: str) -> set[str]:
        return {t for t in query.weights if _holds(query, t, text)}

    def share(words: set[str], weights: dict[str, float], of: float) -> float:
        return sum(w for t, w in weights.items() if t in words) / of

    # per title: the question's words it does not hold, and their weight (words that name the document select it;
    # they say nothing of which of its sentences answers)
    untitled: dict[str, tuple[dict[str, float], float]] = {}
    for i, a in enumerate(anchors):
        text, c = a.sentence.text, a.candidate
        found = find_quantities(text)
        words = holds(text)
        if c.block.block_id not in held:
            held[c.block.block_id] = share(holds(c.block.text), query.weights, total)
        title = c.title or ""
        if title not in untitled:
            own = {t: w for t, w in query.weights.items() if not _holds(query, t, title)}
            untitled[title] = (own, sum(own.values()))
        own, weight = untitled[title]
        cov = share(words, query.weights, total)
        rows.append({
            "a_score": float(a.score), "a_rank": 1.0 / (1.0 + i),
            "a_cue": 1.0 if "cue" in (a.details or {}) else 0.0, "a_pattern": 1.0 if a.pattern else 0.0,
            "a_cand_rank": math.log1p(pos.get(id(c), 99)), "a_cand_score": c.score / top,
            "a_e5_block": float(c.breakdown.get("e5", 0.0)),
            "a_lex_rank": math.log1p(float(c.breakdown.get("lexicon_rank", 0))),
            "a_cov": cov,
            "a_cov_block": held[c.block.block_id],
            "a_kind": 0.5 if not units else 1.0 if any(q["unit"] in units for q in found) else 0.0,
            "a_has_num": 1.0 if found else 0.0, "a_chars": math.log1p(len(text)),
            "a_condition": float((a.details or {}).get("condition", 0.0)),
            # the share of the question's word weight outside the title (all of it when the title holds every word)
            "a_cov_content": share(words, own, weight) if weight else cov,
            **{f"a_q_{t}": 1.0 if query.qtype == t else 0.0 for t in QTYPES},
            **{f"a_type_{t}": 1.0 if c.block.type == t else 0.0 for t in BLOCK_TYPES}})
    relative(rows)
    return [{n: round(float(r[n]), 4) for n in NAMES} for r in rows]


# each also as its difference from the question's best anchor ("_rel")
RELATIVE = ("a_score", "a_e5_block", "a_cov", "a_cov_content")


def relative(rows: list[dict[str, Any]]) -> None:
    """Set each of RELATIVE's ``_rel`` feature in ``rows`` (one question's anchors): the value minus the best one."""
    for name in RELATIVE:
        best = max(r[name] for r in rows)
        for r in rows:
            r[name + "_rel"] = round(r[name] - best, 4)


class AnchorRanker:
    """Orders stage 2's anchors by the trained model's probability (``weight`` scales it into the anchor score
    stage 3 adds to each extraction's own)."""

    def __init__(self, model: Any, weight: float = 1.0) -> None:
        self.model = model
        self.weight = weight

    @classmethod
    def load(cls, path: str | Path = RANKER_WEIGHTS, weight: float = 1.0) -> Optional["AnchorRanker"]:
        """The shipped ranker, or None when its weights are not there (the stage-2 order then stands)."""
        if not path or not Path(path).is_file():
            return None
        return cls(load_model(str(path)), weight)

    def order(self, query: Query, cands: Sequence[Candidate], anchors: list[Anchor]) -> list[Anchor]:
        if not anchors:
            return anchors
        probs = self.model.probabilities(anchor_features(query, cands, anchors))
        for a, p in zip(anchors, probs):
            a.details = {**a.details, "stage2_score": a.score, "ranker": round(p, 4)}
            a.score = round(self.weight * p, 4)
        return [a for _, a in sorted(zip(probs, anchors), key=lambda pa: -pa[0])]
