"""Sentence localisation on SQuAD-style files: a handmade file here, the real dev sets when ../shared exists."""
from __future__ import annotations

import json

import pytest

from pipeline.evaluate.public import PassageStats, char_f1, contains_gold, load_squad, localise, run_public, units

from .conftest import SHARED_EVAL, needs_bm25, needs_shared

PASSAGE_1 = ("第十九条 劳动合同期限三个月以上不满一年的，试用期不得超过一个月。同一用人单位与同一劳动者只能约定一次试用期。"
             "女职工生育享受不少于九十天的产假。")
PASSAGE_2 = ("经审理查明,原告与被告于2001年登记结婚,婚后生育一女,2011年因夫妻感情破裂离婚,约定被告每月支付生活费800元,"
             "被告未按约定支付,原告现已再婚,与丈夫共同购买了位于昌州大道西段的房屋一套,上述事实有原告陈述等证据予以证实")
SQUAD = {"version": "test", "data": [
    {"paragraphs": [{"context": PASSAGE_1, "qas": [
        {"id": "a1", "question": "女职工生育可以享受多少天产假？", "answers": [{"text": "九十天", "answer_start": 0}]},
        {"id": "a2", "question": "同一劳动者可以约定几次试用期？", "answers": [{"text": "一次", "answer_start": 0}]},
        {"id": "a3", "question": "试用期是否计入工龄？", "answers": [{"text": "YES", "answer_start": -1}]},
        {"id": "a4", "question": "劳动合同何时生效？", "answers": [], "is_impossible": "true"},
    ]}]},
    {"paragraphs": [{"context": PASSAGE_2, "qas": [
        {"id": "b1", "question": "被告每月应支付多少生活费？", "answers": [{"text": "800元", "answer_start": 0}]},
        {"id": "b2", "question": "原告与丈夫在何处购买了房屋？", "answers": [{"text": "昌州大道西段", "answer_start": 0}]},
        {"id": "b3", "question": "原告何时结婚并生育？", "answers": [{"text": "2001年登记结婚,婚后生育一女", "answer_start": 0}]},
    ]}]},
]}


@pytest.fixture()
def squad_file(tmp_path):
    p = tmp_path / "mini.json"
    p.write_text(json.dumps(SQUAD, ensure_ascii=False), encoding="utf-8")
    return p


def test_load_skips_yes_no_and_unanswerable(squad_file):
    assert [it.qid for it in load_squad(squad_file)] == ["a1", "a2", "b1", "b2", "b3"]


def test_units_split_long_comma_runs():
    assert units(PASSAGE_1)[2] == "女职工生育享受不少于九十天的产假。"
    us = units(PASSAGE_2)
    assert len(us) == 9 and us[0] == "经审理查明," and us[4] == "约定被告每月支付生活费800元,"


def test_contains_gold_and_char_f1():
    assert contains_gold("享受不少于九十天的产假", ["九十天"]) and not contains_gold("产假", ["九十天"])
    assert char_f1("800元", "800元") == 1.0
    assert char_f1("生活费800元", "800元") == pytest.approx(2 * (4 / 7) * 1 / (4 / 7 + 1))
    assert char_f1("abc", "xyz") == 0.0


def test_passage_stats_answer_like_a_store():
    st = PassageStats(["试用期不得超过一个月", "约定一次试用期"])
    assert st.stats()["blocks"] == 2 and st.documents() == []
    assert st.doc_freq(["试用期", "产假"]) == {"试用期": 2, "产假": 0}


@needs_bm25
def test_localise_counts(squad_file):
    r = localise(squad_file, "mini", sample=None).to_dict()
    assert r["questions"] == 4 and r["skipped_no_single_sentence"] == 1  # b3 crosses a comma
    assert r["loopagent_top1"] == 1.0 and r["bm25_top1"] == 1.0 and r["ratio_top1"] == 1.0
    assert r["loopagent_top3"] == 1.0 and r["random_top1"] == round((1 / 3 + 1 / 3 + 1 / 9 + 1 / 9) / 4, 3)


def test_run_public_finds_nothing_in_an_empty_folder(tmp_path):
    assert run_public(tmp_path) == []


@pytest.mark.shared
@pytest.mark.slow
@needs_shared
@needs_bm25
def test_public_dev_sets_sample():
    rows = run_public(SHARED_EVAL / "public", sample=40)
    assert [r["benchmark"] for r in rows] == ["CAIL2019", "CMRC2018"]
    for r in rows:
        assert r["questions"] >= 30 and r["loopagent_top1"] > r["random_top1"]
