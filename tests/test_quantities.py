"""Quantities in questions and provisions (pipeline/numbers.py, dictionaries/units.yaml)."""
import pytest

from pipeline.numbers import find_quantities


def _q(text):
    return [(q["number"], q["unit"], q["text"]) for q in find_quantities(text)]


def test_a_half_after_the_unit_adds_half_of_it():
    assert _q("我交了五年半的失业保险") == [(5.5, "年", "五年半")]
    assert _q("满一年半不满三年的") == [(1.5, "年", "一年半"), (3, "年", "三年")]
    assert _q("工作了3年半") == [(3.5, "年", "3年半")]


def test_a_half_between_ge_and_the_unit():
    assert _q("已经工作两个半月") == [(2.5, "月", "两个半月")]


def test_half_words_that_are_no_quantity_stay_out():
    assert _q("上半年的报表") == []
    assert _q("试用期三个月") == [(3, "月", "三个月")]


def test_capital_numerals_of_contracts_are_quantities_and_ground():
    from pipeline.numbers import grounded
    assert _q("应于终止之日起壹拾个工作日内归还") == [(10, "工作日", "壹拾个工作日")]
    assert _q("支付违约金人民币叁万元整") == [(30000, "元", "叁万元")]
    assert grounded("10个工作日", "应于终止之日起壹拾个工作日内归还")


def test_a_contract_deadline_in_capital_numerals_is_answered(kb_of):
    kb = kb_of({"保密协议.md": "# 技术合作保密协议\n\n## 第五条 资料归还\n\n双方合作终止后，乙方应于终止之日起"
                              "壹拾个工作日内归还甲方提供的全部资料。\n"})
    a = kb.ask("合作终止后乙方要在多少个工作日内归还资料？")
    assert (a.status, a.value) == ("answered", {"kind": "duration", "number": 10, "unit": "工作日"})


def test_a_share_written_as_a_fraction_answers_how_many_and_what_proportion(kb_of):
    doc = ("# 某小区专项维修资金使用规则\n\n## 第五条 表决\n\n"
           "动用专项维修资金，应当经专有部分面积占比三分之二以上的业主同意。\n\n"
           "## 第六条 公示\n\n使用方案应当在小区显著位置公示七日。\n")
    kb = kb_of({"规则.md": doc})
    a = kb.ask("动用专项维修资金需要多大比例的业主同意？")
    assert (a.status, a.method) == ("answered", "template:number.fraction")
    assert a.value == {"kind": "number", "number": 66.6667, "unit": "%", "fraction": [2, 3]}
    b = kb.ask("动用专项维修资金需要多少业主同意？")  # a share answers "how many" too
    assert (b.status, b.value["fraction"]) == ("answered", [2, 3])


def test_digits_of_a_model_or_product_name_are_no_quantity():
    assert _q("我在ho600做全职，已经干满两年了") == [(2, "年", "两年")]
    assert _q("CH32V003的BOOT区有多大") == []
    assert _q("5V供电，工作满10年") == [(5, "V", "5V"), (10, "年", "10年")]


def test_templates_do_not_read_the_digits_of_a_model_name(kb_of):
    kb = kb_of({"手册.md": "# 评估板说明\n\n## 供电\n\nCH32V003评估板使用5V供电。\n"})
    q = kb.orchestrator.analyzer.run("评估板用多少V供电？")
    values = [m[1] for m in kb.orchestrator.extractor._matches(q, "CH32V003评估板使用5V供电。")]
    assert values and all(v["number"] == 5 for v in values)  # 32V of CH32V003 is no voltage


@pytest.mark.parametrize("text", ["按开发手册v1.2.0的要求，日志留存多久？", "SDK 1.3.0版的接口", "见第3.2.1节"])
def test_a_dotted_version_number_is_not_a_quantity(text):
    # 1.2.0 is a version: no part of it is a figure the evidence must hold (it used to give the figure 0)
    assert find_quantities(text) == []


def test_a_decimal_amount_is_still_one():
    assert [(q["number"], q["unit"]) for q in find_quantities("押金1.5万元，利率3.5%")] == [(15000, "元"), (3.5, "%")]
