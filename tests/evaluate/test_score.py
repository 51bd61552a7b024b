"""The project's copy of the scorer: exact numbers on a handmade answers file, and parity with ../shared."""
from __future__ import annotations

import importlib.util

import pytest

from pipeline.evaluate import score as scorer

from .conftest import SHARED_EVAL, needs_shared, write_jsonl

EV = {"doc_id": "d", "title": "t", "source": "s.md", "block_id": "b", "section": [], "start": 0, "end": 0}
QUESTIONS = [
    {"id": "q1", "type": "duration", "must_include": ["1个月|一个月"], "evidence": "试用期不得超过一个月",
     "yes": None, "paraphrase": False, "answerable": True},
    {"id": "q2", "type": "money", "must_include": ["500元", "2000元"],
     "evidence": "以每人五百元以上二千元以下的标准处以罚款", "yes": None, "paraphrase": True, "answerable": True},
    {"id": "q3", "type": "yesno", "must_include": [], "evidence": "不满三个月的，不得约定试用期", "yes": False,
     "paraphrase": False, "answerable": True},
    {"id": "q4", "type": "unanswerable", "must_include": [], "evidence": None, "yes": None, "paraphrase": False,
     "answerable": False},
    {"id": "q5", "type": "duration", "must_include": ["2年|两年"], "evidence": "竞业限制期限，不得超过二年",
     "yes": None, "paraphrase": False, "answerable": True},
    {"id": "q6", "type": "duration", "must_include": ["6个月"], "evidence": "试用期不得超过六个月",
     "yes": None, "paraphrase": False, "answerable": True},
    {"id": "q7", "type": "count", "must_include": ["1次"], "evidence": "只能约定一次试用期", "yes": None,
     "paraphrase": True, "answerable": True},
]


def _ans(qid, status, answer, evidence, value=None, ms=None):
    return {"id": qid, "status": status, "answer": answer, "value": value,
            "evidence": [dict(EV, text=e) for e in evidence], "timings_ms": {"total": ms} if ms else {}}


ANSWERS = [
    _ans("q1", "answered", "不得超过一个月", ["劳动合同期限三个月以上不满一年的，试用期不得超过一个月；"], ms=10),
    _ans("q2", "answered", "每人五百元以上二千元以下", ["并以每人五百元以上二千元以下的标准处以罚款；"], ms=20),
    _ans("q3", "answered", "不得约定试用期", ["以完成一定工作任务为期限的劳动合同或者劳动合同期限不满三个月的，不得约定试用期。"],
         ms=30),
    _ans("q4", "answered", "需要", ["外国人应当依法办理工作许可。"], ms=40),          # should have been not_found
    _ans("q5", "not_found", "", [], ms=50),                                          # abstained
    _ans("q6", "answered", "六个月", ["同一用人单位与同一劳动者只能约定一次试用期。"]),  # right value, wrong evidence
    # wrong value given as a structured value only
    _ans("q7", "answered", "", ["同一用人单位与同一劳动者只能约定一次试用期。"], value={"kind": "count", "number": 2, "unit": "次"}),
]


def test_norm_numerals_units_and_fixed_words():
    assert scorer.norm("二千五百元") == "2500元"
    assert scorer.norm("1.5万元") == "15000元"
    assert scorer.norm("三十天") == "30日"
    assert scorer.norm("1,000 元") == "1000元"
    assert scorer.norm("一律") == "一律"


def test_render_value_and_polarity():
    assert scorer.render_value({"kind": "range", "min": 500.0, "max": 2000, "unit": "元"}) == "5002000元"
    assert scorer.polarity({"answer": "不得约定试用期"}) is False
    assert scorer.polarity({"answer": "可以"}) is True
    assert scorer.polarity({"answer": "x", "value": {"kind": "boolean", "value": True}}) is True


def test_rows_on_handmade_answers():
    rows = {r["id"]: r for r in scorer.score(QUESTIONS, ANSWERS)}
    assert [rows[i]["correct"] for i in ("q1", "q2", "q3", "q4", "q5", "q6", "q7")] == [
        True, True, True, False, False, True, False]
    assert [rows[i]["evidence_ok"] for i in ("q1", "q2", "q3", "q6")] == [True, True, True, False]
    assert [rows[i]["wrong"] for i in ("q4", "q5", "q6", "q7")] == [True, False, False, True]


def test_summary_exact_numbers():
    s = scorer.summary(scorer.score(QUESTIONS, ANSWERS))
    assert s["questions"] == 7
    assert s["accuracy"] == 0.5                   # q1 q2 q3 of 6 answerable
    assert s["answer_only_accuracy"] == 0.667     # + q6 (right value, wrong evidence)
    assert s["paraphrase_accuracy"] == 0.5        # q2 of q2, q7
    assert s["not_found_on_unanswerable"] == 0.0
    assert s["wrong_answer_rate"] == 0.286        # q4, q7 of 7
    assert s["missing"] == 0
    assert s["per_type"] == {"count": "0/1", "duration": "1/3", "money": "1/1", "unanswerable": "0/1", "yesno": "1/1"}
    assert (s["reported_ms_p50"], s["reported_ms_p95"]) == (30, 50)


def test_missing_answer_counts_as_missing_not_wrong():
    s = scorer.summary(scorer.score(QUESTIONS[:2], ANSWERS[:1]))
    assert (s["missing"], s["wrong_answer_rate"], s["accuracy"]) == (1, 0.0, 0.5)


def _shared_scorer():
    spec = importlib.util.spec_from_file_location("shared_score", SHARED_EVAL / "score.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.shared
@needs_shared
def test_same_as_shared_scorer_on_handmade_file(tmp_path, capsys):
    ref = _shared_scorer()
    qf = write_jsonl(tmp_path / "q.jsonl", QUESTIONS)
    af = write_jsonl(tmp_path / "a.jsonl", ANSWERS)
    assert ref.score(QUESTIONS, ANSWERS) == scorer.score(QUESTIONS, ANSWERS)
    for extra in ([], ["--rows"], ["--json"]):
        capsys.readouterr()
        rc_ref = ref.main([str(qf), str(af)] + extra)
        out_ref = capsys.readouterr().out
        rc_ours = scorer.main([str(qf), str(af)] + extra)
        assert (rc_ours, capsys.readouterr().out) == (rc_ref, out_ref)


@pytest.mark.shared
@needs_shared
def test_same_as_shared_scorer_on_dev_questions():
    """Answers built from the gold fields (some right, some truncated, some abstaining) score identically."""
    ref = _shared_scorer()
    qs = [__import__("json").loads(l) for l in (SHARED_EVAL / "dev" / "questions.jsonl").read_text("utf-8").splitlines()
          if l.strip()]
    answers = []
    for i, q in enumerate(qs):
        gold = q.get("evidence") or ""
        gold = gold[0] if isinstance(gold, list) else gold
        must = "".join(m.split("|")[0] for m in q.get("must_include") or [])
        status = "not_found" if i % 5 == 4 else "answered"
        answers.append(_ans(q["id"], status, must if i % 3 else must[:2], [gold[: 6 + (i % 20)]] if i % 2 else [gold],
                            ms=i))
    assert ref.score(qs, answers) == scorer.score(qs, answers)
    assert ref.summary(ref.score(qs, answers)) == scorer.summary(scorer.score(qs, answers))
