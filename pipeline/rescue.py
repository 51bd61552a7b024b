"""Features of one extraction as the gate sees it, for the trained gate (pipeline/verify.py's model).

The lexical coverage bar refuses about as many right extractions as wrong ones on questions asked in the
users' own words. What separates them is a mix: how much of the question the provision covers, how close
full e5 puts the evidence to the question and how far ahead of the other stage-2 sentences, how clearly
stage 2 preferred the anchor, and whether the value is of the asked kind. ``gate_features`` computes
them; the weights are learnt (scripts/train_gate.py) and ship as data.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

from .config import shipped_dir
from .embed import VectorCache
from .extract import _holds
from .types import Anchor, Query
from .verify import extract_features

GATE_WEIGHTS = shipped_dir("models") / "gate" / "weights.json"  # in the checkout or the wheel (pipeline/_data)

PASSAGE_CHARS = 400  # e5 reads a sentence's first 400 characters (its cost grows with length)
OTHERS = 6  # the e5 margin is taken over stage 2's best other sentences, this many
# the ranges the training data spans (1st-99th percentile and a little more): a linear model must not
# extrapolate from a margin no real sentence pair shows
CLIP = {"e5_similarity": (0.8, 1.0), "e5_margin": (-0.1, 0.1), "anchor_margin": (-1.0, 1.0)}
# features the model never reads: constant on its population (one ask, e5 present) or superseded by e5
UNUSED = ("similarity", "similarity_missing", "e5_missing", "multi_ask")


def clip(feats: dict[str, float]) -> dict[str, float]:
    """``feats`` with the features of CLIP held to their ranges."""
    return {k: (min(max(v, CLIP[k][0]), CLIP[k][1]) if k in CLIP else v) for k, v in feats.items()}


def cosine(cache: VectorCache, question: str, text: str) -> float:
    """Full e5's cosine of ``question`` and the first PASSAGE_CHARS characters of ``text`` (vectors cached)."""
    return float(cache.vector(text[:PASSAGE_CHARS], False) @ cache.vector(question, True))


def other_anchors(found: Any, anchors: Sequence[Anchor]) -> list[Anchor]:
    """Stage 2's sentences other than ``found``'s own (its anchor and evidence), in stage 2's order."""
    own = {s.text for _, s, _, _ in found.evidence} | {found.anchor.sentence.text}
    return [a for a in anchors if a.sentence.text not in own]


def e5_margin(orch: Any, query: Query, found: Any, anchors: Sequence[Anchor], sim: float) -> float:
    """How far ahead of stage 2's OTHERS best other sentences full e5 puts ``found``'s evidence (cosine ``sim``);
    0 when there is no other sentence."""
    cache = orch.meaning_cache()
    others = other_anchors(found, anchors)[:OTHERS]
    if cache is None or not others:
        return 0.0
    return round(sim - max(cosine(cache, query.text, a.sentence.text) for a in others), 4)


def gate_features(orch: Any, query: Query, found: Any, anchors: Sequence[Anchor], similarity: bool = True,
                  margin: bool = True) -> dict[str, float]:
    """The trained gate's features for ``found`` (an extraction the orchestrator's gate looks at); with
    ``margin=False`` the other sentences are not embedded and ``e5_margin`` is left out."""
    ev_text = "".join(s.text for _, s, _, _ in found.evidence)
    text, context = orch.scope(found)
    tid = found.method[len("template:"):] if found.method.startswith("template:") else None
    priority = next((t.priority for t in orch.extractor.templates() if t.id == tid), None) if tid else None
    feats = extract_features(query, found.value, ev_text, text, context, found.coverage, priority,
                             found.anchor.details, rank=found.rank, anchor_score=found.anchor.score,
                             method=found.method, doc_id=found.anchor.candidate.block.doc_id)
    scores = sorted((a.score for a in other_anchors(found, anchors)), reverse=True)
    # no other sentence to be ahead of (one candidate block): no margin, rather than the largest
    feats["anchor_margin"] = round(found.anchor.score - scores[0], 4) if scores else 0.0
    # the weight of the heaviest question word missing from the whole scope (synonyms counted), over the
    # heaviest word's weight: 1.0 when the question's most specific word is nowhere in the provision
    scope = text + "\n" + context
    top = max(query.weights.values(), default=0.0)
    missing = [w for t, w in query.weights.items() if not _holds(query, t, scope)]
    feats["top_missing"] = round(max(missing) / top, 4) if missing and top > 0 else 0.0
    feats["extraction_score"] = round(min(float(found.score), 4.0) / 4.0, 4)
    feats["multi_ask"] = 1.0 if (query.constraints.get("asks") or 1) > 1 else 0.0
    cache = orch.meaning_cache() if similarity else None
    if cache is None:
        feats.update({"e5_similarity": 0.0, "e5_margin": 0.0, "e5_missing": 1.0})
    else:
        sim = cosine(cache, query.text, ev_text)
        feats.update({"e5_similarity": round(sim, 4), "e5_missing": 0.0})
        if margin:
            feats["e5_margin"] = e5_margin(orch, query, found, anchors, sim)
    return clip(feats)


def decide(orch: Any, model: Any, query: Query, found: Any, anchors: Sequence[Anchor]) -> tuple[Any, bool]:
    """The trained gate's verdict on ``found`` and whether the other sentences had to be embedded.

    The margin over the other sentences costs an e5 call per sentence. The logistic model is monotone in it
    and it is held to CLIP's range, so when both ends of that range give the same decision the decision is
    known without it: the verdict is then the one at the end least favourable to that decision (its
    probability is a bound), exactly the decision the margin would have given."""
    feats = gate_features(orch, query, found, anchors, margin=False)
    if feats["e5_missing"]:  # no e5 at all: nothing to spare
        return model.run(feats), False
    lo, hi = CLIP["e5_margin"]
    at = {m: model.model.probability({**feats, "e5_margin": m}) for m in (lo, hi)}
    if all(p >= model.threshold for p in at.values()) or all(p < model.threshold for p in at.values()):
        accept = at[lo] >= model.threshold
        # the end least favourable to the decision: the lower probability for an accept, the higher for a refusal
        worst = min(at, key=at.get) if accept else max(at, key=at.get)
        return model.run({**feats, "e5_margin": worst}), False
    # the raw cosine, not the clipped feature: the margin is taken before clipping, as at training
    sim = cosine(orch.meaning_cache(), query.text, "".join(x.text for _, x, _, _ in found.evidence))
    return model.run(clip({**feats, "e5_margin": e5_margin(orch, query, found, anchors, sim)})), True
