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


RECEPTION = {"制度/业务接待管理办法.md": """# 业务接待管理办法

第八条 单次接待预算在5000元以下的，由承办部门负责人和本单位财务经理审批。

第九条 员工接受合作方安排的参观考察，经所在部门总监批准后方可接受。
"""}


def test_an_answer_naming_only_the_agents_the_question_rules_out_is_refused(kb_of):
    kb = kb_of(RECEPTION)
    # 除了A和B，还得谁批: an answer that names A and B only answers nothing new
    a = kb.ask("单次接待预算3000元，除了部门负责人和财务经理，还得谁审批？", trace=True)
    assert a.status == "not_found"
    assert any("的答案只说到问题已排除的「部门负责人、财务经理」" in r["why"]
               for r in a.to_dict()["stages"]["extract"]["rejected"]), a.reasoning
    # 作为部门总监，我…: the asker's own role is not who approves the asker
    b = kb.ask("作为部门总监，我想接受合作方安排的参观考察，得找谁批准？", trace=True)
    assert b.status == "not_found"
    assert any("问题已排除的「部门总监」" in r["why"] for r in b.to_dict()["stages"]["extract"]["rejected"]), b.reasoning
    # without the exclusion the same provision answers
    from pipeline.orchestrator import _excluded_agents
    assert _excluded_agents("我是员工，请事假找谁批？", "员工所在部门负责人") == []  # the asker's role inside another name
    c = kb.ask("员工想接受合作方安排的参观考察，得找谁批准？")
    assert (c.status, c.value) == ("answered", {"kind": "text", "text": "所在部门总监"}), c.reasoning


def test_an_answer_about_the_kind_does_not_answer_about_its_complement(kb_of):
    # 非机动车停车位 asked; the provision speaks of 机动车停车位 (on the 非机动车道): another thing
    from pipeline.orchestrator import other_complement
    doc = ("# 某市停车管理条例\n\n第十二条 在非机动车道上划设机动车停车位的，余留的非机动车道的宽度不得小于1.5米。\n")
    a = kb_of({"条例.md": doc}).ask("在人行道上划设非机动车停车位时，余留的宽度不得小于多少米？", trace=True)
    assert a.status == "not_found"
    assert any("证据说的是「机动车停车位」，问题问的是「非机动车停车位」" in r["why"]
               for r in a.to_dict()["stages"]["extract"]["rejected"]), a.reasoning
    assert other_complement("非居民用户逾期不改会被罚多少钱？", "对非居民用户处二万元以上十万元以下罚款。") is None
    assert other_complement("无需审批的项目有哪些？", "需审批的项目包括下列各项") is None


def test_an_answer_from_another_instalment_of_a_schedule_is_refused():
    # 第一笔款 asked: a list item of another number (（3）…) or a provision naming other instalments only is another
    # instalment; the first item, or a provision naming the asked one, is not refused
    from pipeline.orchestrator import other_instalment
    q = "网站建设合同签完以后，第一笔款要付多少？"
    assert other_instalment(q, "（3）网站验收合格之日起7日内，甲方支付建设费用的35%，即65,100元；") == ("第一笔", "（3）")
    assert other_instalment(q, "（1）合同签订之日起5日内，甲方支付建设费用的30%，即55,800元；") is None
    assert other_instalment("首期款多少？", "第二期款项：验收后支付40%") == ("首期", "第二期")
    assert other_instalment("首期款多少？", "第一期款项：签约后支付30%") is None
    assert other_instalment("押金多少？", "（3）押金2000元") is None  # no instalment asked
    assert other_instalment("第二笔款多少？", "5.2 甲方确认设计方案后5个工作日内，支付合同总价的40%") is None  # a clause number
