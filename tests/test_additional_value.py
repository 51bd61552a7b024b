"""An increment on a base stated elsewhere (另行奖励, 再给予, 增发…: cues value.additional) answers only a question
that asks about the increment (value.additional_asked); otherwise the gate refuses it (refusal ``additional``) and
the next extraction is tried (pipeline/orchestrator.py additional_value)."""
from pipeline.orchestrator import additional_value

EXTRA = "单元内60周岁以上老年人占比达到40%以上的，每台电梯另行奖励2万元；"


def test_the_marker_in_the_figures_own_clause():
    money = {"kind": "money", "number": 20000, "unit": "元"}
    assert additional_value("6层老楼装一台电梯，按基本标准补多少钱？", EXTRA, money) == "另行奖励"
    # the question asks about the increment itself
    assert additional_value("老人多的单元还能额外拿多少奖励？", EXTRA, money) is None
    # a base and an increment in one sentence: the base's clause has no marker
    both = "基本补贴每亩100元，种植粮食作物的每亩增发10元。"
    assert additional_value("每亩补贴多少？", both, {"kind": "money", "number": 100, "unit": "元"}) is None
    assert additional_value("每亩补贴多少？", both, {"kind": "money", "number": 10, "unit": "元"}) == "增发"
    # a yes/no reading is not a figure
    assert additional_value("能叠加吗？", EXTRA, {"kind": "boolean", "value": True}) is None


def test_an_increment_does_not_answer_a_case_without_its_condition(kb_of, monkeypatch):
    kb = kb_of({"电梯.md":
        "# 某街道既有住宅加装电梯补贴办法\n\n"
        "## 第五条 补贴标准\n\n"
        "既有住宅加装电梯的，每台电梯一次性奖励10万元。\n\n"
        "单元内60周岁以上老年人占常住人口比例达到40%以上的，每台电梯另行奖励2万元。\n"})
    question = "单元内老年人占比不到40%，每台电梯奖励多少万元？"
    a = kb.ask(question, trace=True)
    assert a.status == "not_found"
    assert any("「另行奖励」" in r["why"] for r in a.trace["extract"]["rejected"])
    # without the check the increment was the answer: 2万元 for a unit that does not qualify for it
    import pipeline.orchestrator as orchestrator
    monkeypatch.setattr(orchestrator, "additional_value", lambda *args: None)
    assert kb.ask(question).value == {"kind": "money", "number": 20000, "unit": "元"}
    monkeypatch.undo()
    # asked about the increment, the increment answers
    extra = kb.ask("60周岁以上老年人占常住人口比例达到40%以上的单元，每台电梯还能额外奖励多少万元？")
    assert extra.status == "answered" and extra.value["number"] == 20000
    assert kb.ask("每台电梯奖励多少万元？").value["number"] == 100000


def test_one_off_is_no_count_of_times():
    from pipeline.numbers import find_quantities
    assert [(q["number"], q["unit"]) for q in find_quantities("并另行给予一次性奖励5000元，每年评选1次")] == \
        [(5000, "元"), (1, "次")]
