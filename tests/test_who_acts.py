"""who_acts: a question asking 谁 of one act or several (由谁提名、由谁任免) is answered by the doer of each act."""
from __future__ import annotations

RULES = {"制度/内部审计制度.md": """# 内部审计制度

第五条 审计部是公司的内部审计机构，对董事会负责。

第六条 审计部负责人应当专职，由薪酬委员会提名，董事会任免。

第七条 审计报告的对外披露须经董事长批准。
"""}


def test_each_asked_act_gets_its_own_doer(kb_of):
    kb = kb_of(RULES)
    a = kb.ask("审计部的负责人由谁提名，又由谁任免？")
    assert a.status == "answered"
    assert a.method == "strategy:who.acts"
    assert a.value == {"kind": "list", "items": ["薪酬委员会", "董事会"]}
    assert a.answer == "由薪酬委员会提名，董事会任免"
    assert a.evidence[0].text == "审计部负责人应当专职，由薪酬委员会提名，董事会任免。"


def test_the_doer_after_the_word_that_hands_the_act_on(kb_of):
    kb = kb_of(RULES)
    a = kb.ask("审计报告对外披露要经谁批准？")
    assert a.status == "answered"
    assert a.value == {"kind": "text", "text": "董事长"}  # 须经董事长批准: 须经 is not part of the doer
    assert a.method == "strategy:who.acts"


def test_the_acts_asked_and_a_sentence_without_one_of_them(kb_of, tmp_path):
    from pipeline.analyze import QueryAnalyzer
    from pipeline.rules import RuleSet
    from pipeline.store import Store
    q = QueryAnalyzer(RuleSet(), Store(tmp_path / "q.sqlite")).run("审计部的负责人由谁提名，又由谁任免？")
    assert q.constraints["who_acts"] == ["提名", "任免"]
    # a sentence naming one of the two acts only answers neither: the strategy needs a doer for each
    kb = kb_of({"制度/考核办法.md": "# 考核办法\n\n第三条 考核结果由人事部提名公示。\n"})
    assert kb.ask("考核结果由谁提名，又由谁任免？").status == "not_found"


def test_acts_asked_with_a_comma_between_them(kb_of):
    # 由谁提名，由谁任免: the act read from the question stops at its punctuation (提名, not 提名，)
    kb = kb_of({"制度/任免办法.md": "# 任免办法\n\n第五条 部门主管由总经理提名，董事会任免。\n"})
    a = kb.ask("部门主管由谁提名，由谁任免？")
    assert (a.status, a.method, a.value) == ("answered", "strategy:who.acts", {"kind": "list", "items": ["总经理", "董事会"]})
