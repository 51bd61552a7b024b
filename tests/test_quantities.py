"""Quantities in questions and provisions (pipeline/numbers.py, dictionaries/units.yaml)."""
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
