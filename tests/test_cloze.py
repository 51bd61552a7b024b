"""The cloze strategy: a question that restates a provision with an interrogative where the answer
stands is answered by the words of the provision in that place (rules/extract_cues.yaml cloze.*)."""
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
