"""The gate's boosted trees (pipeline.verify.TreeModel): prediction and per-feature contributions with no library,
the e5 shortcut only where the trees are monotone, and scripts/train_gate.py's export reproducing scikit-learn."""
import json
import math
from pathlib import Path

import numpy as np
import pytest

from pipeline.errors import LoopAgentError
from pipeline.rescue import _bound
from pipeline.verify import TreeModel, Verifier, load_model
from tests.conftest import load_script

ROOT = Path(__file__).resolve().parent.parent

# two stumps: coverage ≤ 0.5 → −1 else +1 (root mean 0 over 10 + 10 rows); e5_similarity ≤ 0.9 → −0.5 else
# +1.5 (mean over 30 + 10 rows: 0); base 0.2
TREES = {"kind": "trees", "features": ["coverage", "e5_similarity"], "base": 0.2, "threshold": 0.5,
         "monotone": ["coverage", "e5_similarity"],
         "trees": [{"feature": [0, -1, -1], "threshold": [0.5, 0, 0], "left": [1, 0, 0], "right": [2, 0, 0],
                    "value": [0.0, -1.0, 1.0]},
                   {"feature": [1, -1, -1], "threshold": [0.9, 0, 0], "left": [1, 0, 0], "right": [2, 0, 0],
                    "value": [0.0, -0.5, 1.5]}]}


def _sigmoid(z):
    return 1.0 / (1.0 + math.exp(-z))


def test_probability_is_the_base_plus_the_leaves():
    m = TreeModel.from_dict(TREES)
    assert m.probability({"coverage": 0.3, "e5_similarity": 0.95}) == pytest.approx(_sigmoid(0.2 - 1.0 + 1.5))
    assert m.probability({"coverage": 0.5, "e5_similarity": 0.9}) == pytest.approx(_sigmoid(0.2 - 1.0 - 0.5))  # ≤ goes left


def test_trees_of_different_depths_walked_together_give_each_tree_s_own_leaf():
    # a depth-2 tree beside a stump and a lone leaf: the packed walk must leave a shallow tree at its leaf
    deep = {"feature": [0, 1, -1, -1, -1], "threshold": [0.5, 0.9, 0, 0, 0], "left": [1, 2, 0, 0, 0],
            "right": [4, 3, 0, 0, 0], "value": [0.0, -0.2, -2.0, 0.7, 3.0]}
    leaf = {"feature": [-1], "threshold": [0.0], "left": [0], "right": [0], "value": [0.25]}
    m = TreeModel.from_dict({**TREES, "trees": TREES["trees"] + [deep, leaf]})
    for cov, sim, leaves in [(0.3, 0.95, -1.0 + 1.5 + 0.7), (0.3, 0.2, -1.0 - 0.5 - 2.0), (0.8, 0.2, 1.0 - 0.5 + 3.0)]:
        assert m.probability({"coverage": cov, "e5_similarity": sim}) == pytest.approx(_sigmoid(0.2 + leaves + 0.25))
        x = m._x({"coverage": cov, "e5_similarity": sim})  # the same as walking each tree on its own
        assert m.probability({"coverage": cov, "e5_similarity": sim}) == pytest.approx(
            _sigmoid(m.base + sum(t.value[t.path(x)[-1]] for t in m.trees)))


def test_probabilities_of_many_rows_are_each_row_s_probability():
    deep = {"feature": [0, 1, -1, -1, -1], "threshold": [0.5, 0.9, 0, 0, 0], "left": [1, 2, 0, 0, 0],
            "right": [4, 3, 0, 0, 0], "value": [0.0, -0.2, -2.0, 0.7, 3.0]}
    m = TreeModel.from_dict({**TREES, "trees": TREES["trees"] + [deep]})
    rows = [{"coverage": c, "e5_similarity": s} for c in (0.3, 0.5, 0.8) for s in (0.2, 0.9, 0.95)]
    walked = [_sigmoid(m.base + sum(t.value[t.path(m._x(r))[-1]] for t in m.trees)) for r in rows]  # one tree at a time
    assert m.probabilities(rows) == pytest.approx(walked)
    assert [m.probability(r) for r in rows] == m.probabilities(rows)
    assert m.probabilities([]) == []
    # explain walks all trees at once too: its probability is exactly probabilities', and each feature's share is the
    # changes of mean output along each tree's own path, credited to the feature the parent node asks about
    for r in rows:
        x = m._x(r)
        by_tree = dict.fromkeys(m.names, 0.0)
        for t in m.trees:
            nodes = t.path(x)
            for parent, child in zip(nodes, nodes[1:]):
                by_tree[m.names[t.feature[parent]]] += t.value[child] - t.value[parent]
        p, contrib = m.explain(r)
        assert p == m.probability(r) and contrib == pytest.approx(by_tree, abs=1e-12)


def test_contributions_are_the_changes_along_each_path_and_name_the_decisive_feature():
    m = TreeModel.from_dict(TREES)
    assert m.contributions({"coverage": 0.3, "e5_similarity": 0.95}) == {"coverage": -1.0, "e5_similarity": 1.5}
    v = Verifier(m).run({"coverage": 0.3, "e5_similarity": 0.95}, top=1)
    assert (v.decision, v.probability) == ("answer", round(_sigmoid(0.7), 4))
    assert v.reason() == "校验：采纳（概率0.67；语义相似度（e5）0.95）"


def test_round_trip_and_malformed_trees(tmp_path):
    m = TreeModel.from_dict(TREES)
    assert TreeModel.from_dict(m.to_dict()) == m
    w = tmp_path / "w.json"
    w.write_text(json.dumps(TREES), encoding="utf-8")
    load_model.cache_clear()
    assert load_model(str(w)) == m
    bad = dict(TREES, trees=[{**TREES["trees"][0], "left": [7, 0, 0]}])  # a child that is not a node
    w.write_text(json.dumps(bad), encoding="utf-8")
    load_model.cache_clear()
    with pytest.raises(LoopAgentError) as e:
        load_model(str(w))
    assert e.value.code == "E406" and "malformed trees [0]" in str(e.value)


def test_the_e5_shortcut_needs_monotone_trees():
    feats = {"coverage": 0.9, "e5_similarity": 0.8}
    free = {"e5_similarity": (0.8, 1.0)}
    sure = _bound(Verifier(TreeModel.from_dict(TREES)), feats, free)
    assert sure == {"coverage": 0.9, "e5_similarity": 0.8}  # accepted at both ends: the low end is the bound
    loose = TreeModel.from_dict(dict(TREES, monotone=["coverage"]))
    assert _bound(Verifier(loose), feats, free) is None  # not monotone in e5: computed, never assumed


def test_train_gate_exports_trees_that_reproduce_scikit_learn():
    pytest.importorskip("sklearn")
    mod = load_script("train_gate")
    rng = np.random.default_rng(0)
    names = ["coverage", "e5_similarity", "anchor_margin", "yesno"]
    x = rng.random((400, 4))
    y = ((x[:, 0] + x[:, 1] + 0.3 * rng.standard_normal(400)) > 1.0).astype(float)
    m = mod.fit_trees(x, y, names)  # raises when the export differs from predict_proba
    assert m.monotone == ("e5_similarity", "coverage", "anchor_margin")  # TREE_MONOTONE's among the features
    low = m.probability({"coverage": 0.1, "e5_similarity": 0.1, "anchor_margin": 0.5, "yesno": 0.0})
    high = m.probability({"coverage": 0.9, "e5_similarity": 0.9, "anchor_margin": 0.5, "yesno": 0.0})
    assert low < 0.3 < 0.7 < high
    # the mean output at the root of each tree is the count-weighted mean of its leaves
    t = m.trees[0]
    assert t.value[0] == pytest.approx(np.mean([t.value[t.path(list(r))[-1]] for r in x]), abs=1e-9)


def test_the_threshold_rule_holds_the_held_out_wrong_rate_to_the_bar():
    mod = load_script("train_gate")
    curve = [{"threshold": 0.6, "wrong_rate": 0.045, "gain": 254.0}, {"threshold": 0.65, "wrong_rate": 0.039, "gain": 262.0},
             {"threshold": 0.75, "wrong_rate": 0.028, "gain": 248.0}, {"threshold": 0.8, "wrong_rate": 0.023, "gain": 210.0}]
    assert mod.choose(curve, 0.03)["threshold"] == 0.75  # the lowest within 3%, though 0.65 gains more
    assert mod.choose(curve, 0.0)["threshold"] == 0.65  # the gain rule alone
    assert mod.choose(curve, 0.01)["threshold"] == 0.65  # none within 1%: the gain rule
    # a dip of the fine grid under the bar (0.62) below thresholds above it does not count: every higher one must hold
    dip = [{"threshold": 0.62, "wrong_rate": 0.029, "gain": 300.0}] + curve[1:]
    assert mod.choose(dip, 0.03)["threshold"] == 0.75


def test_held_out_folds_keep_each_document_in_one_fold():
    mod = load_script("train_gate")
    questions = [json.loads(x) for x in open(ROOT / "tests" / "data" / "fresh" / "set1.jsonl", encoding="utf-8")
                 if x.strip()]
    rows = [{"set": "set1", "id": q["id"]} for q in questions]
    fold = mod.folds(rows, "document")
    by_doc: dict[str, set[str]] = {}
    for r, q in zip(rows, questions):
        d = q["doc"][0] if isinstance(q["doc"], list) else q["doc"]
        by_doc.setdefault(d or r["id"], set()).add(fold[id(r)])
    assert all(len(f) == 1 for f in by_doc.values())  # every question about a document in the same fold
    assert len(set(fold.values())) == min(10, len(by_doc))
    assert fold == mod.folds(rows, "document")  # fixed seed: the same folds every run
    assert set(mod.folds(rows, "set").values()) == {"set1"}


def test_method_prior_ships_its_table_with_the_trees(tmp_path):
    # a stump on method_prior: ≤ 0.5 → −1 else +1; the table gives template:a 0.8, an unseen method the mean 0.4
    d = {"kind": "trees", "features": ["method_prior"], "base": 0.0, "threshold": 0.5,
         "method_prior": {"default": 0.4, "table": {"template:a": 0.8, "strategy:b": 0.1}},
         "trees": [{"feature": [0, -1, -1], "threshold": [0.5, 0, 0], "left": [1, 0, 0], "right": [2, 0, 0],
                    "value": [0.0, -1.0, 1.0]}]}
    m = TreeModel.from_dict(d)
    assert (m.method_prior("template:a"), m.method_prior("strategy:b"), m.method_prior("template:new")) == (0.8, 0.1, 0.4)
    assert TreeModel.from_dict(m.to_dict()) == m
    assert m.probability({"method_prior": m.method_prior("template:a")}) == pytest.approx(_sigmoid(1.0))
    w = tmp_path / "w.json"
    w.write_text(json.dumps({k: v for k, v in d.items() if k != "method_prior"}), encoding="utf-8")
    load_model.cache_clear()
    with pytest.raises(LoopAgentError) as e:  # the feature without its table: refused, not read as 0
        load_model(str(w))
    assert e.value.code == "E406" and "method_prior without its table" in str(e.value)


def test_train_gate_method_priors_are_smoothed_shares_of_right_extractions():
    mod = load_script("train_gate")
    gs = [{"method": "template:a", "right": True}] * 9 + [{"method": "template:a", "right": False}] \
        + [{"method": "strategy:b", "right": False}] * 10
    p = mod.method_priors(gs, 10.0)
    # mean 9/20 = 0.45; a: (9 + 10 × 0.45) / 20 = 0.675; b: (0 + 4.5) / 20 = 0.225
    assert p == {"default": 0.45, "smoothing": 10.0, "table": {"strategy:b": 0.225, "template:a": 0.675}}
    rows = mod.matrix([{"method": "template:z", "features": {"coverage": 0.3}}], ["coverage", "method_prior"], p)
    assert rows.tolist() == [[0.3, 0.45]]  # an unseen method reads the mean


def test_against_compares_an_existing_gate_with_the_held_out_one_per_group_of_sets(tmp_path):
    """scripts/train_gate.py --against: each group of sets (own documents / training corpus / dev corpus) replayed
    with the existing gate (a stump on coverage) and with the new gate's held-out probabilities, same thresholds."""
    mod = load_script("train_gate")
    assert [mod.group_of(n) for n in ("dev", "set2", "s100", "s184")] == \
        ["dev corpus", "dev corpus", "training corpus", "own documents"]
    w = tmp_path / "w.json"
    w.write_text(json.dumps(dict(TREES, trees=TREES["trees"][:1], features=["coverage"], monotone=["coverage"],
                                 base=0.0)), encoding="utf-8")

    def row(name, coverage, right):  # one question, one extraction the rules refused under the bar
        g = {"decision": "refuse_cover", "features": {"coverage": coverage}, "method": "template:a",
             "right": right, "wrong": not right}
        return {"set": name, "id": f"{name}q1", "answerable": True, "final_right": False, "final_wrong": False,
                "gates": [g]}

    rows = [row("s184", 0.9, True), row("s184", 0.8, False), row("s100", 0.2, True)]
    probs = {id(rows[0]["gates"][0]): 0.9, id(rows[1]["gates"][0]): 0.3, id(rows[2]["gates"][0]): 0.7}
    load_model.cache_clear()
    out = mod.against(rows, probs, str(w), thresholds=(0.5, 0.8)).splitlines()
    # the stump: coverage > 0.5 → p = σ(1) = 0.73 (accepted at 0.5, not at 0.8), else σ(−1) = 0.27
    assert out[1:] == [
        "  own documents: 2 questions, 2 answerable; rules (0, 0), that gate at its threshold (1, 1)",
        "    that gate: (1, 1) (0, 0)",
        "    new, held out: (1, 0) (1, 0)",
        "  training corpus: 1 questions, 1 answerable; rules (0, 0), that gate at its threshold (0, 0)",
        "    that gate: (0, 0) (0, 0)",
        "    new, held out: (1, 0) (0, 0)"]
