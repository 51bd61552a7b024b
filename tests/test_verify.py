"""The verifier: its features on hand-made queries, its decision, the shipped weights, and the gate with it."""
import json

import pytest

from pipeline import KnowledgeBase, LoopAgentError
from pipeline.orchestrator import AskSettings
from pipeline.types import Query
from pipeline.verify import FEATURES, WEIGHTS, Verifier, VerifierModel, extract_features, load_model

ROOT = WEIGHTS.parent.parent.parent


def _query(**constraints):
    return Query(text="我们公司的女职工生育享受多少天产假？", qtype="duration",
                 weights={"女职工": 1.0, "生育": 1.0, "产假": 1.0, "公司": 0.5},
                 expansions={"产假": ["生育假"]}, constraints=constraints)


def test_features_of_a_situational_duration_question():
    q = _query(asked_clause="女职工生育享受多少天产假", focus="产假", value_units=["日"])
    text = "女职工生育享受98天产假。"
    f = extract_features(q, {"kind": "duration", "number": 98, "unit": "天"}, text, text, "", 0.8, 85, {})
    assert f == {"coverage": 0.8, "asked_coverage": 1.0, "focus_in_evidence": 1.0, "kind_match": 1.0,
                 "priority": 0.85, "situation": 1.0, "similarity": 0.0, "similarity_missing": 1.0,
                 "anchor_rank": 1.0, "anchor_score": 0.0, "doc_named": 0.5, "value_in_question": 0.0,
                 "strategy_kind": 0.0, "yesno": 0.0, "question_terms": 0.3333, "lead_share": 1.0,
                 "figure_met": 0.0}


def test_features_of_the_anchor_the_named_document_and_a_figure_the_asker_gave():
    q = _query(doc_ids=["d1"], quantities=[{"number": 98, "unit": "日", "text": "98天"}])
    text = "生育享受98天产假。"
    f = extract_features(q, {"kind": "duration", "number": 98, "unit": "天"}, text, text, "", 0.8, 85, {},
                         rank=3, anchor_score=1.25, method="strategy:yesno.modal", doc_id="d2")
    assert (f["anchor_rank"], f["anchor_score"], f["doc_named"], f["value_in_question"], f["strategy_kind"]) == \
        (0.25, 1.25, 0.0, 1.0, 1.0)
    assert f["lead_share"] == 0.5  # of the two heaviest words (女职工, 生育) the sentence holds one
    assert f["figure_met"] == 0.0  # the sentence sets no condition on a figure


def test_the_askers_figure_in_another_unit_is_not_the_value():
    # 多长时间检查一次: the asker's 一次 (1 次) is not the provision's 每季度 (1 季度); 98 日 given as 98天 is
    once = _query(quantities=[{"number": 1, "unit": "次", "text": "一次"}])
    text = "审计部门应当至少每季度检查一次。"
    assert extract_features(once, {"kind": "duration", "number": 1, "unit": "季度"}, text, text, "", 0.8, 87,
                            {})["value_in_question"] == 0.0
    days = _query(quantities=[{"number": 98, "unit": "日", "text": "98日"}])
    assert extract_features(days, {"kind": "duration", "number": 98, "unit": "天"}, text, text, "", 0.8, 85,
                            {})["value_in_question"] == 1.0
    bare = _query(quantities=[{"number": 5000, "unit": "", "text": "5000"}])
    assert extract_features(bare, {"kind": "number", "number": 5000, "unit": "元"}, text, text, "", 0.8, 85,
                            {})["value_in_question"] == 1.0


def test_figure_met_says_whether_the_askers_figure_meets_the_provisions_condition():
    q = _query(quantities=[{"number": 15, "unit": "年", "text": "15年"}])
    met = extract_features(q, {}, "职工累计工作已满10年不满20年的，年休假10天。", "", "", 1.0, 85, {})
    unmet = extract_features(q, {}, "职工累计工作已满1年不满10年的，年休假5天。", "", "", 1.0, 85, {})
    assert (met["figure_met"], unmet["figure_met"]) == (1.0, -1.0)


def test_features_when_the_question_sets_no_kind_and_the_focus_is_a_synonym():
    q = _query(focus="产假")
    f = extract_features(q, {"kind": "text", "text": "x"}, "生育假九十八日", "生育假九十八日", "", 0.25, None,
                         {"similarity": 0.61})
    assert (f["asked_coverage"], f["focus_in_evidence"], f["kind_match"], f["priority"], f["situation"]) == \
        (0.25, 1.0, 0.5, 0.5, 0.0)
    assert (f["similarity"], f["similarity_missing"]) == (0.61, 0.0)


def test_features_when_the_unit_contradicts_the_asked_kind_and_the_focus_is_absent():
    q = _query(focus="产假", value_units=["日"])
    f = extract_features(q, {"kind": "money", "number": 500, "unit": "元"}, "罚款500元", "罚款500元", "", 0.3, 90)
    assert (f["focus_in_evidence"], f["kind_match"]) == (0.0, 0.0)


MODEL = VerifierModel(names=("coverage", "focus_in_evidence"), mean=(0.5, 0.5), std=(0.25, 0.5),
                      coef=(2.0, 1.0), intercept=0.0, threshold=0.5)


def test_decision_probability_and_reason():
    v = Verifier(MODEL).run({"coverage": 0.75, "focus_in_evidence": 1.0})
    # logit = 2*(0.25/0.25) + 1*(0.5/0.5) = 3 -> p = 0.9526
    assert (v.decision, v.probability) == ("answer", 0.9526)
    assert v.reason() == "校验：采纳（概率0.95；覆盖率0.75，焦点词在证据中）"


def test_refusal_names_what_pulled_it_down():
    v = Verifier(MODEL).run({"coverage": 0.25, "focus_in_evidence": 0.0})
    assert (v.decision, v.probability) == ("not_found", 0.0474)
    assert v.reason() == "校验：不采纳（概率0.05；覆盖率0.25，焦点词不在证据中）"


def test_shipped_weights_load_and_the_manifest_names_its_data():
    m = load_model()
    assert set(m.names) <= set(FEATURES)  # weights trained on fewer features than the code can compute load
    manifest = json.loads((WEIGHTS.parent / "manifest.json").read_text(encoding="utf-8"))
    assert set(manifest["data"]) == {"dev", "set1", "set2", "set3", "set4"}
    assert manifest["data"]["set1"]["file"] == "tests/data/fresh/set1.jsonl"
    assert manifest["data"]["dev"]["file"] == "shared/eval/dev/questions.jsonl"
    assert manifest["threshold"]["value"] == m.threshold
    assert len(manifest["git_commit"]) >= 40
    assert not any("sealed" in d["file"] for d in manifest["data"].values())


def test_malformed_weights_raise_a_coded_error(tmp_path):
    bad = tmp_path / "w.json"
    bad.write_text(json.dumps({"features": ["coverage", "no_such_feature"], "mean": [0, 0], "std": [1, 1],
                               "coef": [1, 1], "intercept": 0, "threshold": 0.5}), encoding="utf-8")
    with pytest.raises(LoopAgentError) as e:
        load_model(str(bad))
    assert e.value.code == "E406"
    with pytest.raises(LoopAgentError) as e:
        load_model(str(tmp_path / "missing.json"))
    assert e.value.code == "E406"


def test_record_and_verifier_settings_exclude_each_other():
    with pytest.raises(LoopAgentError) as e:
        AskSettings(verifier=True, record=True)
    assert e.value.code == "E303"


QUESTION = "女职工生育享受多少天产假？"


def test_gate_with_the_verifier_accepts_and_says_why(example_kb, tmp_path):
    w = tmp_path / "w.json"
    w.write_text(json.dumps({**MODEL.to_dict(), "threshold": 0.5}), encoding="utf-8")
    kb = KnowledgeBase(example_kb.store.path, settings=AskSettings(verifier=True, verifier_weights=str(w)))
    a = kb.ask(QUESTION)
    assert a.status == "answered"
    assert a.value == {"kind": "duration", "number": 98, "unit": "日"}
    # coverage 1.00 -> logit 2*(0.5/0.25) = 4 -> p 0.98; the question has no focus word (0.5: no push)
    assert [r for r in a.reasoning if "校验" in r] == ["抽取：校验：采纳（概率0.98；覆盖率1.00）"]


def test_gate_with_a_strict_verifier_refuses(example_kb, tmp_path):
    w = tmp_path / "w.json"
    w.write_text(json.dumps({**MODEL.to_dict(), "threshold": 0.999}), encoding="utf-8")
    kb = KnowledgeBase(example_kb.store.path, settings=AskSettings(verifier=True, verifier_weights=str(w)))
    a = kb.ask(QUESTION)
    assert a.status == "not_found"
    assert any(r.startswith("拒答：template:") and "未通过校验：不采纳（概率" in r for r in a.reasoning)


def test_record_mode_records_the_features_and_the_bars_decision(example_kb):
    kb = KnowledgeBase(example_kb.store.path, settings=AskSettings(record=True))
    a = kb.ask(QUESTION)
    recs = kb.orchestrator.records
    assert a.status == "answered" and len(recs) == 1
    assert recs[0]["bar"] is True and recs[0]["method"] == a.method
    # the verifier's features: all it reads, all named (FEATURES names the trained gate's too)
    assert set(load_model().names) <= set(recs[0]["features"]) < set(FEATURES)
