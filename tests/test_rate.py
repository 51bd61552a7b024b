"""A rate per unit of time applied to the asker's own figure (strategy rate.per_unit): computed by code."""

POLICY = """# 某某公司员工福利办法

第一条 为规范员工福利，制定本办法。

第二条 员工离职时，公司按其连续服务年限发放服务奖励，每满一年发给半个月工资。

第三条 员工每服务满两年增加一天带薪假期。
"""


def test_the_rate_times_the_askers_figure(kb_of):
    kb = kb_of({"某某公司员工福利办法.md": POLICY})  # conftest: written under a fresh docs folder and ingested
    a = kb.ask("我在公司连续服务了六年，离职时能拿几个月工资的服务奖励？")
    assert (a.status, a.method) == ("answered", "strategy:rate.per_unit"), a.reasoning
    assert a.value == {"kind": "duration", "number": 3, "unit": "月",
                       "computed": {"rate": "每满一年发给半个月", "figure": "六年", "expression": "6 ÷ 1 × 0.5 = 3"}}
    assert a.answer.startswith("3个月（六年，每满一年发给半个月：6 ÷ 1 × 0.5 = 3）")
    assert [e.text for e in a.evidence] == ["员工离职时，公司按其连续服务年限发放服务奖励，每满一年发给半个月工资。"]
    assert any("由代码计算" in r for r in a.reasoning)


def test_a_rate_over_several_units(kb_of):
    kb = kb_of({"某某公司员工福利办法.md": POLICY})  # conftest: written under a fresh docs folder and ingested
    a = kb.ask("员工服务满4年，能增加几天带薪假期？")
    assert a.method == "strategy:rate.per_unit", a.reasoning
    assert (a.value["number"], a.value["unit"], a.value["computed"]["expression"]) == (2, "日", "4 ÷ 2 × 1 = 2")


def test_a_figure_that_is_not_a_whole_multiple_is_not_computed(kb_of):
    kb = kb_of({"某某公司员工福利办法.md": POLICY})  # conftest: written under a fresh docs folder and ingested
    a = kb.ask("员工服务满3年，能增加几天带薪假期？")  # 3 years against 每…满两年: how the odd year counts is not stated
    assert a.method != "strategy:rate.per_unit"
    assert not any("由代码计算" in r for r in a.reasoning)
