"""Jurisdiction: a question naming a place is answered from that place's documents or from no-place ones."""
from pipeline.places import Jurisdiction

DOCS = [
    {"doc_id": "a", "title": "河南省失业保险条例", "source": "河南/河南省失业保险条例.md"},
    {"doc_id": "b", "title": "郑州市停车场建设管理条例", "source": "河南/郑州市停车场建设管理条例.md"},
    {"doc_id": "c", "title": "深圳经济特区学前教育条例", "source": "广东/深圳经济特区学前教育条例.md"},
    {"doc_id": "d", "title": "中华人民共和国劳动合同法", "source": "劳动合同法.md"},
    {"doc_id": "e", "title": "城市维护项目管理办法", "source": "政策/城市维护项目管理办法.md"},
]


def test_places_come_from_titles_and_place_folders():
    j = Jurisdiction(DOCS)
    assert j.vocab == {"河南", "郑州", "深圳"}
    assert j.of_doc == {"a": {"河南"}, "b": {"郑州", "河南"}, "c": {"深圳"}}  # 广东 names no document
    assert j.named("我在郑州市开了个停车场，河南省的规定是什么？") == ["郑州", "河南"]
    assert j.named("城市维护项目怎么立项？") == []
    # 郑州 lies in 河南 (its regulation sits in the 河南 folder): a 河南 regulation governs in 郑州 too; 深圳's does not
    assert j.within == {"河南": set(), "郑州": {"河南"}, "深圳": set()}
    assert [j.relation(d, ["郑州"]) for d in "abcde"] == ["same", "same", "other", "none", "none"]
    assert [j.relation(d, ["河南"]) for d in "abc"] == ["same", "same", "other"]
    assert j.relation("a", []) == "none"


HENAN = ("# 河南省失业保险条例\n\n## 第三章 待遇\n\n第二十条 失业人员领取失业保险金的期限，累计缴费满一年不足五年的，"
         "失业保险金领取期限最长为十二个月。\n")
CHONGQING = "# 重庆市失业保险条例\n\n## 第三章 待遇\n\n第二十一条 缴费满一年不足五年的，领取失业保险金期限最长为十个月。\n"
QUESTION = "我在重庆缴了三年失业保险，失业保险金领取期限最长是几个月？"


def test_a_question_naming_a_place_is_answered_from_that_places_regulation(kb_of):
    kb = kb_of({"河南/河南省失业保险条例.md": HENAN, "重庆/重庆市失业保险条例.md": CHONGQING})
    a = kb.ask(QUESTION)
    assert a.status == "answered" and a.value == {"kind": "duration", "number": 10, "unit": "月"}
    assert a.evidence[0].title == "重庆市失业保险条例"
    assert "地域限定：重庆" in a.reasoning


def test_another_places_regulation_does_not_answer(kb_of):
    kb = kb_of({"河南/河南省失业保险条例.md": HENAN, "重庆/重庆市物业管理条例.md": "# 重庆市物业管理条例\n\n业主大会依法成立。\n"})
    a = kb.ask(QUESTION)
    assert a.status == "not_found"
    # 河南's regulation is set aside at stage 1, so it neither answers nor competes with 重庆's documents
    assert "地域排除：河南的文件不作候选（问题问的是重庆）" in a.reasoning
    b = kb.ask("缴了三年失业保险，失业保险金领取期限最长是几个月？")  # no place named: 河南's answers
    assert b.status == "answered" and b.value == {"kind": "duration", "number": 12, "unit": "月"}
