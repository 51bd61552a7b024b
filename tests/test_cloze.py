"""The cloze strategy: a question that restates a provision with an interrogative where the answer
stands is answered by the words of the provision in that place (rules/extract_cues.yaml cloze.*)."""
from pipeline.orchestrator import AskSettings

DOC = ("# 某市物业服务管理办法\n\n## 第三章 维修\n\n"
       "第十二条 共用设施设备的专项维修，可以委托业主委员会选定的施工单位组织实施。\n\n"
       "第十三条 物业服务企业应当在接到报修后二十四小时内派员到场。\n\n"
       "第十四条 业主装修房屋，应当事先告知物业服务企业。\n")


def test_an_interrogative_in_the_providers_place_is_filled_from_the_provision(kb_of):
    a = kb_of({"物业服务管理办法.md": DOC}).ask("共用设施设备的专项维修，可以委托谁组织实施？")
    assert a.status == "answered"
    assert a.value == {"kind": "text", "text": "业主委员会选定的施工单位"}
    assert a.method == "strategy:cloze"
    assert a.evidence[0].text == "共用设施设备的专项维修，可以委托业主委员会选定的施工单位组织实施。"


def test_no_answer_when_only_one_side_of_the_interrogative_is_in_the_provision(kb_of):
    a = kb_of({"物业服务管理办法.md": DOC}).ask("业主装修房屋，应当事先向谁申请审批？")
    assert a.status == "not_found"


def test_a_question_asking_to_whom_is_not_answered_by_the_doer(kb_of):
    # 向谁汇报 asks for the recipient (审计委员会), not for the body that does the work (内部审计部门负责…)
    doc = ("# 某公司理财管理制度\n\n## 第十条 监督\n\n内部审计部门负责对理财项目的审计与监督。"
           "内部审计部门应当每季度向审计委员会汇报一次检查情况。\n")
    a = kb_of({"制度.md": doc}).ask("内部审计部门每季度要向谁汇报检查情况？")
    assert (a.status, a.method, a.value) == ("answered", "template:who.recipient", {"kind": "text", "text": "审计委员会"})


def test_an_open_question_restating_the_provision_is_answered_by_cloze(kb_of):
    # 以哪个版本为准 names no party, so the question is open; the provision says the same around its answer
    doc = ("# 某开源许可证\n\n## 第九条 语言\n\n本许可证以中英文双语表述，中英文版本具有同等法律效力。"
           "如果中英文版本存在任何冲突不一致，以中文版为准。\n")
    # the bar decides (this tests the strategy; the trained gate withdraws it: two sentences of one article)
    a = kb_of({"许可证.md": doc}, settings=AskSettings(gate_weights="")).ask("如果这个许可证的中文和英文文本不一致，以哪个为准？")
    assert (a.status, a.method, a.value) == ("answered", "strategy:cloze", {"kind": "text", "text": "中文版"})
