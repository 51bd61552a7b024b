"""Definitions in numbered lists with quoted terms (（一）“X”，是指…) define X."""


def test_a_quoted_term_in_a_numbered_item_is_defined(kb_of):
    kb = kb_of({"物业规定.md": "# 某市物业服务规定\n\n## 第五十条\n\n本规定下列用语的含义：\n\n"
                              "（一）“专项维修资金”，是指专项用于住宅共用部位、共用设施设备保修期满后的维修和更新、改造的资金。\n\n"
                              "（二）“业主”，是指房屋的所有权人。\n"})
    a = kb.ask("“专项维修资金”是指什么？")
    assert a.status == "answered"
    assert a.value == {"kind": "text", "text": "专项用于住宅共用部位、共用设施设备保修期满后的维修和更新、改造的资金"}
    assert a.method == "template:definition.is"
