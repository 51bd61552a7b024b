"""An answer from a document that never speaks of the thing the question names, while another document is about it
(its title holds the word), is refused (AskSettings.absent_weight, Orchestrator._absent)."""
import pytest

from pipeline.errors import LoopAgentError
from pipeline.orchestrator import AskSettings

DOCS = {
    "设备采购合同.md": "# 设备采购合同\n\n## 第三条 付款\n\n"
                   "合同生效后10个工作日内，甲方向乙方支付合同总价的30%作为预付款，即人民币90,000元。\n",
    "物流采购合同_2026.md": "# 某某物流无人机及电池采购合同\n\n## 第一条 标的\n\n"
                    "乙方向甲方供应植保无人机10架及配套电池40块。\n\n## 第二条 价款\n\n"
                    "合同总价为人民币500,000元，验收合格后一次付清。\n",
}
QUESTION = "无人机采购合同生效后，甲方先付多少预付款？"


def test_an_answer_from_a_document_that_never_names_the_asked_thing_is_refused(kb_of):
    # every word of a three-document store is common by the IDF scale: the bar is set low enough for 无人机
    kb = kb_of(DOCS, settings=AskSettings(absent_weight=0.35, gate_weights=""))
    q = kb.orchestrator.analyzer.run(QUESTION)
    assert q.weights["无人机"] >= 0.35 and q.doc_hint is None  # a run of no title: no document named
    contract = next(d["doc_id"] for d in kb.store.documents() if d["title"] == "设备采购合同")
    drones = next(d["doc_id"] for d in kb.store.documents() if d["title"] != "设备采购合同")
    assert kb.orchestrator._absent(q, contract) == "无人机"
    assert kb.orchestrator._absent(q, drones) is None  # its own document holds it
    a = kb.ask(QUESTION)
    assert a.status == "not_found"
    assert any("通篇不见问题中的「无人机」" in r for r in a.reasoning)


def test_off_and_a_word_no_title_holds(kb_of):
    from dataclasses import replace

    kb = kb_of(DOCS, settings=AskSettings(absent_weight=0, gate_weights=""))
    q = kb.orchestrator.analyzer.run(QUESTION)
    contract = next(d["doc_id"] for d in kb.store.documents() if d["title"] == "设备采购合同")
    assert kb.orchestrator._absent(q, contract) is None  # off
    kb.orchestrator.settings = replace(kb.orchestrator.settings, absent_weight=0.35)
    assert kb.orchestrator._absent(q, contract) == "无人机"
    # 植保 is in the drones contract's text, not in its title: a detail, not what that document is about
    q2 = kb.orchestrator.analyzer.run("植保设备采购合同生效后，甲方先付多少预付款？")
    assert q2.weights["植保"] >= 0.35 and kb.orchestrator._absent(q2, contract) is None


def test_the_setting_is_checked():
    with pytest.raises(LoopAgentError) as e:
        AskSettings(absent_weight=-1)
    assert e.value.code == "E303"
