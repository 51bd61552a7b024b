"""The place template (到X办理, 向X申请) answers where or to whom one goes, never who approves or decides."""
from __future__ import annotations

POLICY = {"制度/员工请假管理办法.md": """# 员工请假管理办法

第一条 为规范员工请假管理，制定本办法。

第二条 员工请病假的，应当至少提前一日向部门负责人提出申请，并提交医院出具的病假证明。

第三条 员工请事假的，应当至少提前三日向人事部提出书面申请，经总经理批准后方可休假。

第四条 员工事假全年累计不得超过十五日。
"""}


def test_who_approves_is_the_approver_not_the_office_applied_to(kb_of):
    kb = kb_of(POLICY)
    a = kb.ask("员工请事假要经谁批准？")
    assert a.status == "answered"
    assert a.value == {"kind": "text", "text": "总经理"}  # 经总经理批准: the approver, 经 not part of the name
    assert a.method == "strategy:who.acts"  # the doer of the asked act (批准)
    assert a.evidence[0].text == "员工请事假的，应当至少提前三日向人事部提出书面申请，经总经理批准后方可休假。"


def test_to_whom_one_applies_is_the_place(kb_of):
    kb = kb_of(POLICY)
    a = kb.ask("员工请病假要向谁提出申请？")
    assert a.status == "answered"
    assert a.value == {"kind": "text", "text": "部门负责人"}
    assert a.method == "template:who.place"


BUDGET = {"制度/预算管理制度.md": """# 预算管理制度

第八条 公司年度预算草案由董事会决定，总经理负责组织执行。

第九条 预算执行情况每季度向董事会报告一次。
"""}


def test_the_doer_of_the_asked_act(kb_of):
    kb = kb_of(BUDGET)
    a = kb.ask("公司年度预算由谁负责组织执行？")  # not 由董事会决定: the act asked is 负责组织执行
    assert (a.status, a.value) == ("answered", {"kind": "text", "text": "总经理"})
    assert a.method == "strategy:who.acts"
    b = kb.ask("公司年度预算草案由谁决定？")
    assert (b.status, b.value) == ("answered", {"kind": "text", "text": "董事会"})
