"""The library API end to end on the bundled statutes: exact values, evidence, refusals, threads."""
from concurrent.futures import ThreadPoolExecutor

import pytest

from pipeline import KnowledgeBase, LoopAgentError

CASES = [
    ("劳动合同期限一年以上不满三年的，试用期最长多久？", {"kind": "duration", "number": 2, "unit": "月"}, "第十九条"),
    ("职工累计工作已满10年不满20年的，每年年休假几天？", {"kind": "duration", "number": 10, "unit": "日"}, "第三条"),
    ("女职工生育享受多少天产假？", {"kind": "duration", "number": 98, "unit": "日"}, "第七条"),
    ("单位不办理住房公积金缴存登记，逾期不办理的，罚款多少？", {"kind": "range", "min": 10000, "max": 50000, "unit": "元"}, "第三十七条"),
    ("工伤职工的生活护理费按几个等级支付？", {"kind": "count", "number": 3, "unit": "个"}, "第三十四条"),
]


@pytest.mark.parametrize("question,value,clause", CASES)
def test_answers_with_value_and_evidence(example_kb, question, value, clause):
    a = example_kb.ask(question)
    assert a.status == "answered", a.reasoning
    assert a.value == value
    assert a.evidence[0].section[-1] == clause
    block = example_kb.block(a.evidence[0].block_id)
    assert block.text[a.evidence[0].start:a.evidence[0].end] == a.evidence[0].text
    assert a.method.startswith("template:")
    assert any(r.startswith("命中条款") for r in a.reasoning)


@pytest.mark.parametrize("question", [
    "2024年上海市的月最低工资标准是多少元？",
    "用工单位使用劳务派遣工的数量，最多不得超过其用工总量的百分之几？",
])
def test_unsupported_questions_are_not_found(example_kb, question):
    a = example_kb.ask(question)
    assert a.status == "not_found"
    assert a.answer == "" and a.evidence == [] and a.value is None
    d = a.to_dict()
    assert d["status"] == "not_found" and d["evidence"] == []


def test_list_answer_keeps_all_items(example_kb):
    a = example_kb.ask("职工有哪些情形时不享受当年的年休假？")
    assert a.status == "answered"
    assert a.value["kind"] == "list" and len(a.value["items"]) == 5
    assert a.value["items"][0].startswith("(一)职工依法享受寒暑假")
    assert a.evidence[0].section[-1] == "第四条"


def test_ask_is_thread_safe(example_kb):
    questions = [c[0] for c in CASES] * 4
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(example_kb.ask, questions))
    assert [a.value for a in answers] == [c[1] for c in CASES] * 4


def test_empty_question_is_a_coded_error(example_kb):
    with pytest.raises(LoopAgentError) as e:
        example_kb.ask("  ")
    assert e.value.code == "E301"


def test_audit_log_records_each_decision(tmp_path, example_kb):
    kb = KnowledgeBase(example_kb.store.path, audit_log=tmp_path / "audit.jsonl")
    a = kb.ask(CASES[0][0], id="q1")
    import json
    rows = [json.loads(l) for l in (tmp_path / "audit.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rows[-1]["trace_id"] == a.trace_id and rows[-1]["id"] == "q1"
    assert rows[-1]["evidence"][0]["block_id"] == a.evidence[0].block_id
