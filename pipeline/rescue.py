"""Features of one extraction as the gate sees it, for the trained gate (pipeline/verify.py's model).

The lexical coverage bar refuses about as many right extractions as wrong ones on questions asked in the
users' own words. What separates them is a mix: how much of the question the provision covers, how close
full e5 puts the evidence to the question and how far ahead of the other stage-2 sentences, how clearly
stage 2 preferred the anchor, and whether the value is of the asked kind. ``gate_features`` computes
them; the weights are learnt (scripts/train_gate.py) and ship as data.
"""
from __future__ import annotations

import math
from difflib import SequenceMatcher
from typing import Any, Optional, Sequence

from .config import shipped_dir
from .embed import E5_CHARS, VectorCache
from .extract import _holds
from .numbers import canonical_unit, find_quantities
from .types import Anchor, Query
from .verify import extract_features

GATE_WEIGHTS = shipped_dir("models") / "gate" / "weights.json"  # in the checkout or the wheel (pipeline/_data)

LEXICON_RANKS = 60  # the lexicon_rank feature's scale (fixed for the trained weights; the re-ranking's depth)
OTHERS = 6  # the e5 margin is taken over stage 2's best other sentences, this many
# the ranges the training data spans (1st-99th percentile and a little more): the model must not extrapolate
# from a margin no real sentence pair shows, and the gate's e5 shortcut bounds the e5 features by these ends
CLIP = {"e5_similarity": (0.8, 1.0), "e5_margin": (-0.1, 0.1), "anchor_margin": (-1.0, 1.0)}
# features the model never reads: constant on its population (one ask, e5 present) or superseded by e5
UNUSED = ("similarity", "similarity_missing", "e5_missing", "multi_ask")


def clip(feats: dict[str, float]) -> dict[str, float]:
    """``feats`` with the features of CLIP held to their ranges."""
    return {k: (min(max(v, CLIP[k][0]), CLIP[k][1]) if k in CLIP else v) for k, v in feats.items()}


def cosine(cache: VectorCache, question: str, text: str) -> float:
    """Full e5's cosine of ``question`` and the first E5_CHARS characters of ``text`` (vectors cached)."""
    return float(cache.vector(text[:E5_CHARS], False) @ cache.vector(question, True))


def other_anchors(found: Any, anchors: Sequence[Anchor]) -> list[Anchor]:
    """Stage 2's sentences other than ``found``'s own (its anchor and evidence), in stage 2's order."""
    own = {s.text for _, s, _, _ in found.evidence} | {found.anchor.sentence.text}
    return [a for a in anchors if a.sentence.text not in own]


def e5_margin(orch: Any, query: Query, found: Any, anchors: Sequence[Anchor], sim: float) -> float:
    """How far ahead of stage 2's OTHERS best other sentences full e5 puts ``found``'s evidence (cosine ``sim``);
    the top of CLIP's range when there is no other sentence, 0 without e5."""
    cache = orch.meaning_cache()
    others = other_anchors(found, anchors)[:OTHERS]
    if cache is None:
        return 0.0
    if not others:  # no other sentence competes: as far ahead as the feature's range goes
        return CLIP["e5_margin"][1]
    return round(sim - max(cosine(cache, query.text, a.sentence.text) for a in others), 4)


ANSWER_FEATURES = ("answer_coverage", "answer_chars", "reading", "copy_run", "same_unit_figures")
COPY_RUN = 12  # copy_run's scale: a run of this many characters or more copied from the question


def _longest_run(a: str, b: str) -> int:
    """The length of the longest run of characters ``a`` and ``b`` share (difflib's longest matching block, no
    junk heuristic: about 0.05 ms for a question against 400 characters)."""
    return SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b)).size


def answer_features(query: Query, found: Any, ev_text: str,
                    wanted: Sequence[str] = ANSWER_FEATURES) -> dict[str, float]:
    """Those of ``wanted`` among the features of the answer itself, not of the provision around it:

    - answer_coverage: the share of the question's term weight the answer's own text holds (the clause the value
      was read from: a value in a clause that names none of the asked words is often another provision's);
    - answer_chars: how long the answer is for each value it gives (a typed value's clause against a quoted
      provision; a list's length over its items, so a tier list of three clauses reads as one clause), 0-1 over 200;
    - reading: a yes/no reading's polarity (1 yes, 0 no, 0.5 not a yes/no reading);
    - copy_run: the longest run of characters the question shares with the evidence, over COPY_RUN (a question
      in the document's own words against one in the asker's);
    - same_unit_figures: how many other figures in the value's unit the evidence holds (0-3, over 3): the more
      there are, the more a template may have picked the wrong tier or item."""
    answer = found.answer or ""
    v = found.value or {}
    out: dict[str, float] = {}
    if "answer_coverage" in wanted:
        total = sum(query.weights.values())
        held = sum(w for t, w in query.weights.items() if _holds(query, t, answer))
        out["answer_coverage"] = round(held / total, 4) if total > 0 else 0.0
    if "answer_chars" in wanted:
        out["answer_chars"] = round(min(len(answer) / max(1, len(v.get("items") or ())), 200) / 200.0, 4)
    if "reading" in wanted:
        out["reading"] = (1.0 if v.get("value") else 0.0) if v.get("kind") == "boolean" else 0.5
    if "copy_run" in wanted:
        q = "".join(ch for ch in query.text if ch.isalnum())
        e = "".join(ch for ch in ev_text if ch.isalnum())[:400]
        out["copy_run"] = round(min(_longest_run(q, e), COPY_RUN) / COPY_RUN, 4)
    if "same_unit_figures" in wanted:
        unit, number = v.get("unit"), v.get("number", v.get("min"))
        others = {x["number"] for x in find_quantities(ev_text) if unit and number is not None
                  and x["unit"] == canonical_unit(str(unit)) and x["number"] != number}
        out["same_unit_figures"] = round(min(len(others), 3) / 3.0, 4)
    return out


def rival_figure(found: Any, anchors: Sequence[Anchor]) -> float:
    """1.0 when a sentence stage 2 put ahead of ``found``'s anchor holds another figure in the unit of ``found``'s
    value (a rival answer: the anchor's lower rank then counts against it), 0.0 when none does (a heading or a
    lead-in ahead of it competes with no figure), 0.5 when the value is no figure."""
    v = found.value or {}
    unit, number = v.get("unit"), v.get("number", v.get("min"))
    if number is None or not unit:
        return 0.5
    ahead = [a for a in other_anchors(found, anchors)[:OTHERS] if a.score > found.anchor.score]
    return 1.0 if any(q["unit"] == canonical_unit(unit) and q["number"] != number
                      for a in ahead for q in find_quantities(a.sentence.text)) else 0.0


def gate_features(orch: Any, query: Query, found: Any, anchors: Sequence[Anchor], similarity: bool = True,
                  margin: bool = True, scope: Optional[tuple[str, str]] = None) -> dict[str, float]:
    """The trained gate's features for ``found`` (an extraction the orchestrator's gate looks at); with
    ``margin=False`` the other sentences are not embedded and ``e5_margin`` is left out. ``scope`` is
    ``orch.scope(found)`` when the caller has it already (it reads the store)."""
    ev_text = "".join(s.text for _, s, _, _ in found.evidence)
    text, context = scope or orch.scope(found)
    tid = found.method[len("template:"):] if found.method.startswith("template:") else None
    priority = next((t.priority for t in orch.extractor.templates() if t.id == tid), None) if tid else None
    feats = extract_features(query, found.value, ev_text, text, context, found.coverage, priority,
                             found.anchor.details, rank=found.rank, anchor_score=found.anchor.score,
                             method=found.method, doc_id=found.anchor.candidate.block.doc_id)
    scores = sorted((a.score for a in other_anchors(found, anchors)), reverse=True)
    # no other sentence to be ahead of (a small document, one candidate block): ahead of every other, so the
    # top of the range (0 would read as a tie with a competing sentence, which lowers the probability)
    # (with the anchor ranker on, the anchor's score is its probability: alone, its lead is over nothing, i.e. its
    # probability; a lone sentence of a small store is then no surer than the ranker says)
    feats["anchor_margin"] = round(found.anchor.score - scores[0], 4) if scores else \
        round(found.anchor.score, 4) if "ranker" in (found.anchor.details or {}) else CLIP["anchor_margin"][1]
    # the weight of the heaviest question word missing from the whole scope (synonyms counted), over the
    # heaviest word's weight: 1.0 when the question's most specific word is nowhere in the provision
    scope = text + "\n" + context
    top = max(query.weights.values(), default=0.0)
    missing = [w for t, w in query.weights.items() if not _holds(query, t, scope)]
    feats["top_missing"] = round(max(missing) / top, 4) if missing and top > 0 else 0.0
    gate = getattr(orch, "gate_model", None)
    if gate is None or "rival_figure" in gate.model.names:  # the shipped gate does not read it: not on its path
        feats["rival_figure"] = rival_figure(found, anchors)
    # all of them for the training rows (no gate); else only those the shipped gate reads
    wanted = ANSWER_FEATURES if gate is None else [n for n in ANSWER_FEATURES if n in gate.model.names]
    if wanted:
        feats.update(answer_features(query, found, ev_text, wanted))
    if gate is not None and "method_prior" in gate.model.names:  # the table ships with the weights
        feats["method_prior"] = gate.model.method_prior(found.method)
    feats["extraction_score"] = round(min(float(found.score), 4.0) / 4.0, 4)
    feats["multi_ask"] = 1.0 if (query.constraints.get("asks") or 1) > 1 else 0.0
    # where the evidence block stood in the lexicon's order before e5's re-ranking (0 first, 1 at 60 or
    # later, log scale): a block that only meaning brought forward shares the topic but maybe not the detail
    rank = min(int(found.anchor.candidate.breakdown.get("lexicon_rank", 0)), LEXICON_RANKS)
    feats["lexicon_rank"] = round(math.log1p(rank) / math.log1p(LEXICON_RANKS), 4)
    cache = orch.meaning_cache() if similarity else None
    if cache is None:
        feats.update({"e5_similarity": 0.0, "e5_margin": 0.0, "e5_missing": 1.0})
    else:
        sim = cosine(cache, query.text, ev_text)
        feats.update({"e5_similarity": round(sim, 4), "e5_missing": 0.0})
        if margin:
            feats["e5_margin"] = e5_margin(orch, query, found, anchors, sim)
    return clip(feats)


def _bound(model: Any, feats: dict[str, float], free: dict[str, tuple[float, ...]]) -> Optional[dict[str, float]]:
    """When every combination of the ``free`` features' values (the ends of their clipped ranges) gives the
    same decision, the features at the combination least favourable to it (its probability is then a bound
    on the real one); else None. Exact for a model monotone in the free features (a logistic model is in
    every feature; trees where trained so); None, and so no shortcut, for any other."""
    if not model.model.monotone_in(tuple(free)):
        return None
    corners = [dict(feats)]
    for name, values in free.items():
        corners = [{**c, name: v} for c in corners for v in values]
    at = [(model.model.probability(c), c) for c in corners]
    accept = [p >= model.threshold for p, _ in at]
    if all(accept):
        return min(at, key=lambda pc: pc[0])[1]
    if not any(accept):
        return max(at, key=lambda pc: pc[0])[1]
    return None


def decide(orch: Any, model: Any, query: Query, found: Any, anchors: Sequence[Anchor],
           scope: Optional[tuple[str, str]] = None) -> tuple[Any, str]:
    """The trained gate's verdict on ``found`` and what it did not need to compute: "" (everything was),
    "margin" (the other sentences were not embedded) or "similarity" (no e5 call at all).

    e5 costs a call per new sentence. The model is monotone in the e5 cosine and in the margin over the other
    sentences (logistic; the trees are trained with that constraint), and both are held to CLIP's ranges, so
    when every end of those ranges gives the same decision the decision is known without them: the verdict is
    then the one at the end least favourable to that decision, exactly the decision the real values would
    have given. The cosine is bounded first (no e5 call), then, with it known, the margin (the evidence
    embedded, not the other sentences)."""
    feats = gate_features(orch, query, found, anchors, similarity=False, margin=False, scope=scope)
    cache = orch.meaning_cache()
    if cache is None:  # no e5 at all: nothing to spare
        return model.run(feats), ""
    sure = _bound(model, feats, {"e5_similarity": CLIP["e5_similarity"], "e5_margin": CLIP["e5_margin"]})
    if sure is not None:
        return model.run(sure), "similarity"
    # the raw cosine, not the clipped feature: the margin is taken before clipping, as at training
    sim = cosine(cache, query.text, "".join(x.text for _, x, _, _ in found.evidence))
    feats = clip({**feats, "e5_similarity": round(sim, 4), "e5_missing": 0.0})
    sure = _bound(model, feats, {"e5_margin": CLIP["e5_margin"]})
    if sure is not None:
        return model.run(sure), "margin"
    return model.run(clip({**feats, "e5_margin": e5_margin(orch, query, found, anchors, sim)})), ""
