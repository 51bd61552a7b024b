"""Questions that ask twice (pipeline/multipart.py) and the enacting-clause lookup a second ask can lean on."""
import pytest

from pipeline.multipart import name_of, refer, split_asks

PURCHASE = """# 某某公司采购管理办法

第一条 为规范公司采购行为，制定本办法。

第二条 采购合同由法务部负责审核，财务部负责付款。
"""

LEGAL = """# 某某公司法务工作制度

第一条 为规范法务工作，制定本制度。

第二条 法务部收到待审合同后，应当在五个工作日内出具审核意见。
"""

FEES = """# 某某市物业服务收费管理办法

第一条 为了规范物业服务收费行为，保障业主和物业服务企业的合法权益，根据《中华人民共和国价格法》《物业管理条例》等法律、行政法规，结合本市实际，制定本办法。

第二条 本市行政区域内的物业服务收费，适用本办法。
"""

REGULATION = """# 物业管理条例

第一条 为了规范物业管理活动，制定本条例。

第七十条 本条例自2003年9月1日起施行。
"""


@pytest.mark.parametrize("question, parts", [
    ("合同由哪个部门审核？这个部门几天内审完？", ["合同由哪个部门审核？", "这个部门几天内审完？"]),
    # a telling sentence belongs to the ask after it
    ("我在上海买了房。税率多少？免税面积多少？", ["我在上海买了房。税率多少？", "免税面积多少？"]),
    ("试用期最长几个月？", []),  # one ask
    ("押金多少？几天退？谁来退？罚多少？", []),  # more than three: not taken apart
])
def test_a_question_is_split_at_its_asks(question, parts):
    assert split_asks(question) == parts


def test_a_later_ask_points_back_at_a_short_name_only():
    assert refer("这个部门几天内审完？", name_of({"kind": "text", "text": "法务部"})) == ("法务部几天内审完？", "这个部门")
    assert refer("那部条例哪天施行？", "《物业管理条例》") == ("《物业管理条例》哪天施行？", "那部条例")
    # a figure or a clause is not a name another ask can point at
    assert name_of({"kind": "duration", "number": 5, "unit": "日"}) is None
    assert name_of({"kind": "text", "text": "经董事会审议，由总经理决定"}) is None
    assert refer("这个部门几天内审完？", None) == ("这个部门几天内审完？", None)


def test_two_asks_answered_in_turn_across_documents(kb_of):
    kb = kb_of({"制度/某某公司采购管理办法.md": PURCHASE, "制度/某某公司法务工作制度.md": LEGAL})
    a = kb.ask("我们采购合同一般由哪个部门负责审核？这个部门收到合同后几个工作日内要给出意见？", trace=True)
    assert a.status == "answered", a.reasoning
    assert a.method == "multipart:strategy:who.acts+template:duration.within"
    assert [e.text for e in a.evidence] == ["采购合同由法务部负责审核，财务部负责付款。",
                                           "法务部收到待审合同后，应当在五个工作日内出具审核意见。"]
    assert a.value["parts"][0] == {"kind": "text", "text": "法务部"}
    assert a.value["parts"][1]["number"] == 5 and a.value["parts"][1]["unit"] == "工作日"
    assert [p["refers"] for p in a.trace["parts"]] == [None, "这个部门"]
    assert any("「这个部门」指上一问的答案" in r for r in a.reasoning)


def test_an_ask_left_unanswered_leaves_the_question_to_the_whole_path(kb_of):
    kb = kb_of({"制度/某某公司采购管理办法.md": PURCHASE, "制度/某某公司法务工作制度.md": LEGAL})
    a = kb.ask("采购合同由哪个部门负责审核？这个部门一共有几名员工？")
    assert a.status == "not_found"
    assert "分问：2 问中只答出 1 问，按整句作答" in a.reasoning


def test_a_document_s_basis_is_its_enacting_clause(kb_of):
    kb = kb_of({"政策/某某市物业服务收费管理办法.md": FEES, "行政法规/物业管理条例.md": REGULATION})
    a = kb.ask("《某某市物业服务收费管理办法》是依据哪部行政法规制定的？")
    assert (a.status, a.method, a.value) == ("answered", "strategy:basis.enacting",
                                             {"kind": "text", "text": "《物业管理条例》"})
    a = kb.ask("《某某市物业服务收费管理办法》的上位法是什么？")  # no kind named: every title of the clause
    assert a.value == {"kind": "list", "items": ["中华人民共和国价格法", "物业管理条例"]}


def test_a_second_ask_about_the_law_the_first_names(kb_of):
    kb = kb_of({"政策/某某市物业服务收费管理办法.md": FEES, "行政法规/物业管理条例.md": REGULATION})
    a = kb.ask("《某某市物业服务收费管理办法》是根据哪部条例制定的？那部条例从哪天开始施行？", trace=True)
    assert a.status == "answered", a.reasoning
    assert a.method == "multipart:strategy:basis.enacting+template:date.effective"
    assert a.trace["parts"][1]["question"] == "《物业管理条例》从哪天开始施行？"
    assert a.value["parts"][1]["iso"] == "2003-09-01"
    assert [e.title for e in a.evidence] == ["某某市物业服务收费管理办法", "物业管理条例"]


def test_one_value_does_not_answer_a_question_asking_each(kb_of):
    kb = kb_of({"制度/某某公司法务工作制度.md": LEGAL})
    a = kb.ask("法务部审核采购合同和租赁合同各要几个工作日？")  # the policy states one period, for all contracts
    assert a.status == "not_found"
    assert any("问题问各自的值或两者的不同" in r and "只取出一个值" in r for r in a.reasoning), a.reasoning
    a = kb.ask("法务部审核合同要几个工作日？")  # asked once, the same sentence answers
    assert (a.status, a.value["number"]) == ("answered", 5)


def test_the_basis_alone_does_not_answer_a_question_that_asks_more(kb_of):
    # the second ask (the law's own rule) is not in the store: the first ask's title is not an answer to both
    kb = kb_of({"政策/某某市物业服务收费管理办法.md": FEES})
    a = kb.ask("《某某市物业服务收费管理办法》是根据哪部条例制定的？那部条例规定业主大会多久召开一次？")
    assert a.status == "not_found", a.reasoning
    assert "分问：2 问中只答出 1 问，按整句作答" in a.reasoning
