"""The evaluation runner: baselines on the tiny corpus, margins, tables, JSON; LoopAgent end to end (slow)."""
from __future__ import annotations

import json
import math

import pytest

from pipeline.evaluate import add_subparser, main
from pipeline.evaluate.runner import format_tables, margins, ratio, run_eval, write_json

from .conftest import DATA, needs_bm25

pytestmark = needs_bm25  # the runs below include the bm25 baseline


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    db = tmp_path_factory.mktemp("runner") / "kb.sqlite"
    return run_eval(DATA / "docs", DATA / "questions.jsonl", db, systems=["fts", "bm25"], log=lambda m: None)


def test_baselines_scored_with_the_scorer(result):
    fts = result["systems"]["fts"]["summary"]
    bm25 = result["systems"]["bm25"]["summary"]
    # t2 (九十天) and t4 (否 + 不得约定试用期) right for both; t5 answered although unanswerable
    assert (fts["accuracy"], fts["wrong_answer_rate"], fts["evidence_hit_at_1"]) == (0.5, 0.6, 0.5)
    assert (bm25["accuracy"], bm25["wrong_answer_rate"], bm25["evidence_hit_at_1"]) == (0.5, 0.6, 0.75)
    assert fts["not_found_on_unanswerable"] == 0.0
    assert fts["top_sentence_hit_at_1"] == fts["evidence_hit_at_1"]  # a baseline's evidence is its top sentence
    assert result["sentences"] == 18 and result["n_questions"] == 5


def test_per_question_rows(result):
    rows = {r["id"]: r for r in result["questions"]}
    assert rows["t2"]["fts"]["answer"] == "九十天" and rows["t2"]["fts"]["correct"]
    assert rows["t3"]["bm25"]["hit_at_1"] and not rows["t3"]["bm25"]["correct"]  # right sentence, first value wrong
    assert rows["t5"]["bm25"]["hit_at_1"] is None and rows["t5"]["bm25"]["wrong"]


def test_reuses_an_up_to_date_store(tmp_path):
    db = tmp_path / "kb.sqlite"
    logs: list[str] = []
    run_eval(DATA / "docs", DATA / "questions.jsonl", db, systems=["fts"], log=logs.append)
    run_eval(DATA / "docs", DATA / "questions.jsonl", db, systems=["fts"], log=logs.append)
    assert "skipped 2" in [l for l in logs if l.startswith("ingest")][1]


def test_unknown_system_lists_the_choices(tmp_path):
    with pytest.raises(ValueError, match="loopagent, fts, bm25, vector"):
        run_eval(DATA / "docs", DATA / "questions.jsonl", tmp_path / "x.sqlite", systems=["colbert"])


def test_ratio_and_margins():
    assert ratio(0.6, 0.2) == 3.0
    assert ratio(0.5, 0) == math.inf and ratio(0, 0) is None and ratio(None, 1) is None
    sysres = {"loopagent": {"summary": {"accuracy": 0.6, "evidence_hit_at_1": 0.8, "wrong_answer_rate": 0.1}},
              "fts": {"summary": {"accuracy": 0.2, "evidence_hit_at_1": 0.4, "wrong_answer_rate": 0.8}},
              "vector": {"skipped": "not installed"}}
    assert margins(sysres) == {"fts": {"accuracy_ratio": 3.0, "accuracy_diff": 0.4, "hit_at_1_ratio": 2.0,
                                       "top_sentence_ratio": None, "wrong_rate_ratio_baseline_over_ours": 8.0}}


def test_tables_and_json(result, tmp_path):
    text = format_tables(result)
    assert "| accuracy (answer + evidence) | 0.5 | 0.5 |" in text
    assert "| duration | 1/3 | 1/3 |" in text
    out = tmp_path / "r.json"
    write_json(dict(result, margins={"x": {"accuracy_ratio": math.inf}}), out)
    assert json.loads(out.read_text("utf-8"))["margins"]["x"]["accuracy_ratio"] == "inf"


def test_main_and_subparser(tmp_path, capsys):
    import argparse

    p = argparse.ArgumentParser()
    add_subparser(p.add_subparsers(dest="cmd"))
    args = p.parse_args(["eval", "--docs", "d", "--questions", "q"])
    assert args.cmd == "eval" and args.systems.startswith("loopagent") and callable(args.func)
    out = tmp_path / "r.json"
    rc = main(["--docs", str(DATA / "docs"), "--questions", str(DATA / "questions.jsonl"),
               "--db", str(tmp_path / "kb.sqlite"), "--systems", "bm25", "--out", str(out)])
    assert rc == 0 and "| evidence hit@1 | 0.75 |" in capsys.readouterr().out
    assert json.loads(out.read_text("utf-8"))["systems"]["bm25"]["summary"]["accuracy"] == 0.5
    assert main(["--docs", str(DATA / "docs"), "--questions", str(DATA / "questions.jsonl"),
                 "--db", str(tmp_path / "y.sqlite"), "--systems", "nope"]) == 2
    assert main(["--docs", str(tmp_path / "none"), "--questions", str(DATA / "questions.jsonl")]) == 2
    assert "--docs" in capsys.readouterr().err


@pytest.mark.slow
def test_loopagent_end_to_end_with_margins(tmp_path):
    res = run_eval(DATA / "docs", DATA / "questions.jsonl", tmp_path / "kb.sqlite", systems=["loopagent", "fts"],
                   log=lambda m: None)
    s = res["systems"]["loopagent"]["summary"]
    assert s["questions"] == 5 and 0.0 <= s["accuracy"] <= 1.0
    assert 0.0 <= s["top_sentence_hit_at_1"] <= 1.0  # from the trace: counted whether or not it answered
    assert set(res["margins"]) == {"fts"}
    assert all("loopagent" in r for r in res["questions"])
