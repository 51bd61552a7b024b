"""Kinds of language: a threshold asked 到什么程度 (strategy threshold), an upper bound on a count (count.maximum),
a day counted from the month or year (date.relative), 哪里的法院 as an agent question, an office named by its duty
(who.office_is), a named document's own term (strategy expiry.term) and shares as conditions (超过百分之七十的)."""
import pytest

from pipeline.extract import condition_match, range_conditions
from pipeline.numbers import find_quantities
from pipeline.orchestrator import AskSettings

RULES = """# 某某小区共用设施维护基金管理规定

第一条 为管理小区共用设施维护基金，制定本规定。

第二条 住户账内维护基金余额低于首次缴纳金额百分之二十的，应当在三个月内补足。

第三条 一名管理员可以同时负责相邻的多个楼栋，但数量不得超过4个。

第四条 住户应当于每月20日前缴纳上月的维护基金。

第五条 因本规定发生争议的，可以向小区所在地法院提起诉讼。
"""


def test_a_threshold_is_the_condition_with_its_figure(kb_of):
    kb = kb_of({"某某小区共用设施维护基金管理规定.md": RULES})  # conftest: written under a fresh docs folder and ingested
    a = kb.ask("某某小区的维护基金余额用到什么程度就要补足？")
    assert (a.status, a.method) == ("answered", "strategy:threshold"), a.reasoning
    assert a.value == {"kind": "text", "text": "住户账内维护基金余额低于首次缴纳金额百分之二十的"}
    assert [e.text for e in a.evidence] == ["住户账内维护基金余额低于首次缴纳金额百分之二十的，应当在三个月内补足。"]


def test_a_question_without_the_threshold_cue_is_not_answered_by_it(kb_of):
    kb = kb_of({"某某小区共用设施维护基金管理规定.md": RULES})  # conftest: written under a fresh docs folder and ingested
    a = kb.ask("某某小区的维护基金余额不足时多长时间内要补足？")
    assert a.method != "strategy:threshold"


def test_an_upper_bound_on_a_count(kb_of):
    kb = kb_of({"某某小区共用设施维护基金管理规定.md": RULES})  # conftest: written under a fresh docs folder and ingested
    a = kb.ask("某某小区一名管理员最多能负责几个楼栋？")
    assert (a.status, a.method) == ("answered", "template:count.maximum"), a.reasoning
    assert a.value["number"] == 4


def test_a_day_of_the_month_is_a_date(kb_of):
    kb = kb_of({"某某小区共用设施维护基金管理规定.md": RULES})  # conftest: written under a fresh docs folder and ingested
    a = kb.ask("某某小区的住户什么时候之前要缴纳维护基金？")
    assert (a.status, a.method) == ("answered", "template:date.relative"), a.reasoning
    assert a.value == {"kind": "text", "text": "每月20日前"}


def test_where_to_sue_is_an_agent_question(kb_of):
    kb = kb_of({"某某小区共用设施维护基金管理规定.md": RULES})  # conftest: written under a fresh docs folder and ingested
    a = kb.ask("某某小区维护基金的争议应该去哪里的法院起诉？")
    assert a.status == "answered", a.reasoning
    assert "小区所在地法院" in a.answer


NOTICE = """# 某某市共享单车停放管理办法

第一条 为规范共享单车停放，制定本办法。

第二条 运营企业应当在每日22时前完成车辆调度。

第三条 本办法自2023年3月1日起施行，有效期至2028年2月29日。
"""


def test_until_when_a_named_document_applies(kb_of):
    kb = kb_of({"某某市共享单车停放管理办法.md": NOTICE, "某某小区共用设施维护基金管理规定.md": RULES})
    a = kb.ask("某某市共享单车停放管理办法用到哪天为止？")
    assert (a.status, a.method) == ("answered", "strategy:expiry.term"), a.reasoning
    assert a.value["iso"] == "2028-02-29"
    assert [e.text for e in a.evidence] == ["本办法自2023年3月1日起施行，有效期至2028年2月29日。"]


def test_a_named_document_without_a_term_clause_gets_no_term(kb_of):
    kb = kb_of({"某某市共享单车停放管理办法.md": NOTICE, "某某小区共用设施维护基金管理规定.md": RULES})
    a = kb.ask("某某小区共用设施维护基金管理规定的有效期到哪天？")
    assert a.method != "strategy:expiry.term"
    assert a.status == "not_found", a.answer


def test_shares_are_conditions_in_either_spelling():
    assert range_conditions("为资产负债率超过百分之七十的对象提供担保") == [("percent", 70.00000000000001, float("inf"), False, (6, 13))]
    assert range_conditions("出资比例在百分之五十以上的")[0][:3] == ("percent", 50.0, float("inf"))
    assert range_conditions("持股比例低于5%的股东")[0][:3] == ("percent", float("-inf"), 5.0)
    asked = find_quantities("负债率75%的合作方")
    assert condition_match(asked, "为资产负债率超过百分之七十的对象提供担保") == 1.0
    assert condition_match(find_quantities("负债率60%的合作方"), "资产负债率超过70%的") == -1.0


def test_an_office_named_by_its_duty(kb_of):
    text = "# 某某协会会员管理办法\n\n第一条 受理入会申请的机构为协会秘书处。\n\n第二条 会员应当按时缴纳会费。\n"
    kb = kb_of({"某某协会会员管理办法.md": text})
    a = kb.ask("想加入某某协会，入会申请交给哪个机构？")
    assert (a.status, a.method) == ("answered", "template:who.office_is"), a.reasoning
    assert a.value["text"] == "协会秘书处"


NIGHT = """# 某某市夜间作业安全规定

第一条 为保障夜间作业安全，制定本规定。

第二条 用人单位安排未满十八周岁的人员从事夜间作业的，由劳动行政部门责令改正，处二千元罚款。

第三条 夜间作业的人员与用人单位约定的合同视为劳动合同。
"""


def test_the_bound_of_a_condition_answers_a_question_that_asks_it(kb_of):
    kb = kb_of({"某某市夜间作业安全规定.md": NIGHT})
    a = kb.ask("在某某市，安排人员上夜间作业，对方不满多少岁用人单位就要被罚款？")
    assert (a.status, a.method) == ("answered", "template:number.measure"), a.reasoning
    assert (a.value["number"], a.value["unit"]) == (18, "周岁")


def test_deemed_is_a_yes(kb_of):
    kb = kb_of({"某某市夜间作业安全规定.md": NIGHT})
    a = kb.ask("某某市夜间作业人员和单位约定的合同算不算劳动合同？")
    assert (a.status, a.method, a.value) == ("answered", "strategy:yesno.modal", {"kind": "boolean", "value": True})


AWARDS = """# 某某学院奖学金办法

第一条 为奖励优秀学生，制定本办法。

第二条 一等奖学金每人1500元。

第三条 一等奖学金的获奖名额为学生人数的5%。
"""


def test_two_asks_of_two_kinds_joined_in_one_clause_are_not_answered_with_one_figure(kb_of):
    from pipeline.analyze import joined_asks
    assert joined_asks("一等奖学金每人发多少钱、获奖名额占多大比例？") == ["一等奖学金每人发多少钱", "获奖名额占多大比例"]
    assert joined_asks("电梯、消防设施坏了由谁修？") == []
    kb = kb_of({"某某学院奖学金办法.md": AWARDS})
    a = kb.ask("某某学院一等奖学金每人发多少钱、获奖名额占多大比例？")
    # the percent alone would leave 多少钱 unanswered: refused whole, then answered one ask at a time
    assert a.reasoning[1].startswith("分问：整句作答未得答案（拒答：问题并列问了两项，template:number.percent 只取出一个值"), \
        a.reasoning
    assert (a.status, a.method.split(":")[0]) == ("answered", "multipart"), a.reasoning
    assert [v["number"] for v in a.value["parts"]] == [1500, 5], a.value
    b = kb.ask("某某学院一等奖学金的获奖名额占多大比例？")  # one ask: the same provision answers it
    assert (b.status, b.method, b.value["number"]) == ("answered", "template:number.percent", 5)


def test_two_asks_of_two_kinds_are_answered_by_a_sentence_that_states_both(kb_of):
    # 每人补助多少钱，获奖人数占几成 (two clauses, two kinds): a provision stating both figures answers both
    text = "# 某某学院助学金办法\n\n第二条 二等助学金每人800元，名额为学生人数的8%。\n"
    a = kb_of({"某某学院助学金办法.md": text}).ask("某某学院二等助学金每人补助多少钱，获奖人数占几成？")
    assert a.status == "answered", a.reasoning
    assert "800元" in a.answer and "8%" in a.answer


def test_two_asks_of_one_kind_may_be_answered_by_one_sentence(kb_of):
    text = "# 某某门店租赁合同\n\n第一条 房屋漏水的，出租方应当在24小时内回应、72小时内修复。\n"
    kb = kb_of({"某某门店租赁合同.md": text})
    a = kb.ask("某某门店租赁合同里，房屋漏水时出租方多久要回应、多久要修好？")
    assert a.status == "answered", a.reasoning
    assert "24小时" in a.answer and "72小时" in a.answer


def test_each_kind_asked_needs_a_figure_of_its_own():
    from pipeline.orchestrator import _holds_units
    money_and_share = [["元", "倍", "%"], ["%", "‰", "‱"]]
    assert _holds_units("二等奖每人750元，名额占人数的10%", money_and_share) is True
    assert _holds_units("二等奖名额占人数的10%", money_and_share) is False  # one 10% cannot answer both
    assert _holds_units("二等奖每人750元", money_and_share) is False


SDK = ("# 某某推送SDK开发手册\n\n## 5. 返回码\n\n接口的返回码用枚举PushCode定义，如下：\n\n"
       "PushCode_Success = 0, //调用成功\n\nPushCode_TooOften = 21, //请求太频繁\n\n"
       "PushCode_TokenExpired = 30606, //请求令牌验证超时\n\nPushCode_AuthFailed = 30603, //鉴权没有通过\n\n"
       "## 6. 状态\n\n读取链路状态的函数返回以下状态：0x09-链路断开0x2D-链路建立且协商完成。\n")


def test_a_code_asked_by_what_it_means_is_read_from_the_list_of_codes(kb_of):
    # 令牌过期了的返回码是多少: no code in the question; the list entry whose meaning shares the question's
    # words (令牌, 验证…) gives the code, whichever sentence of the list stage 2 anchored on
    kb = kb_of({"手册/某某推送SDK开发手册.md": SDK})
    a = kb.ask("用某某推送SDK时令牌验证过期了，接口给的返回码是多少？", trace=True)
    found = [a.to_dict()] if a.method == "strategy:code.of_meaning" else \
        [x for x in a.to_dict()["stages"]["extract"].get("rejected", []) if x["method"] == "strategy:code.of_meaning"]
    assert found, a.reasoning
    assert found[0]["answer"] == "PushCode_TokenExpired = 30606, //请求令牌验证超时"


LIBRARY = ("# 某市图书馆借阅规则\n\n## 第三条 饮水\n\n读者每次在饮水点取水一般为三百毫升，最多不超过六百毫升。\n\n"
           "## 第四条 用语\n\n本规则所称的读者，是指持有效借阅证的人员。\n\n（一）电子读物，即数字资源，是指以数字形式发行的图书和期刊。\n")


def test_an_asked_bound_picks_the_figure_stated_as_that_bound(kb_of):
    # 最多能取多少毫升: of 一般为三百毫升 and 最多不超过六百毫升, the maximum
    a = kb_of({"规则.md": LIBRARY}).ask("在市图书馆饮水点一次最多能取多少毫升？")
    assert (a.status, a.value["number"]) == ("answered", 600), a.reasoning


def test_a_definition_sentence_must_define_the_asked_term(kb_of):
    # 本规则所称的读者，是指… defines another term than 电子读物
    a = kb_of({"规则.md": LIBRARY}).ask("借阅规则里说的电子读物具体指什么？")
    if a.status == "answered":
        assert a.evidence[0].text.startswith("（一）电子读物"), a.reasoning
    assert "读者，是指" not in (a.answer or "")


def test_two_comma_joined_asks_of_different_kinds_are_both_asked(kb_of):
    from pipeline import KnowledgeBase  # noqa: F401
    from pipeline.analyze import joined_asks
    assert joined_asks("押金交多少钱，保证金占合同额多大比例？") == ["押金交多少钱", "保证金占合同额多大比例"]
    assert joined_asks("租客搬走时押金被扣，最迟要在几天以内提出异议？") == []


def test_a_code_named_before_its_noun_is_read_from_the_list_after_the_lead_in(kb_of):
    # 30603这个返回码 (the code before its noun), asked what went wrong: the entry is read from the list that follows
    # the lead-in stage 2 anchors on, and a named code's own entry is the answer's scope (no coverage bar)
    kb = kb_of({"手册/某某推送SDK开发手册.md": SDK})
    a = kb.ask("我们用某某推送SDK，接口一直给30603这个返回码，这表示什么错误？")
    assert (a.status, a.method) == ("answered", "strategy:code.meaning"), a.reasoning
    assert a.value == {"kind": "text", "text": "鉴权没有通过", "code": "30603"}
    assert a.evidence[0].text == "PushCode_AuthFailed = 30603, //鉴权没有通过"
    assert any("问题点名的代码「30603」见于证据中它的条目" in r for r in a.reasoning), a.reasoning


def test_a_named_code_the_document_does_not_list_is_not_answered(kb_of):
    kb = kb_of({"手册/某某推送SDK开发手册.md": SDK})
    a = kb.ask("某某推送SDK的接口给了error code是30777，代表什么问题？")
    assert a.status == "not_found", a.reasoning


LEAVE = "# 某某公司考勤制度\n\n## 第五条 请假\n\n{body}\n"


def test_two_figure_asks_joined_want_a_figure_each(kb_of):
    # 病假最多多少天、事假最多多少天: a provision with one of the two figures answers one ask only
    one = "病假：依照国家的规定办理。\n\n事假：因个人事务请假的，一年合计不超过10天。"
    a = kb_of({"某某公司考勤制度.md": LEAVE.format(body=one)}).ask(
        "按某某公司考勤制度，病假每年最多多少天、事假每年最多多少天？")
    assert a.status == "not_found"
    assert any("问题并列问了2个数值" in r for r in a.reasoning), a.reasoning
    # both figures, in one sentence or in the context window of two, answer both asks
    apart = "病假：因病治疗请假的，一年合计不超过15天。\n\n事假：因个人事务请假的，一年合计不超过10天。"
    a = kb_of({"某某公司考勤制度.md": LEAVE.format(body=apart)}).ask(
        "按某某公司考勤制度，病假每年最多多少天、事假每年最多多少天？")
    assert (a.status, a.answer) == ("answered", apart.replace("\n\n", "")), a.reasoning


def test_the_figures_counted_for_joined_asks_leave_out_a_period_said_with_one():
    from pipeline.orchestrator import _figures
    assert _figures("取水口距离岸线不少于一千米，水深不少于七米。") == {"一千米", "七米"}
    assert _figures("事假一年合计不超过10天。") == {"10天"}  # 一年 says over what 10天 counts


DECORATION = ("# 某某装修工程合同\n\n## 第七条 违约责任\n\n"
              "甲方拖欠工程款的，每拖欠一日，应按所欠款额的千分之一向乙方赔付。\n")


def test_a_provision_about_the_other_party_does_not_answer(kb_of):
    # 乙方延误工期的… is not answered by 甲方拖欠工程款的，: the condition is about the other side of the contract
    kb = kb_of({"某某装修工程合同.md": DECORATION})
    a = kb.ask("按某某装修工程合同，乙方若延误工期，每延误一日按什么比例赔付？")
    assert a.status == "not_found"
    assert any("条文条件说的是甲方，问题问的是乙方" in r for r in a.reasoning), a.reasoning
    b = kb.ask("按某某装修工程合同，甲方若拖欠工程款，每拖欠一日按什么比例赔付？")
    assert not any("条文条件说的是" in r for r in b.reasoning), b.reasoning


def test_the_parties_checked_are_the_ones_in_the_situation_clause():
    from pipeline.orchestrator import _other_party
    ev = "甲方拖欠工程款的，每拖欠一日，应按所欠款额的千分之一向乙方赔付。"
    assert _other_party("乙方若延误工期，赔付比例是多少？", ev) == ("乙方", "甲方")
    assert _other_party("乙方每延误一日赔付多少？", ev) is None  # no situation clause
    assert _other_party("甲方拖欠工程款、乙方延误工期，赔付比例各是多少？", ev) is None  # both sides


FUND = ("# 某某公司专项资金管理办法\n\n## 第六条 审批\n\n专项资金的使用计划由财务部拟订，报总经理审批。\n\n"
        "## 第七条 备案\n\n经审批的使用计划，由财务部报董事会备案。\n")


def test_each_act_asked_with_who_must_be_answered(kb_of):
    # 由谁审批、向谁备案: a sentence that names who approves says nothing of the filing
    kb = kb_of({"某某公司专项资金管理办法.md": FUND})
    q = kb.orchestrator.analyzer.run("某某公司的专项资金使用计划由谁审批、向谁备案？")
    assert q.constraints["who_acts"] == ["审批", "备案"]
    q = kb.orchestrator.analyzer.run("专项资金的使用计划由谁拟订、经谁审核，最后由谁审批？")
    assert q.constraints["who_acts"] == ["拟订", "审核", "审批"]
    assert kb.orchestrator.analyzer.run("专项资金由谁审批？").constraints.get("who_acts") is None  # one act


def test_an_answer_that_leaves_an_act_asked_with_who_unsaid_is_refused(kb_of):
    # 由谁拟订、报谁审批 answered by the drafting clause alone (…由财务部拟订) would leave 审批 unsaid
    doc = "# 某某公司专项资金管理办法\n\n## 第六条 审批\n\n专项资金的使用计划由财务部拟订。\n"
    a = kb_of({"某某公司专项资金管理办法.md": doc}).ask("某某公司专项资金的使用计划由谁拟订、报谁审批？")
    assert a.status == "not_found"
    assert "拒答：问题问了2个「谁」，strategy:cloze 的答案没有说到「审批」" in a.reasoning, a.reasoning


REVISION = ("# 某某公司章程修订对照表\n\n"
            "| 序号 | 修订前 | 修订后 |\n|---|---|---|\n"
            "| 1 | 第九条 年度股东会应当于会议召开二十日前以书面方式通知全体股东。 | "
            "第九条 年度股东会应当于会议召开三十日前以书面方式通知全体股东。 |\n"
            "| 2 | 第十条 临时股东会应当于会议召开十日前通知全体股东。 | 第十条 临时股东会应当于会议召开十五日前通知全体股东。 |\n")


def test_a_revision_tables_old_column_answers_only_a_question_about_the_old_text(kb_of):
    # 修订前 | 修订后: the text before the change is no longer in force; its figure answers only 修改前…
    kb = kb_of({"某某公司章程修订对照表.md": REVISION})
    a = kb.ask("某某公司开年度股东会，要提前多少天书面通知股东？")
    assert a.status == "answered" and a.value == {"kind": "duration", "number": 30, "unit": "日"}, (a.answer, a.reasoning)
    b = kb.ask("某某公司章程修改前，年度股东会要提前多少天书面通知股东？")
    assert b.value == {"kind": "duration", "number": 20, "unit": "日"}, (b.answer, b.reasoning)


def test_the_column_of_a_figure_is_the_last_label_before_it():
    from pipeline.orchestrator import _old_cell
    from pipeline.types import Sentence
    row = "序号：3；修订前：负债率超过60%的担保须经股东会审议；修订后：负债率超过70%的担保须经股东会审议。"
    whole = Sentence(row, 0, len(row))
    assert _old_cell("负债率超过多少的担保要上股东会？", row, whole, {"kind": "number", "number": 60, "unit": "%"})
    assert not _old_cell("负债率超过多少的担保要上股东会？", row, whole, {"kind": "number", "number": 70, "unit": "%"})
    assert not _old_cell("修订前负债率超过多少的担保要上股东会？", row, whole, {"kind": "number", "number": 60, "unit": "%"})
    plain = "负债率超过60%的担保须经股东会审议。原文：见附件。"  # no column after the change: no revision table
    assert not _old_cell("负债率超过多少？", plain, Sentence(plain, 0, len(plain)), {"kind": "number", "number": 60, "unit": "%"})


def test_a_noun_that_only_names_the_kind_of_value_is_left_out_of_the_coverage_bar(kb_of):
    from pipeline.orchestrator import _gate_query
    kb = kb_of({"某某办法.md": "# 某某办法\n\n第三十条 本办法自2020年1月1日起施行。\n"})
    q = kb.orchestrator.analyzer.run("某某办法的施行日期是哪天？")
    assert q.constraints["asked_kind_noun"] == ["日期"]
    assert "日期" in q.weights and "日期" not in _gate_query(q).weights


EVENT_START = ("# 某某设备买卖合同\n\n## 第五条 付款与发票\n\n5.1 甲方应当自收到货款之日起3日内开具发票。\n\n"
               "## 第六条 质量保证\n\n6.1 质保期为12个月，自设备验收合格之日起计算。\n")


def test_a_start_that_is_an_event_answers_from_when(kb_of):
    kb = kb_of({"某某设备买卖合同.md": EVENT_START})
    a = kb.ask("某某设备买卖合同的质保期从哪天起算？")
    assert a.status == "answered" and a.value == {"kind": "text", "text": "设备验收合格之日"}, a.to_dict()
    # a period counted from an event is a duration's answer, not the event
    b = kb.ask("某某设备买卖合同里，甲方收到货款后几天内开发票？")
    assert (b.value or {}).get("number") == 3 and (b.value or {}).get("unit") == "日", b.to_dict()


@pytest.mark.parametrize("name,text,question,value", [
    # 几天内…第一次: a time limit for the first filing, not 多久…一次 (how often), which only a period answers
    ("某某公司利益冲突申报管理办法", "## 第五条 申报时限\n\n（一）入职申报：新入职员工应在入职之日起15日内完成首次申报；\n\n"
     "（二）年度申报：每年1月31日前完成。", "新入职员工应在入职之日起几天内完成第一次申报？",
     {"kind": "duration", "number": 15, "unit": "日"}),
    # 怎么计费: how a price is set is answered with the rate
    ("某某软件开发合同", "## 第八条 需求变更\n\n8.1 项目开发期间累计免费变更工作量以30人日为限。\n\n"
     "8.2 超过30人日的，超出部分按每人日2800元计算费用。", "某某软件开发合同里，超过30人日的超出部分怎么计费？",
     {"kind": "money", "number": 2800, "unit": "元"}),
    # a noun after 按 is the basis (建筑面积), not the asked kind (money)
    ("某某小区物业服务合同", "## 第六条 物业服务费用\n\n6.1 管理费按建筑面积计收，每平方米每月2.5元。\n\n"
     "6.2 小区总建筑面积为86000平方米。", "某某小区物业服务合同里，管理费按建筑面积怎么算？",
     {"kind": "money", "number": 2.5, "unit": "元"}),
])
def test_the_asked_kind_read_from_everyday_wording(kb_of, name, text, question, value):
    kb = kb_of({f"{name}.md": f"# {name}\n\n{text}\n"})
    a = kb.ask(question)
    assert a.status == "answered" and a.value == value, a.to_dict()


def test_a_wait_before_doing_again_is_not_how_often(kb_of):
    # 隔多久才能再开: a wait (间隔3分钟以上); only 每隔多久 / 多久…一次 ask how often
    kb = kb_of({"某某空调使用说明书.md": "# 某某空调使用说明书\n\n## 注意事项\n\n"
                "关机后须间隔3分钟以上方可重新开机，以保护压缩机。\n\n空气滤网应每2周清洗一次。\n"})
    a = kb.ask("某某空调关机后要隔多久才能重新开机？")
    assert a.status == "answered" and (a.value or {}).get("number") == 3, a.to_dict()
    b = kb.ask("某某空调的空气滤网每隔多久清洗？")
    assert b.status == "answered" and (b.value or {}).get("number") == 2 and (b.value or {}).get("unit") == "周", \
        b.to_dict()


# --- money said as people speak it (dictionaries/units.yaml spoken_money) ----------------------------------

@pytest.mark.parametrize("said,written", [
    ("我被罚了两千块，能复议吗", "我被罚了两千元，能复议吗"),
    ("预算8万块，还得谁批", "预算8万元，还得谁批"),
    ("收了个50块钱的红包", "收了个50元钱的红包"),
    ("一块表能绑几个人，两块电池能用多久，是哪四块", "一块表能绑几个人，两块电池能用多久，是哪四块"),  # pieces
    ("CH32V208块的引脚", "CH32V208块的引脚"),  # the digits of a model name
])
def test_spoken_money_is_read_as_written_money(said, written):
    from pipeline.numbers import spoken_money
    assert spoken_money(said) == written
    assert len(spoken_money(said)) == len(said)  # offsets into the question hold


def test_a_spoken_amount_is_a_condition_in_money():
    from pipeline.numbers import spoken_money
    q = "办事交的停车费超过50块的还能报销吗"
    assert range_conditions(q) == []
    assert [(r[0], round(r[1]), r[2]) for r in range_conditions(spoken_money(q))] == [("yuan", 50, float("inf"))]
    assert [(x["number"], x["unit"]) for x in find_quantities(spoken_money("罚了两千块"))] == [(2000, "元")]


# --- signed figures, degrees said for ℃ and calendar dates as conditions (dictionaries/units.yaml) -------------

@pytest.mark.parametrize("text,figures", [
    ("工作温度-40°C至+85°C", [(-40, "℃"), (85, "℃")]),
    ("零下30℃时电池容量下降", [(-30, "℃")]),
    ("TA=-40°C", [(-40, "℃")]),
    ("储存温度 – 20 ℃", [(-20, "℃")]),
    ("20℃-30℃", [(20, "℃"), (30, "℃")]),  # a span's mark, not a sign
    ("电压-5V", [(5, "V")]),  # only the dimensions listed under `signed` take a sign
])
def test_a_sign_makes_a_temperature_negative(text, figures):
    assert [(x["number"], x["unit"]) for x in find_quantities(text)] == figures


@pytest.mark.parametrize("said,written", [
    ("环境温度升到85度时还能满载吗", "环境温度升到85℃时还能满载吗"),
    ("零下30度能用吗", "零下30℃能用吗"),
    ("烤箱预热到200度要多久", "烤箱预热到200℃要多久"),
    ("温度高时1度电能用多久", "温度高时1度电能用多久"),  # a kilowatt-hour
    ("测温时10度视角的型号", "测温时10度视角的型号"),  # an angle
    ("亮度调到80度", "亮度调到80度"),  # no word of heat or cold
])
def test_degrees_said_for_celsius_are_read_as_celsius(said, written):
    from pipeline.numbers import spoken
    assert spoken(said) == written
    assert len(spoken(said)) == len(said)


def test_signed_bounds_make_a_temperature_range():
    assert range_conditions("工作温度-40°C至+85°C") == [("celsius", -40.0, 85.0, True, (5, 15))]
    assert range_conditions("-20~60℃") == [("celsius", -20.0, 60.0, True, (1, 7))]
    assert [r[:3] for r in range_conditions("零下10℃以下")] == [("celsius", -float("inf"), -10.0)]
    from pipeline.numbers import spoken
    cold = find_quantities(spoken("零下30度能用吗"))
    assert condition_match(cold, "工作温度-40°C至+85°C") == 1.0
    assert condition_match(cold, "工作温度-20°C至+85°C") == -1.0


def test_calendar_dates_bound_a_condition():
    from pipeline.numbers import day_number, find_dates
    d = lambda y, m, dd: float(day_number(y, m, dd))
    assert [r[:3] for r in range_conditions("2027年12月1日后开具发票的，可在2028年1月31日前提出申请")] == [
        ("date", d(2027, 12, 1), float("inf")), ("date", -float("inf"), d(2028, 1, 31))]
    assert [r[:3] for r in range_conditions("2026年1月1日至6月30日期间购买的")] == [("date", d(2026, 1, 1), d(2026, 6, 30))]
    assert range_conditions("于2020年1月1日废止") == []
    asked = find_dates("发票是2027年的12月5号开的")
    assert [(x["iso"], x["text"]) for x in asked] == [("2027-12-05", "2027年的12月5号")]
    assert condition_match(asked, "2027年12月1日后开具发票的，可在2028年1月31日前提出申请") == 1.0
    assert condition_match(asked, "2026年1月1日至6月30日期间购买的") == -1.0
    assert condition_match(asked, "补贴申请应在发票开具之日起6个月内提出") == 0.0


def test_a_questions_date_is_one_day_not_three_figures(kb_of):
    kb = kb_of({"a.md": "# 说明\n\n第一条 本说明自2026年1月1日起施行。\n"})
    q = kb.orchestrator.analyzer.run("我的发票是2027年的12月5号开的，什么时候前要申请？")
    from pipeline.numbers import day_number
    assert [(x["number"], x["unit"]) for x in q.constraints["quantities"]] == [(day_number(2027, 12, 5), "日期")]


SENSOR = """# XX-100温度传感器规格书

## 1 概述

XX-100是一款工业级数字温度传感器，采用SOP-8封装。

## 2 工作条件

工作温度范围为-40°C至+85°C，储存温度范围为-55°C至+125°C。

## 3 降额

环境温度超过+70°C时，输出电流应降低至额定值的50%。
"""


def test_a_signed_temperature_range_is_answered_whole(kb_of):
    kb = kb_of({"XX-100温度传感器规格书.md": SENSOR})
    a = kb.ask("XX-100的工作温度范围是多少？")
    assert (a.status, a.method) == ("answered", "template:number.range"), a.reasoning
    assert a.value == {"kind": "range", "min": -40, "max": 85, "unit": "℃"}
    assert [e.text for e in a.evidence] == ["工作温度范围为-40°C至+85°C，储存温度范围为-55°C至+125°C。"]


def test_degrees_in_a_question_meet_a_condition_in_celsius(kb_of):
    kb = kb_of({"XX-100温度传感器规格书.md": SENSOR})
    a = kb.ask("XX-100所在机箱里温度升到75度时，输出电流要降到多少？")
    assert (a.status, a.value) == ("answered", {"kind": "number", "number": 50, "unit": "%"}), a.reasoning
    assert [e.text for e in a.evidence] == ["环境温度超过+70°C时，输出电流应降低至额定值的50%。"]


# --- a bound in one money or length unit compared with the asker's figure in another -------------------------

@pytest.mark.parametrize("asked,sentence,verdict", [
    ("20万元", "每人保险金额不低于 20 万元，保险期间覆盖整个培训期限。", True),  # spaces around the figure
    ("15万元", "每人保险金额不低于200000元。", False),
    ("1.2米", "埋设深度不得超过1000毫米。", False),
    ("80厘米", "埋设深度不得超过1米。", True),
    # the 不小于 / 不大于 family words a bound as 不少于 / 不超过 do
    ("1米", "开挖前先人工探坑，坑深不小于1.2米。", False),
    ("2米", "开挖前先人工探坑，坑深不小于1.2米。", True),
    ("6V", "供电电压不应大于5.5V。", False),
    ("70℃", "外壳表面温度不得高于60℃。", False),
    ("8小时", "单次连续作业时间不宜长于10小时。", True),
])
def test_a_limit_is_compared_across_units_of_one_dimension(asked, sentence, verdict):
    from pipeline.extract import _limit_check
    got = _limit_check(find_quantities(asked), sentence)
    assert got is not None and got[0] is verdict, got


def test_how_people_say_not_yet_a_length_of_time_is_a_condition():
    assert [r[:3] for r in range_conditions("领用还不到一年的工作服")] == [("days", -float("inf"), 365.0)]
    assert [r[:3] for r in range_conditions("入职没满3个月")] == [("days", -float("inf"), 90.0)]


@pytest.mark.parametrize("run,text,whole", [
    ("发票", "无需提供发票", True),
    ("代理", "退还该件发明专利申请代理费的30%", False),  # a part of 代理费, not the asker's 代理 (of 代理所)
    ("补偿", "无需额外的补偿元件", True),
])
def test_a_negated_matter_is_matched_by_whole_words(run, text, whole):
    from pipeline.extract import _whole_words
    assert _whole_words(run, text) is whole


# --- the clause that names the asker's situation decides a yes/no (special over general) ------------------------

@pytest.mark.parametrize("question,yes", [
    ("我还在试用期，加班以后能申请调休吗？", False),  # the asker's 试用期 is named only by the special clause
    ("我已经转正了，加班以后能申请调休吗？", True),   # no clause names 转正: the asked act's clause decides
])
def test_the_clause_naming_the_askers_situation_decides(question, yes):
    from pipeline.extract import _asked_clause
    sent = "员工可以在加班后3个月内申请调休，但试用期员工不得申请调休。"
    clause = _asked_clause(_analyzed(question), sent, "调休")
    assert clause.startswith("试用期") is (not yes), clause


@pytest.mark.parametrize("question,sent,act,clause", [
    # 不扣减 denies an act the question does not name (工资): the statement of the asked act decides (no modal: no answer
    # from this clause alone, where the whole sentence read 否)
    ("参加单位组织的体检那天算出勤吗？", "员工参加单位统一安排的体检，按正常出勤计算，不扣减工资。", "出勤", "按正常出勤计算"),
    ("参加单位组织的体检那天算出勤吗？", "员工参加单位统一安排的体检，按正常出勤计算，不扣减工资。", "",
     "员工参加单位统一安排的体检"),  # no act known: the statement sharing most words
    # the negation is of the asked matter itself (年休假): its clause decides, as before
    ("试用期内能休年休假吗？", "员工在试用期内，不享受年休假。", "", "不享受年休假。"),
    ("试用期内能休年休假吗？", "员工在试用期内不休年休假。", "", "员工在试用期内不休年休假。"),
])
def test_a_negation_of_another_act_does_not_answer(question, sent, act, clause):
    from pipeline.extract import _asked_clause
    assert _asked_clause(_analyzed(question), sent, act) == clause


def _analyzed(question):
    from pipeline import KnowledgeBase
    import tempfile
    kb = KnowledgeBase(tempfile.mkdtemp() + "/k.sqlite", audit_log=None)
    return kb.orchestrator.analyzer.run(question)


RENTAL = """# 某某公司车辆租赁合同

第一条 乙方向甲方出租客车，租期一年。

第二条 甲方每月用车超过25日的，超出部分按当月月租金的4%另行计费。

第三条 每辆客车的月租金为人民币12600元，于每月5日前支付。
"""


def test_a_share_of_the_asked_amount_is_not_the_amount(kb_of):
    """租金多少 asks the rent: 月租金的4% is a share taken of it (a surcharge), not what is asked."""
    from pipeline.extract import _share_of_focus
    from pipeline.types import Query

    q = Query(text="一辆客车一个月的租金多少？", constraints={"focus": "租金", "value_kind": "money"})
    sent = "甲方每月用车超过25日的，超出部分按当月月租金的4%另行计费。"
    i = sent.index("4%")
    assert _share_of_focus(q, sent, (i, i + 2), {"kind": "number", "number": 4, "unit": "%"})
    assert not _share_of_focus(q, "违约金为合同总价的4%。", (9, 11), {"kind": "number", "number": 4, "unit": "%"})
    share = Query(text="超出部分按租金的多少计费？", constraints={"focus": "租金", "value_kind": "percent"})
    assert not _share_of_focus(share, sent, (i, i + 2), {"kind": "number", "number": 4, "unit": "%"})
    kb = kb_of({"某某公司车辆租赁合同.md": RENTAL})
    a = kb.ask("某某公司每辆客车的租金多少？")
    assert (a.status, a.value) == ("answered", {"kind": "money", "number": 12600, "unit": "元"}), a.reasoning
    # the share prices what the asker asks about when its clause names the asker's case (超出部分)
    a = kb.ask("某某公司用车超过25日的，超出部分的租金多少？")
    assert (a.status, a.value) == ("answered", {"kind": "number", "number": 4, "unit": "%"}), a.reasoning


@pytest.mark.parametrize("question,qtype", [
    ("要这款芯片的QFN封装版本，下单时型号该怎么写？", "code"),  # a code asked with 该怎么写 (qtype.procedure) is a code
    ("这项补贴该怎么申请？", "procedure"),                    # a procedure stays one, whatever its noun
])
def test_a_code_asked_how_to_write_is_a_code(question, qtype):
    assert _analyzed(question).qtype == qtype


def test_areas_are_conditions():
    """建筑面积2万平方米以上的 is a condition on an area: 3万平方米 meets it, 1.5万平方米 does not."""
    conds = range_conditions("新建建筑面积2万平方米以上的公共建筑，应当配套建设雨水收集利用设施。")
    assert [(d, lo, hi) for d, lo, hi, *_ in conds] == [("square_metres", 20000.0, float("inf"))]
    sent = "新建建筑面积2万平方米以上的公共建筑，应当配套建设雨水收集利用设施。"
    assert condition_match(find_quantities("新建一栋3万平方米的商场"), sent) > 0
    assert condition_match(find_quantities("新建一栋1.5万平方米的商场"), sent) < 0
    [(d, lo, hi)] = [(d, lo, hi) for d, lo, hi, *_ in range_conditions("占地5亩以下的")]
    assert (d, lo, hi) == ("square_metres", float("-inf"), pytest.approx(10000 / 3))



@pytest.mark.parametrize("text,yes", [
    ("禁渔期内，允许在岸边使用单线单钩进行休闲垂钓", True),
    ("禁渔期内，不允许在岸边垂钓", False),
    ("未允许的，不得进入", False),
])
def test_allow_is_a_permission(text, yes):
    from pipeline.extract import polarity_of
    assert polarity_of(text) is yes


def test_a_row_named_in_the_askers_words_needs_the_asked_kind(kb_of):
    """A price table's row 地方志及家谱（线装） does not answer 分辨率最低多少: no kind of value is known for the asker's
    words to be matched against, so the row is not chosen by them."""
    kb = kb_of({"数字化加工合同.md": "# 某某文献数字化加工合同\n\n## 第五条 加工单价\n\n| 文献类型 | 单价 |\n| --- | --- |\n"
                                  "| 普通图书 | 0.80元/页 |\n| 地方志及家谱（线装） | 3.20元/页 |\n"})
    a = kb.ask("某某文献数字化加工中，线装的地方志和家谱扫描分辨率最低得达到多少？")
    assert a.status == "not_found", a.reasoning


# --- a figure in a clause that ends in 时 says when the provision applies ---------------------------------------

MODULE = """# 某某RS-485接口模块用户手册

## 3 接线

3.1 模块使用屏蔽双绞线连接。当总线距离超过300米时，波特率应设置为9600bps或更低。

3.2 总线两端应各接一只匹配电阻。

## 4 规格

4.1 模块的最大通信距离为1200米，单条总线可接入32个节点。
"""


def test_a_clause_ending_in_shi_is_a_condition():
    from pipeline.extract import _conditional
    sent = "当总线距离超过300米时，波特率应设置为9600bps或更低。"
    assert _conditional(sent, (sent.index("300"), sent.index("米时") + 1)) is True
    other = "4.1 模块的最大通信距离为1200米，单条总线可接入32个节点。"
    assert _conditional(other, (other.index("1200"), other.index("米，") + 1)) is False
    clock = "营业时间为上午9时至下午5时，节假日照常营业。"
    assert _conditional(clock, (clock.index("5时"), clock.index("5时") + 2)) is False


def test_the_figure_of_a_when_clause_answers_only_a_question_about_that_bound(kb_of):
    kb = kb_of({"某某RS-485接口模块用户手册.md": MODULE}, settings=AskSettings(gate_weights=""))
    a = kb.ask("总线距离超过多少米时要把波特率调低？")  # the bound itself is asked: the condition's figure answers
    assert (a.status, a.value) == ("answered", {"kind": "number", "number": 300, "unit": "米"}), a.reasoning
    b = kb.ask("这个模块的总线最远能拉多少米？")  # not the figure of the condition 超过300米时
    assert b.value != {"kind": "number", "number": 300, "unit": "米"}, b.reasoning


def test_a_noun_before_how_is_the_subject_not_the_asked_kind(kb_of):
    kb = kb_of({"某某RS-485接口模块用户手册.md": MODULE})
    q = kb.orchestrator.analyzer.run("旧模块回收了，公司是怎样处理的？")
    assert q.constraints.get("value_kind") != "agent", q.constraints
    q = kb.orchestrator.analyzer.run("负责回收旧模块的部门是哪个？")
    assert q.constraints.get("value_kind") == "agent", q.constraints


# --- a time of day asked with 几点 is answered by a clock time, not by a number of days ---------------------------

DORM = """# 某某学院学生宿舍管理规定

第一条 为加强学生宿舍管理，制定本规定。

第二条 宿舍楼每晚23:30锁闭楼门，次日早上6点开放。

第三条 访客登记时间为每日8时至21时。

第四条 退宿手续应在离校前3日内办理完毕。
"""


def test_a_time_of_day_answers_what_hour(kb_of):
    kb = kb_of({"某某学院学生宿舍管理规定.md": DORM}, settings=AskSettings(gate_weights=""))
    a = kb.ask("宿舍楼每晚几点锁闭楼门？")
    assert (a.status, a.value) == ("answered", {"kind": "number", "number": 23.5, "unit": "时", "clock": "23:30"}), a.reasoning
    b = kb.ask("宿舍楼早上几点开放？")
    assert (b.status, b.value) == ("answered", {"kind": "number", "number": 6, "unit": "时", "clock": "早上6点"}), b.reasoning
    c = kb.ask("访客几点到几点可以登记？")  # a span of hours is the clock range's
    assert (c.status, c.value) == ("answered", {"kind": "range", "min": 8, "max": 21, "unit": "时"}), c.reasoning
    q = kb.orchestrator.analyzer.run("退宿手续最晚几点前办完？")
    assert q.constraints.get("value_units") == ["时"], q.constraints  # 3日 is no answer to 几点


@pytest.mark.parametrize("text,hours", [("订餐须在当日下午3点前报送", 15), ("晚上11点半锁门", 23.5), ("每日23:30熄灯", 23.5)])
def test_clock_times_read_on_the_24_hour_clock(kb_of, text, hours):
    from pipeline.extract import _b_clock_at
    kb = kb_of({"某某学院学生宿舍管理规定.md": DORM})
    clock = next(t for t in kb.orchestrator.extractor.templates() if t.id == "time.clock")
    m = clock.rx.search(text)
    assert m and _b_clock_at(m.groupdict())["number"] == hours


# --- the bound that makes a thing count as a kind (要多大的…才算…) is the figure of the provision's condition ------

GRADES = """# 某某市商业网点分级管理办法

第五条 营业面积在5000平方米以上的为大型商场，1000平方米以上、5000平方米以下的为中型商场。

第六条 经营林下种植的基地，面积达到2万亩以上，列为市级重点基地。

第七条 大型商场应当在开业前30日内向商务部门备案。
"""


def test_the_bound_of_a_kind_is_read_from_its_condition(kb_of):
    kb = kb_of({"某某市商业网点分级管理办法.md": GRADES}, settings=AskSettings(gate_weights=""))
    a = kb.ask("商场营业面积要多大才算大型商场？")
    assert (a.status, a.value) == ("answered", {"kind": "number", "number": 5000, "unit": "平方米"}), a.reasoning
    b = kb.ask("林下种植基地面积达到多少亩才算市级重点基地？")  # 2万亩: a scale word between the number and its unit
    assert (b.status, b.value) == ("answered", {"kind": "number", "number": 20000, "unit": "亩"}), b.reasoning


def test_words_of_the_asked_time_are_not_terms(kb_of):
    kb = kb_of({"某某学院学生宿舍管理规定.md": DORM})
    run = kb.orchestrator.analyzer.run
    assert "晚到" not in run("今年的材料最晚到哪天交？").weights  # 最/晚到: the bound of the asked time
    assert "今年" not in run("今年的材料最晚到哪天交？").weights  # the asker's own year
    assert "晚上" not in run("仓库晚上几点关门？").weights  # the part of the day of the asked hour
    assert "晚上" in run("晚上施工需要审批吗？").weights  # not asked with 几点: a word of the matter
