"""A contract's clauses say 甲方 / 乙方; its head says who they are (乙方（出版者）：某某出版社有限公司). A question names
the party in the reader's words (出版社, 作者): the party lines of the labels an answer's evidence uses join what the
answer may lean on (Orchestrator.scope), so those words count as covered (rules/pipeline_cues.yaml contract.party)."""
from pipeline.orchestrator import AskSettings

CONTRACT = """# 某某图书出版合同

甲方（著作权人）：张某某

乙方（出版者）：某某文艺出版社有限公司

## 第一条 授权

甲方授予乙方在合同有效期内以图书形式出版发行该作品的专有使用权。

## 第二条 稿酬

2.1 乙方应在本合同签订后10日内向甲方支付预付稿酬人民币20000元。

2.2 版税率为图书定价的8%。
"""

POLICY = """# 某某公司差旅费管理办法

第一条 员工出差的伙食补助按每人每天100元包干。

第二条 本办法由财务部负责解释。
"""


def test_the_party_lines_of_a_contract(kb_of):
    kb = kb_of({"出版合同.md": CONTRACT, "差旅.md": POLICY})
    by_source = {d["source"]: d["doc_id"] for d in kb.store.documents()}
    assert kb.orchestrator._parties(by_source["出版合同.md"]) == [
        ("甲方", "甲方（著作权人）：张某某"), ("乙方", "乙方（出版者）：某某文艺出版社有限公司")]
    assert kb.orchestrator._parties(by_source["差旅.md"]) == []


def test_a_party_named_in_the_readers_words_is_covered_by_its_label(kb_of):
    kb = kb_of({"出版合同.md": CONTRACT}, settings=AskSettings(gate_weights=""))  # the coverage bar decides
    a = kb.ask("某某图书出版合同里，出版社要在签约后几天内付预付稿酬？")
    assert (a.status, a.value) == ("answered", {"kind": "duration", "number": 10, "unit": "日"}), a.reasoning
    # 出版社 through 乙方（出版者）：某某文艺出版社有限公司 (0.52 without); 合同 of the named document's title is no term
    assert "抽取：证据覆盖率：0.76" in a.reasoning
