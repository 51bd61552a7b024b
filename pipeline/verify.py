"""The verifier: decides whether an extraction that passed the hard checks becomes an answer.

A logistic regression over a few features of the extraction (how much of the question its scope
covers, whether the asked value's noun and kind are there, how specific its rule is). The weights are
data (models/verifier/weights.json, written by scripts/train_verifier.py with a manifest of what they
were trained on); the orchestrator asks it instead of the fixed coverage bar when
``AskSettings(verifier=True)``. The hard checks (named words, qualifying figures, grounding) stay in
the orchestrator: the verifier only replaces the coverage decision.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Optional

from . import cues
from .anchors import coverage
from .config import shipped_dir
from .errors import LoopAgentError
from .extract import _holds, condition_match, value_in_question
from .numbers import canonical_unit
from .types import Query

WEIGHTS = shipped_dir("models") / "verifier" / "weights.json"  # in the checkout or the wheel (pipeline/_data)

# feature name -> how the reasoning names it (Chinese, for the decisive features): rules/pipeline_cues.yaml
# verify.features; the verdict words and a feature's other states: verify.verdicts
FEATURES: dict[str, str] = {str(k): str(v) for k, v in cues.table("verify.features").items()}
_SAY: dict[str, str] = {str(k): str(v) for k, v in cues.table("verify.verdicts").items()}


@dataclass(frozen=True)
class Verdict:
    """What the verifier decided, with the probability and the features that weighed most."""

    decision: str  # "answer" | "not_found"
    probability: float
    threshold: float
    features: dict[str, float]
    decisive: list[str] = field(default_factory=list)  # Chinese phrases, most decisive first

    @property
    def accept(self) -> bool:
        return self.decision == "answer"

    def reason(self) -> str:
        """校验：采纳（概率0.83；覆盖率0.62，焦点词在证据中）"""
        verb = _SAY["accept" if self.accept else "reject"]
        why = "，".join(self.decisive)
        return f"校验：{verb}（概率{self.probability:.2f}" + (f"；{why}" if why else "") + "）"


def extract_features(query: Query, value: dict, evidence_text: str, text: str, context: str, cov: float,
                     priority: Optional[int], details: Optional[dict] = None, rank: int = 0,
                     anchor_score: float = 0.0, method: str = "", doc_id: str = "") -> dict[str, float]:
    """The verifier's features for one extraction: ``text``/``context`` are its scope as the gate sees it,
    ``cov`` the gate's weighted coverage, ``priority`` its template's priority (None: not a regex template),
    ``rank`` the place of its anchor among stage 2's, ``method`` the rule that produced it, ``doc_id`` the
    evidence's document."""
    asked = query.constraints.get("asked_clause")
    weights = {t: w for t, w in query.weights.items() if asked and t in asked}
    situation = bool(asked) and len(weights) >= 2 and sum(weights.values()) >= 0.8
    asked_cov = coverage(replace(query, weights=weights), text, context, context_weight=1.0) if weights else cov
    focus = query.constraints.get("focus")
    if focus:
        words = [focus] + list(query.expansions.get(focus, []))
        focus_in = 1.0 if any(w in evidence_text for w in words) else 0.0
    else:
        focus_in = 0.5
    units = query.constraints.get("value_units") or []
    if not units:
        kind = 0.5
    else:
        unit = (value or {}).get("unit")
        kind = 1.0 if unit and canonical_unit(str(unit)) in units else 0.0
    sim = (details or {}).get("similarity")
    # the documents the asker named: a loop's retry restricts itself to the best candidate's document (its doc_ids,
    # marked retry), which the asker never named
    named = [] if query.constraints.get("retry") else query.constraints.get("doc_ids") or []
    # a figure the asker gives (满2年, 12分) that comes back as the answer is a condition read as a value
    # (the same number in another unit is another figure: 查一次 does not give 每季度 as 1 季度)
    in_question = 1.0 if value_in_question(query, value) else 0.0
    # the heaviest question words: does the evidence sentence hold the heaviest half of them by weight?
    heavy = sorted(query.weights.items(), key=lambda kv: -kv[1])[: max(1, len(query.weights) // 2)]
    lead = sum(w for t, w in heavy if _holds(query, t, evidence_text)) / max(1e-9, sum(w for _, w in heavy))
    return {"coverage": round(cov, 4), "asked_coverage": round(asked_cov, 4), "focus_in_evidence": focus_in,
            "kind_match": kind, "priority": (priority / 100.0) if priority is not None else 0.5,
            "situation": 1.0 if situation else 0.0,
            "similarity": float(sim) if sim is not None else 0.0,
            "similarity_missing": 0.0 if sim is not None else 1.0,
            "anchor_rank": round(1.0 / (1.0 + rank), 4), "anchor_score": round(float(anchor_score), 4),
            "doc_named": (1.0 if doc_id in named else 0.0) if named else 0.5,
            "value_in_question": in_question,
            "strategy_kind": 1.0 if method.startswith("strategy:") else 0.0,
            "yesno": 1.0 if query.qtype == "yesno" else 0.0,
            "question_terms": round(min(len(query.weights), 12) / 12.0, 4),
            "lead_share": round(lead, 4),
            # the asker's own figure (工作满15年) falls inside the condition the evidence states (已满10年不满20年的):
            # +1, contradicts it: -1, no such condition: 0
            "figure_met": condition_match(query.constraints.get("quantities") or [], evidence_text,
                                          query.constraints.get("ranges"))}


@dataclass(frozen=True)
class VerifierModel:
    """Standardised logistic regression: p = σ(b + Σ coef·(x − mean)/std)."""

    names: tuple[str, ...]
    mean: tuple[float, ...]
    std: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float

    @classmethod
    def from_dict(cls, d: dict, source: str = "<dict>") -> "VerifierModel":
        try:
            names = tuple(d["features"])
            m = cls(names, tuple(map(float, d["mean"])), tuple(map(float, d["std"])),
                    tuple(map(float, d["coef"])), float(d["intercept"]), float(d["threshold"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise LoopAgentError("E406", path=source, detail=f"{type(exc).__name__}: {exc}") from exc
        unknown = [n for n in names if n not in FEATURES]
        if unknown or not (len(names) == len(m.mean) == len(m.std) == len(m.coef)):
            raise LoopAgentError("E406", path=source, detail=f"unknown features {unknown} or lengths differ")
        return m

    def to_dict(self) -> dict:
        return {"features": list(self.names), "mean": list(self.mean), "std": list(self.std),
                "coef": list(self.coef), "intercept": self.intercept, "threshold": self.threshold}

    def contributions(self, feats: dict[str, float]) -> dict[str, float]:
        """Each feature's term in the logit (0 at the training mean)."""
        return {n: c * (feats.get(n, 0.0) - m) / (s or 1.0)
                for n, m, s, c in zip(self.names, self.mean, self.std, self.coef)}

    def explain(self, feats: dict[str, float]) -> tuple[float, dict[str, float]]:
        """(probability, contributions) in one pass."""
        contrib = self.contributions(feats)
        return _sigmoid(self.intercept + sum(contrib.values())), contrib

    def probability(self, feats: dict[str, float]) -> float:
        return self.explain(feats)[0]

    def probabilities(self, rows: list[dict[str, float]]) -> list[float]:
        return [self.probability(f) for f in rows]

    def monotone_in(self, names: tuple[str, ...]) -> bool:
        """A logistic model is monotone in every feature."""
        return True


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


@dataclass(frozen=True)
class Tree:
    """One regression tree, as parallel arrays over its nodes (node 0 the root). A node with ``feature`` −1 is
    a leaf; otherwise ``x[feature] <= threshold`` goes to ``left``, else to ``right``. ``value`` is a leaf's
    output and, at an inner node, the mean output of the training rows that reached it (what the tree says
    before the node's question is asked: the per-feature contributions are the changes along the path)."""

    feature: tuple[int, ...]
    threshold: tuple[float, ...]
    left: tuple[int, ...]
    right: tuple[int, ...]
    value: tuple[float, ...]

    def path(self, x: list[float]) -> list[int]:
        node, out = 0, [0]
        while self.feature[node] >= 0:
            node = self.left[node] if x[self.feature[node]] <= self.threshold[node] else self.right[node]
            out.append(node)
        return out


@dataclass(frozen=True)
class TreeModel:
    """Gradient-boosted regression trees on the log-odds: p = σ(base + Σ tree(x)). Trained by
    scripts/train_gate.py (scikit-learn's HistGradientBoostingClassifier, shallow trees); predicting needs no
    library. ``monotone`` names the features the probability never decreases in (trained with that
    constraint): the gate's bound over the e5 features (pipeline/rescue._bound) needs them there."""

    names: tuple[str, ...]
    trees: tuple[Tree, ...]
    base: float
    threshold: float
    monotone: tuple[str, ...] = ()
    # the feature "method_prior": each extraction method's share of right answers among the training extractions,
    # smoothed towards the share over all of them (``prior_default``, also a method's unseen in training)
    method_priors: tuple[tuple[str, float], ...] = ()
    prior_default: float = 0.0

    @classmethod
    def from_dict(cls, d: dict, source: str = "<dict>") -> "TreeModel":
        try:
            names = tuple(d["features"])
            trees = tuple(Tree(tuple(map(int, t["feature"])), tuple(map(float, t["threshold"])),
                               tuple(map(int, t["left"])), tuple(map(int, t["right"])),
                               tuple(map(float, t["value"]))) for t in d["trees"])
            prior = d.get("method_prior") or {}
            m = cls(names, trees, float(d["base"]), float(d["threshold"]), tuple(d.get("monotone") or ()),
                    tuple((str(k), float(v)) for k, v in (prior.get("table") or {}).items()),
                    float(prior.get("default", 0.0)))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise LoopAgentError("E406", path=source, detail=f"{type(exc).__name__}: {exc}") from exc
        unknown = [n for n in names + m.monotone if n not in FEATURES]
        bad = [i for i, t in enumerate(trees)
               if not (len(t.feature) == len(t.threshold) == len(t.left) == len(t.right) == len(t.value))
               or any(f >= len(names) or (f >= 0 and not (0 < t.left[j] < len(t.feature)
                                                         and 0 < t.right[j] < len(t.feature)))
                      for j, f in enumerate(t.feature))]
        if unknown or bad or ("method_prior" in names and not m.method_priors):
            raise LoopAgentError("E406", path=source, detail=f"unknown features {unknown} or malformed trees {bad[:3]}"
                                 " (or the feature method_prior without its table)")
        return m

    def to_dict(self) -> dict:
        return {"kind": "trees", "features": list(self.names), "base": self.base, "threshold": self.threshold,
                "monotone": list(self.monotone),
                **({"method_prior": {"default": self.prior_default, "table": dict(self.method_priors)}}
                   if self.method_priors else {}),
                "trees": [{"feature": list(t.feature), "threshold": list(t.threshold), "left": list(t.left),
                           "right": list(t.right), "value": list(t.value)} for t in self.trees]}

    def _x(self, feats: dict[str, float]) -> list[float]:
        return [float(feats.get(n, 0.0)) for n in self.names]

    def method_prior(self, method: str) -> float:
        """The training share of right answers of extractions by ``method`` (smoothed), for the feature
        "method_prior"; the share over all methods for one not seen in training."""
        return self._priors.get(method, self.prior_default)

    @cached_property
    def _priors(self) -> dict[str, float]:
        return dict(self.method_priors)

    def explain(self, feats: dict[str, float]) -> tuple[float, dict[str, float]]:
        """(probability, each feature's share of the logit above the trees' mean output): along each tree's path,
        the change of the mean output at every node is credited to the feature its parent asked about (the
        probability is exactly ``probabilities``')."""
        import numpy as np
        feature, value = self._packed[0], self._packed[4]
        levels = self._walk([feats])
        out = np.zeros(len(self.names) + 1)  # a leaf's feature −1 credits the last slot, with 0 (its own child)
        for node, child in zip(levels, levels[1:]):
            np.add.at(out, feature[node[0]], value[child[0]] - value[node[0]])
        return self._sigmoids(levels[-1])[0], dict(zip(self.names, out[:-1].tolist()))

    def contributions(self, feats: dict[str, float]) -> dict[str, float]:
        return self.explain(feats)[1]

    def probability(self, feats: dict[str, float]) -> float:
        """σ(base + Σ leaf) (the gate asks several times an answer: see ``probabilities``)."""
        return self.probabilities([feats])[0]

    def probabilities(self, rows: list[dict[str, float]]) -> list[float]:
        """σ(base + Σ leaf) of each of ``rows``."""
        return self._sigmoids(self._walk(rows)[-1]) if rows else []

    def _walk(self, rows: list[dict[str, float]]) -> list[Any]:
        """The nodes every tree is at for every row (rows × trees), from the roots down to the leaves, a level at a
        time on the packed arrays (a leaf is its own child, so a short path waits at its leaf)."""
        import numpy as np
        feature, threshold, left, right, _, roots, depth = self._packed
        x = np.asarray([self._x(f) + [0.0] for f in rows])  # a leaf's feature −1 reads the padding
        node = np.broadcast_to(roots, (len(rows), len(roots)))
        at = np.arange(len(rows))[:, None]
        levels = [node]
        for _ in range(depth):
            node = np.where(x[at, feature[node]] <= threshold[node], left[node], right[node])
            levels.append(node)
        return levels

    def _sigmoids(self, leaves: Any) -> list[float]:
        return [_sigmoid(self.base + float(z)) for z in self._packed[4][leaves].sum(axis=1)]

    @cached_property
    def _packed(self) -> tuple[Any, Any, Any, Any, Any, Any, int]:
        """Every tree's nodes in flat arrays (children as flat indices; a leaf is its own child), the roots'
        indices and the deepest path's length."""
        import numpy as np
        starts = np.cumsum([0] + [len(t.feature) for t in self.trees])
        feature, threshold, left, right, value = [], [], [], [], []
        for s0, t in zip(starts, self.trees):
            for j, f in enumerate(t.feature):
                feature.append(f)
                threshold.append(t.threshold[j])
                left.append(s0 + (t.left[j] if f >= 0 else j))
                right.append(s0 + (t.right[j] if f >= 0 else j))
                value.append(t.value[j])
        return (np.array(feature, dtype=np.int64), np.array(threshold), np.array(left, dtype=np.int64),
                np.array(right, dtype=np.int64), np.array(value), starts[:-1].astype(np.int64), _tree_depth(self.trees))

    def monotone_in(self, names: tuple[str, ...]) -> bool:
        return all(n in self.monotone or n not in self.names for n in names)


def _tree_depth(trees: tuple[Tree, ...]) -> int:
    """The number of questions on the longest root-to-leaf path of any tree."""
    def depth(t: Tree, node: int) -> int:
        return 0 if t.feature[node] < 0 else 1 + max(depth(t, t.left[node]), depth(t, t.right[node]))
    return max((depth(t, 0) for t in trees), default=0)


@lru_cache(maxsize=4)
def load_model(path: str = str(WEIGHTS)) -> "VerifierModel | TreeModel":
    """The shipped weights (or another weights file): a logistic model, or trees (``"kind": "trees"``);
    E406 when missing or malformed."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LoopAgentError("E406", path=path, detail=f"{type(exc).__name__}: {exc}") from exc
    if isinstance(data, dict) and data.get("kind") == "trees":
        return TreeModel.from_dict(data, path)
    return VerifierModel.from_dict(data, path)


class Verifier:
    """Stage 3½: answer or not_found for one extraction's features."""

    def __init__(self, model: "Optional[VerifierModel | TreeModel]" = None,
                 threshold: Optional[float] = None) -> None:
        self.model = model or load_model()
        self.threshold = self.model.threshold if threshold is None else threshold

    def run(self, feats: dict[str, float], top: int = 2) -> Verdict:
        p, contrib = self.model.explain(feats)
        accept = p >= self.threshold
        # decisive: the features that pushed most towards the decision taken
        sign = 1.0 if accept else -1.0
        ranked = sorted((n for n in contrib if sign * contrib[n] > 0), key=lambda n: -sign * contrib[n])[:top]
        return Verdict("answer" if accept else "not_found", round(p, 4), self.threshold, dict(feats),
                       [_describe(n, feats[n]) for n in ranked])


def _describe(name: str, x: float) -> str:
    label = FEATURES[name]
    if name in ("coverage", "asked_coverage", "similarity", "priority", "e5_similarity", "anchor_score",
                "lead_share", "extraction_score", "method_prior"):
        return f"{label}{x:.2f}"
    if name == "top_missing":
        return label if x else _SAY["top_missing.no"]
    if name in ("e5_margin", "anchor_margin"):
        return f"{label}{x:+.3f}"
    if name == "multi_ask":
        return label if x else _SAY["multi_ask.no"]
    if name == "focus_in_evidence":
        return label if x == 1.0 else _SAY["focus_in_evidence.none" if x == 0.5 else "focus_in_evidence.missing"]
    if name == "kind_match":
        return label if x == 1.0 else _SAY["kind_match.none" if x == 0.5 else "kind_match.mismatch"]
    if name == "figure_met":
        return label if x > 0 else _SAY["figure_met.unmet" if x < 0 else "figure_met.none"]
    if name == "rival_figure":
        return label if x == 1.0 else _SAY["rival_figure.none" if x == 0.5 else "rival_figure.no"]
    if name == "situation":
        return label if x else _SAY["situation.no"]
    return label if x else f"有{FEATURES['similarity']}"
