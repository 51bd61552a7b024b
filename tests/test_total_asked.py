"""A total is asked only in the asking clause: 一共 in the question's situation (公司一共资助了我3万元，…要服务几年) states a
figure, and does not bar the templates from a sentence that states no total (pipeline/extract.py, cue ask.total)."""


def test_a_total_in_the_situation_is_not_asked(kb_of):
    kb = kb_of({"培训.md":
        "# 某公司员工培训与服务期管理办法\n\n第八条 公司出资的培训费用在2万元以上5万元以下的，员工服务期为2年。\n\n"
        "第九条 员工每次参加外部培训不超过5天。\n"})
    a = kb.ask("公司出资的培训费用一共3万元，员工服务期为多少年？")
    assert a.status == "answered" and a.value == {"kind": "duration", "number": 2, "unit": "年"}
    # asked in the asking clause, a total is still not answered by one occurrence's limit
    b = kb.ask("员工外部培训加起来一共能参加多少天？", trace=True)
    assert not (b.status == "answered" and b.method.startswith("template:"))
