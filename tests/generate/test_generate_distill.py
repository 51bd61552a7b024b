"""distill(): the anchor sentence and its neighbours, within the budget, never whole blocks."""
from __future__ import annotations

import pytest

from pipeline.errors import LoopAgentError
from pipeline.generate import distill

from .conftest import make_anchor, make_block

ARTICLE = ("劳动合同期限三个月以上不满一年的，试用期不得超过一个月；"
           "劳动合同期限一年以上不满三年的，试用期不得超过二个月；"
           "三年以上固定期限和无固定期限的劳动合同，试用期不得超过六个月。")


def roles(d):
    return [p.role for p in d.pieces]


def test_anchor_with_sentence_before_and_after():
    block = make_block(ARTICLE, 1)
    d = distill(make_anchor(block, "劳动合同期限一年以上不满三年的，试用期不得超过二个月；"), [])
    assert roles(d) == ["before", "anchor", "after"]
    assert d.text == ARTICLE.replace("；", "；\n").rstrip("\n")
    assert d.anchor_block_id == "b1"


def test_first_sentence_borrows_the_previous_paragraph_of_the_same_article():
    prev = make_block("同一用人单位与同一劳动者只能约定一次试用期。", 0)
    block = make_block(ARTICLE, 1)
    d = distill(make_anchor(block, "劳动合同期限三个月以上不满一年的，试用期不得超过一个月；"), [prev, block])
    assert [(p.role, p.block_id) for p in d.pieces] == [("before", "b0"), ("anchor", "b1"), ("after", "b1")]


def test_other_sections_and_headings_are_not_borrowed():
    prev = make_block("第十八条 另一条的内容。", 0, section=("第二章", "第十八条"))
    head = make_block("第三章 劳动合同的履行", 2, btype="heading", section=("第三章",))
    block = make_block("试用期不得超过一个月。", 1)
    d = distill(make_anchor(block, "试用期不得超过一个月。"), [prev, head])
    assert roles(d) == ["anchor"]


def test_budget_is_respected_and_the_anchor_always_kept():
    block = make_block(ARTICLE, 1)
    anchor = make_anchor(block, "劳动合同期限一年以上不满三年的，试用期不得超过二个月；")
    for budget in (20, 40, 60, 80, 200):
        d = distill(anchor, [], budget=budget)
        assert len(d.text) <= budget
        assert "anchor" in roles(d)
    d = distill(anchor, [], budget=45)  # room for the anchor and a trimmed neighbour only
    assert roles(d) == ["before", "anchor"] and d.pieces[0].text.startswith("…")


def test_never_a_whole_long_block():
    sentences = [f"第{i}项规定的期限为{i}日。" for i in range(1, 11)]
    block = make_block("".join(sentences), 1)
    d = distill(make_anchor(block, sentences[5]), [], budget=500)
    assert d.text == "\n".join(sentences[4:7])


def test_table_row_comes_with_the_header():
    header = ["岗位", "试用期", "工资"]
    rows = [["文员", "一个月", "3000元"], ["技术员", "二个月", "5000元"], ["经理", "六个月", "9000元"]]
    text = "岗位：文员；试用期：一个月；工资：3000元。\n岗位：技术员；试用期：二个月；工资：5000元。\n岗位：经理；试用期：六个月；工资：9000元。"
    block = make_block(text, 1, btype="table", table_header=header, table_rows=rows)
    d = distill(make_anchor(block, "试用期：二个月；"), [])
    assert roles(d) == ["table_header", "before", "anchor", "after"]
    assert d.pieces[0].text == "岗位 | 试用期 | 工资"
    assert d.pieces[2].text == "岗位：技术员；试用期：二个月；工资：5000元。"


def test_list_item_comes_with_the_previous_item_and_the_lead_in():
    lead = make_block("用人单位有下列情形之一的，劳动者可以解除劳动合同：", 0)
    items = [make_block(t, i + 1, btype="list_item") for i, t in enumerate([
        "（一）未按照劳动合同约定提供劳动保护或者劳动条件的；",
        "（二）未及时足额支付劳动报酬的；",
        "（三）未依法为劳动者缴纳社会保险费的；"])]
    d = distill(make_anchor(items[2], items[2].text), [lead, *items])
    assert roles(d) == ["list_lead", "list_previous", "anchor"]
    assert d.pieces[0].text == lead.text and d.pieces[1].text == items[1].text
    first = distill(make_anchor(items[0], items[0].text), [lead, *items])
    assert roles(first) == ["before", "anchor", "after"]  # the lead-in is the sentence before: no duplicate
    assert first.pieces[0].block_id == "b0"


def test_budget_too_small_is_a_coded_error():
    block = make_block(ARTICLE, 1)
    with pytest.raises(LoopAgentError) as err:
        distill(make_anchor(block, "试用期不得超过一个月；"), [], budget=5)
    assert err.value.code == "E303"
