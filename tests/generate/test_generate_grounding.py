"""check_grounding(): numbers, codes and dates must come from the context; 未提及 is never grounded."""
from __future__ import annotations

import pytest

from pipeline.generate import check_grounding
from pipeline.generate.grounding import dates, numbers

CONTEXT = ("劳动合同期限三个月以上不满一年的，试用期不得超过一个月；"
           "本办法依据国发〔2023〕5号文件和GB/T 2260-2007制定，自二〇二三年五月一日起施行，补贴一万五千元。")
QUESTION = "试用期最长多久？"

# answer, grounded, reason starts with
SPECS = [
    ("不得超过一个月", True, "numbers"),
    ("试用期最长为1个月", True, "numbers"),
    ("自2023年5月1日起施行", True, "numbers"),
    ("补贴1.5万元", True, "numbers"),
    ("依据国发〔2023〕5号", True, "numbers"),
    ("依据GB/T 2260-2007制定", True, "numbers"),
    ("不得超过两个月", False, "number 2 not in context"),
    ("不得超过45日", False, "number 45 not in context"),
    ("补贴2万元", False, "number 20000 not in context"),
    ("自2023年6月1日起施行", False, "number 6 not in context"),
    ("自2023年1月5日起施行", False, "date 2023-1-5 not in context"),
    ("依据国发〔2023〕1号", False, "code 依据国发〔2023〕1号"),  # 1 and 2023 are each in the context
    ("依据GB/T 2261-2007", False, "number 2261 not in context"),
    ("依据ISO9001认证", False, "code ISO9001 not in context"),
    ("未提及", False, "not stated"),
    ("资料中未提及相关内容", False, "not stated"),
    ("", False, "empty answer"),
    ("天气晴朗风和日丽", False, "wording not from context"),
    ("\ufffd\ufffd", False, "garbled"),
]


@pytest.mark.parametrize("answer,grounded,reason", SPECS, ids=[s[0] or "empty" for s in SPECS])
def test_grounding_spec(answer, grounded, reason):
    check = check_grounding(answer, CONTEXT, QUESTION)
    assert (check.grounded, check.reason[: len(reason)]) == (grounded, reason), check.reason


def test_document_number_as_a_whole():
    context = "依据国发〔2023〕5号文件，共1项。"
    assert not check_grounding("依据国发〔2023〕1号", context).grounded
    assert check_grounding("国发〔2023〕5号", context).grounded


@pytest.mark.parametrize("text,expected", [
    ("一个月", {1}), ("统一规定，一般情况之一", set()), ("百分之五", {5}), ("第十九条", {19}),
    ("一万五千元", {15000}), ("三至六个月", {3, 6}), ("两年", {2}), ("1,200元", {1200}), ("千万不要", set()),
])
def test_numbers(text, expected):
    assert numbers(text) == expected


def test_dates_normalise_chinese_numerals():
    assert dates("自二〇二三年五月一日起施行") == {(2023, 5, 1)}
    assert dates("2024-01-31") == {(2024, 1, 31)}


def test_overlap_threshold_is_a_setting():
    assert check_grounding("试用期最长为一个月", "试用期不得超过一个月。", min_overlap=0.3).grounded
    assert not check_grounding("试用期最长为一个月", "试用期不得超过一个月。", min_overlap=0.9).grounded
