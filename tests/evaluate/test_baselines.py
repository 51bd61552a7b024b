"""Retrieval baselines on the two statute excerpts in tests/data/evaluate."""
from __future__ import annotations

import pytest

from pipeline.evaluate.baselines import (Bm25Baseline, FtsBaseline, VectorBaseline, answer_from, corpus_units,
                                         simple_extract)

from .conftest import needs_bm25


@pytest.fixture(scope="module")
def units(tiny_kb):
    return corpus_units(tiny_kb.store)


def test_corpus_units_are_sentences_with_their_source(units):
    assert len(units) == 18
    u = next(u for u in units if u.text.startswith("女职工生育"))
    assert u.text == "女职工生育享受不少于九十天的产假。"
    assert u.source == "劳动法节选.md" and u.title == "中华人民共和国劳动法（节选）"
    assert u.evidence()["section"][-1] == "第六十二条"


def test_simple_extract_quantity_skips_values_the_question_states():
    s = "劳动合同期限一年以上不满三年的，试用期不得超过二个月；"
    assert simple_extract("劳动合同期限一年的，试用期最长多久？", s) == ("三年", None)
    assert simple_extract("试用期最长多久？", s) == ("一年", None)          # the first value, right or not
    assert simple_extract("试用期怎么约定？", s) == (s, None)               # not a quantity question: the sentence


def test_simple_extract_yesno_by_negation_words():
    assert simple_extract("能否约定试用期？", "不得约定试用期。")[1] == {"kind": "boolean", "value": False}
    assert simple_extract("是否可以延长工作时间？", "可以延长工作时间。")[1] == {"kind": "boolean", "value": True}


def test_answer_from_nothing_is_not_found():
    a = answer_from("问题", "x", None, "baseline:t", 1.0)
    assert (a["status"], a["answer"], a["evidence"]) == ("not_found", "", [])


def test_fts_baseline_top_block_best_sentence(tiny_kb, units):
    b = FtsBaseline()
    b.prepare(tiny_kb.store, units)
    assert b.top("女职工生育享受多少天的产假？").text == "女职工生育享受不少于九十天的产假。"
    a = b.ask("女职工生育享受多少天的产假？", "t2")
    assert (a["id"], a["status"], a["answer"], a["method"]) == ("t2", "answered", "九十天", "baseline:fts")
    assert b.top("！？") is None


@needs_bm25
def test_bm25_baseline_over_sentences(tiny_kb, units):
    b = Bm25Baseline()
    b.prepare(tiny_kb.store, units)
    assert b.top("每月最多延长工作时间多少小时？").text.startswith("因特殊原因需要延长工作时间的")
    assert b.top("量子计算机") is None  # no shared word


@pytest.mark.slow
@pytest.mark.skipif(VectorBaseline.available() is not None, reason="optional extra 'eval' not installed")
def test_vector_baseline_offline(tiny_kb, units, tmp_path):
    b = VectorBaseline(cache_dir=tmp_path)
    b.prepare(tiny_kb.store, units)
    assert b.emb.shape == (len(units), 384)
    assert (tmp_path / "minilm-sentences.npz").exists()  # cached for the next run
    again = VectorBaseline(cache_dir=tmp_path)
    again.prepare(tiny_kb.store, units)
    assert (again.emb == b.emb).all()
    assert b.top("女职工生育享受多少天的产假？") is not None


def test_embedding_cache_round_trip(tmp_path):
    np = pytest.importorskip("numpy")
    from pipeline.evaluate.baselines import EmbeddingCache

    c = EmbeddingCache(tmp_path / "e.npz")
    c.add(["甲", "乙"], np.eye(2, dtype="float32"))
    c.add(["甲"], np.zeros((1, 2), dtype="float32"))  # first one wins
    c.save()
    again = EmbeddingCache(tmp_path / "e.npz")
    assert "甲" in again and "丙" not in again
    assert again.get("甲").tolist() == [1.0, 0.0] and again.get("乙").tolist() == [0.0, 1.0]
